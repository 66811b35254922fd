package experiment

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/privmap/privmap/app/pipeline"
	"github.com/privmap/privmap/core"
	"github.com/privmap/privmap/core/emd"
)

// The coverage experiment's metrics, against the truth of a run — the
// distribution of the data its users hold (the data set's records, the
// estimand): the share of cells whose interval holds the truth, whether
// the band holds every cell, whether the TV bound holds the estimate's
// TV, the mean width of the cells' intervals, and the share of the
// missed cells that the estimate put at 0; then the share of cells
// covered among the cells with people, the empty ones, and those with
// one person, two to four and five or more (NaN in a run without
// such cells, and the TV bound's for intervals without one: the run
// writes no row of them).
const (
	CoverCell   Metric = "cover_cell"
	CoverBand   Metric = "cover_band"
	CoverTV     Metric = "cover_tv"
	Width       Metric = "width"
	MissZero    Metric = "miss_zero"
	CoverPeople Metric = "cover_people"
	CoverEmpty  Metric = "cover_empty"
	Cover1      Metric = "cover_1"
	Cover2to4   Metric = "cover_2_4"
	Cover5      Metric = "cover_5plus"
)

// mayBeMissing are the metrics a run may have nothing to measure of
// (no cells with people, or none empty, of one person, of 2–4, of 5 or
// more; no TV bound): it writes no row of them (runJob).
var mayBeMissing = map[Metric]bool{CoverTV: true, CoverPeople: true, CoverEmpty: true, Cover1: true, Cover2to4: true, Cover5: true}

// coverageMetrics are the metrics coverage returns, in its order.
var coverageMetrics = []Metric{CoverCell, CoverBand, CoverTV, Width, MissZero, CoverPeople, CoverEmpty, Cover1, Cover2to4, Cover5}

// coverageLevel and coverageReplicates are the intervals the experiment
// measures: privmap estimate -ci's defaults.
const (
	coverageLevel      = core.DefaultLevel
	coverageReplicates = core.DefaultReplicates
)

// The estimators whose intervals the coverage experiment measures.
var (
	coverInvM    = Variant{Label: "[INV]_M projection", Method: core.MethodINVM, Post: core.PostProj}
	coverCEM     = Variant{Label: "Corrected EM", Method: core.MethodCEM}
	coverProfile = Variant{Label: "GIBU, profile", Method: core.MethodGIBU, Post: core.PostProj, CI: core.IntervalProfile}
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
	fw := []Variant{gibu, coverProfile, ibuM, coverInvM, ibuR}
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
		census.Alphabet, census.Truth, 0, []Variant{{Label: "EM", Method: core.MethodEM}, {Label: "EM, profile", Method: core.MethodEM, CI: core.IntervalProfile}, coverCEM, coverInvM})
	if err != nil {
		return nil, err
	}
	return []Panel{a, b, c}, nil
}

// coveragePanel is one panel: the preset's mechanisms with n users in
// its shares (n = 0: CEM §5.1's 500, 500, 50 and 50), one setting, each
// run drawing the users' data from truth, sanitising them, estimating
// with each variant and measuring its intervals against the data's own
// distribution, cell by cell with the people each holds.
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
		Metrics:  coverageMetrics,
		Settings: []Setting{{Name: preset, X: float64(pop.N()), N: pop.N()}}, Variants: vs}
	var once sync.Once
	var mechs []core.Mechanism
	var buildErr error
	p.Measure = func(ctx context.Context, rng *rand.Rand, _, vi int) ([]float64, error) {
		once.Do(func() { mechs, buildErr = pipeline.BuildMechanisms(ctx, s, nil) })
		if buildErr != nil {
			return nil, buildErr
		}
		g, people, err := drawPeople(ctx, rng, mechs, pop.Users, truth)
		if err != nil {
			return nil, err
		}
		return measureCoverage(ctx, vs[vi], s, mechs, g, people, rng.Uint64())
	}
	return p, nil
}

