package experiment

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/privmap/privmap/app"
	"github.com/privmap/privmap/core"
	"github.com/privmap/privmap/core/emd"
)

// The coverage experiment's metrics: the share of cells whose interval
// holds the truth, whether the band holds every cell, whether the TV
// bound holds the estimate's TV, the mean width of the cells' intervals,
// and the share of the missed cells that the estimate put at 0.
const (
	CoverCell Metric = "cover_cell"
	CoverBand Metric = "cover_band"
	CoverTV   Metric = "cover_tv"
	Width     Metric = "width"
	MissZero  Metric = "miss_zero"
)

// coverageLevel and coverageReplicates are the intervals the experiment
// measures: privmap estimate -ci's defaults.
const (
	coverageLevel      = core.DefaultLevel
	coverageReplicates = core.DefaultReplicates
)

// The estimators whose intervals the coverage experiment measures.
var (
	coverInvM = Variant{Label: "[INV]_M projection", Method: core.MethodINVM, Post: core.PostProj}
	coverCEM  = Variant{Label: "Corrected EM", Method: core.MethodCEM}
)

func init() {
	register(&Experiment{Name: "coverage",
		Title: "Coverage of privmap's intervals: the share of cells whose 95% interval holds the truth, of runs whose band holds every cell, and of runs whose TV bound holds, for each estimator, on (a) FW's 24×16 planar set-up (Table 6), (b) its k-RR set-up (Table 5) and (c) CEM's census population (k-RR with ε = 0.1, 2, ln K, ∞)",
		Claim: "Issue 29: intervals are honest — each covers the truth with about its nominal probability (95%), the band every cell at once, the TV bound the estimate's error; where they under-cover, the table says so.",
		Runs:  20, Users: []int{10000}, UsersRole: UsersOne, Data: CheckinData,
		panels: coveragePanels})
}

// coveragePanels builds the three panels: FW's planar and k-RR presets on
// d's grid with users each, and CEM's population on the embedded head of
// US Census 1990.
func coveragePanels(d *Data, users []int) ([]Panel, error) {
	fw := []Variant{gibu, ibuM, coverInvM, ibuR}
	a, err := coveragePanel("a", "fw-t6", fmt.Sprintf("planar %d×%d grid, %s, FW Table 6's ten planar geometric mechanisms", d.Alphabet.Cols, d.Alphabet.Rows, d.Source),
		d.Alphabet, d.Truth, users[0], fw)
	if err != nil {
		return nil, err
	}
	b, err := coveragePanel("b", "fw-t5", fmt.Sprintf("planar %d×%d grid, %s, FW Table 5's ten k-RR", d.Alphabet.Cols, d.Alphabet.Rows, d.Source),
		d.Alphabet, d.Truth, users[0], fw)
	if err != nil {
		return nil, err
	}
	census, err := LoadCensus(context.Background(), Source{})
	if err != nil {
		return nil, err
	}
	c, err := coveragePanel("c", "cem", fmt.Sprintf("census table on CEM Table 2's attributes, %s, N = 500:500:50:50", census.Source),
		census.Alphabet, census.Truth, 0, []Variant{{Label: "EM", Method: core.MethodEM}, coverCEM, coverInvM})
	if err != nil {
		return nil, err
	}
	return []Panel{a, b, c}, nil
}

// coveragePanel is one panel: the preset's mechanisms with n users in
// its shares (n = 0: CEM §5.1's 500, 500, 50 and 50), one setting, each
// run drawing the users' data from truth, estimating with each variant
// and measuring its intervals against the truth.
func coveragePanel(name, preset, title string, a core.Alphabet, truth []float64, n int, vs []Variant) (Panel, error) {
	ms, err := core.PresetMechanisms(preset, a)
	if err != nil {
		return Panel{}, err
	}
	s := &core.Study{Alphabet: a, Mechanisms: ms}
	counts := []int{500, 500, 50, 50}
	if n > 0 {
		if counts, err = assign(s, n); err != nil {
			return Panel{}, err
		}
	}
	pop := Population{Study: s, Users: counts}
	p := Panel{Name: name, Setting: preset, Title: title, Alphabet: a, Truth: truth, XLabel: "users", Scatter: true, NoBest: true,
		Metrics:  []Metric{CoverCell, CoverBand, CoverTV, Width, MissZero},
		Settings: []Setting{{Name: preset, X: float64(pop.N()), N: pop.N()}}, Variants: vs}
	var once sync.Once
	var mechs []core.Mechanism
	var buildErr error
	p.Measure = func(ctx context.Context, rng *rand.Rand, _, vi int) ([]float64, error) {
		once.Do(func() { mechs, buildErr = app.BuildMechanisms(ctx, s, nil) })
		if buildErr != nil {
			return nil, buildErr
		}
		g, err := core.SimulateGroups(ctx, rng, mechs, pop.Users, truth)
		if err != nil {
			return nil, err
		}
		return measureCoverage(ctx, vs[vi], s, mechs, g, truth, rng.Uint64())
	}
	return p, nil
}

// measureCoverage estimates with v from g, computes its intervals as
// privmap estimate -ci does, and returns the coverage metrics against
// the truth.
func measureCoverage(ctx context.Context, v Variant, s *core.Study, mechs []core.Mechanism, g *core.Groups, truth []float64, seed uint64) ([]float64, error) {
	opt := core.EstimateOptions{Post: v.Post, CEM: core.CEMOptions{Seed: seed}}
	est, err := core.Reconstruct(ctx, v.Method, s, mechs, g, opt)
	if err != nil {
		return nil, err
	}
	reps, err := core.Bootstrap(ctx, v.Method, s, mechs, g, est, opt, coverageReplicates, seed, nil)
	if err != nil {
		return nil, err
	}
	iv, err := core.BootstrapIntervals(est.Theta, reps, coverageLevel)
	if err != nil {
		return nil, err
	}
	return coverage(truth, est.Theta, iv), nil
}

// coverage returns the metrics CoverCell, CoverBand, CoverTV, Width and
// MissZero of intervals iv of the estimate theta against the truth.
func coverage(truth, theta []float64, iv *core.Intervals) []float64 {
	in, band, width, missed, missedZero := 0, 1.0, 0.0, 0, 0
	for x, t := range truth {
		if t >= iv.Lo[x] && t <= iv.Hi[x] {
			in++
		} else {
			missed++
			if theta[x] == 0 {
				missedZero++
			}
		}
		if t < iv.BandLo[x] || t > iv.BandHi[x] {
			band = 0
		}
		width += iv.Hi[x] - iv.Lo[x]
	}
	tv := 0.0
	if emd.TV(truth, theta) <= iv.TV {
		tv = 1
	}
	zero := 0.0
	if missed > 0 {
		zero = float64(missedZero) / float64(missed)
	}
	k := float64(len(truth))
	return []float64{float64(in) / k, band, tv, width / k, math.Max(zero, 0)}
}