// drawPeople draws the data of users[j] people of each mechanism j from
// truth and sanitises each through her mechanism: the grouped reports
// and the people of each cell.
func drawPeople(ctx context.Context, rng *rand.Rand, mechs []core.Mechanism, users []int, truth []float64) (*core.Groups, []int, error) {
	n := 0
	for _, u := range users {
		n += u
	}
	sampler := core.NewDataSampler(truth)
	data := make([]int, n)
	people := make([]int, len(truth))
	for i := range data {
		data[i] = sampler.Draw(rng)
		people[data[i]]++
	}
	var mech []int
	var reps []core.Report
	err := core.SimulateData(ctx, rng, mechs, users, data, nil, func(_, j int, r core.Report) error {
		mech, reps = append(mech, j), append(reps, r)
		return nil
	}, nil)
	if err != nil {
		return nil, nil, err
	}
	return core.GroupReports(len(mechs), mech, reps), people, nil
}

// measureCoverage estimates with v from g, computes its intervals as
// privmap estimate -ci -ci-method v.CI does, and returns the coverage
// metrics against the distribution of the data, people[x] people in
// cell x.
func measureCoverage(ctx context.Context, v Variant, s *core.Study, mechs []core.Mechanism, g *core.Groups, people []int, seed uint64) ([]float64, error) {
	opt := core.EstimateOptions{Post: v.Post, CEM: core.CEMOptions{Seed: seed}}
	est, err := core.Reconstruct(ctx, v.Method, s, mechs, g, opt)
	if err != nil {
		return nil, err
	}
	iv, err := intervalsOf(ctx, v, s, mechs, g, est, opt, seed)
	if err != nil {
		return nil, err
	}
	return coverage(people, est.Theta, iv), nil
}

// intervalsOf returns the intervals of est by v's method, as estimate
// -ci computes them less the EMD bound.
func intervalsOf(ctx context.Context, v Variant, s *core.Study, mechs []core.Mechanism, g *core.Groups, est *core.Estimate, opt core.EstimateOptions, seed uint64) (*core.Intervals, error) {
	switch v.CI {
	case core.IntervalProfile:
		return core.Profile(ctx, mechs, g, s, est.Theta, coverageLevel, nil)
	case core.IntervalLocalProfile:
		return core.LocalProfile(ctx, mechs, g, s, est.Theta, coverageLevel, nil)
	case core.IntervalFisher:
		return core.Fisher(ctx, mechs, g, s, est.Theta, coverageLevel)
	}
	reps, err := core.Bootstrap(ctx, v.Method, s, mechs, g, est, opt, coverageReplicates, seed, nil)
	if err != nil {
		return nil, err
	}
	return core.BootstrapIntervals(est.Theta, reps, coverageLevel)
}

// coverage returns the coverageMetrics of intervals iv of the estimate
// theta against the distribution of data with people[x] people in cell
// x.
func coverage(people []int, theta []float64, iv *core.Intervals) []float64 {
	n := 0
	for _, c := range people {
		n += c
	}
	truth := make([]float64, len(people))
	for x, c := range people {
		truth[x] = float64(c) / float64(n)
	}
	// Cells covered and cells by people: none, one, 2–4, 5 or more.
	var in, of [4]int
	band, width, missed, missedZero := 1.0, 0.0, 0, 0
	for x, t := range truth {
		c := peopleClass(people[x])
		of[c]++
		if t >= iv.Lo[x] && t <= iv.Hi[x] {
			in[c]++
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
	zero := share(missedZero, missed)
	if missed == 0 {
		zero = 0
	}
	tv := math.NaN()
	if !math.IsNaN(iv.TV) {
		tv = 0
		if emd.TV(truth, theta) <= iv.TV {
			tv = 1
		}
	}
	all := in[0] + in[1] + in[2] + in[3]
	return []float64{share(all, len(truth)), band, tv, width / float64(len(truth)), zero,
		share(all-in[0], len(truth)-of[0]), share(in[0], of[0]), share(in[1], of[1]), share(in[2], of[2]), share(in[3], of[3])}
}

// peopleClass returns the coverage experiment's class of a cell of c
// people: 0 none, 1 one, 2 two to four, 3 five or more.
func peopleClass(c int) int {
	switch {
	case c == 0:
		return 0
	case c == 1:
		return 1
	case c <= 4:
		return 2
	}
	return 3
}

// share returns in/of, NaN when of is 0.
func share(in, of int) float64 {
	if of == 0 {
		return math.NaN()
	}
	return float64(in) / float64(of)
}
