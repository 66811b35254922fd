package interval

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/privmap/privmap/app/human"
	"github.com/privmap/privmap/core"
)

// TestCICheck checks the interval options: the level, the method, and
// the replicates that the level's tails need, 2/(1 − L), within rounding
// (20 × (1 − 0.9)/2 is 0.9999999999999998, not below 1).
func TestCICheck(t *testing.T) {
	for _, tc := range []struct {
		ci   CI
		want string // "" for none
	}{
		{CI{Level: 0.95}, ""},
		{CI{Level: 0.9, Replicates: 20}, ""},
		{CI{Level: 0.95, Replicates: 40}, ""},
		{CI{Level: 0.95, Replicates: 39}, "its tails need at least 40"},
		{CI{Level: 0.99, Replicates: 40}, "its tails need at least 200"},
		{CI{Level: 0.95, Replicates: 10}, "want 20 to"},
		{CI{Level: 1}, "strictly between 0 and 1"},
		{CI{Level: math.NaN()}, "strictly between 0 and 1"},
		{CI{Level: 0.95, Method: "jackknife"}, `interval method "jackknife"`},
		{CI{Level: 0.95, Method: core.IntervalFisher, Replicates: 1}, ""},
	} {
		err := tc.ci.Check()
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v: %v, want %q", tc.ci, err, tc.want)
		}
	}
}

// TestCIMethodFor checks auto's choice and CheckStudy's refusals before
// an estimate runs: the windowed profile on a grid of k-RR and planar
// users, the profile on other maps of at most 512 symbols, the
// bootstrap on a large map with another mechanism and for other
// estimators; Fisher
// beyond its matrix's bound and the windowed profile off a grid.
func TestCIMethodFor(t *testing.T) {
	planar := core.MechanismSpec{ID: "g", Kind: core.KindPlanar, Epsilon: 1}
	krr := core.MechanismSpec{ID: "k", Kind: core.KindKRR, Epsilon: 3}
	rappor := core.MechanismSpec{ID: "r", Kind: core.KindRAPPOR, Epsilon: 3}
	grid := func(side int, ms ...core.MechanismSpec) *core.Study {
		return &core.Study{Alphabet: core.Alphabet{Kind: core.KindGrid, Rows: side, Cols: side, South: 40, West: -74, CellKm: 0.5}, Mechanisms: ms}
	}
	cat := &core.Study{Alphabet: core.Alphabet{Kind: core.KindCategorical, Size: 600}, Mechanisms: []core.MechanismSpec{krr}}
	for _, tc := range []struct {
		method core.Method
		s      *core.Study
		want   core.IntervalMethod
	}{
		{core.MethodGIBU, grid(20, planar, krr), core.IntervalLocalProfile},
		{core.MethodGIBU, grid(20, planar, rappor), core.IntervalProfile},
		{core.MethodGIBU, grid(40, planar, krr), core.IntervalLocalProfile},
		{core.MethodEM, grid(40, krr), core.IntervalLocalProfile},
		{core.MethodGIBU, grid(40, planar, rappor), core.IntervalBootstrap},
		{core.MethodGIBU, cat, core.IntervalBootstrap},
		{core.MethodIBUM, grid(40, planar, krr), core.IntervalBootstrap},
	} {
		if got := (CI{Level: 0.95}).MethodFor(tc.method, tc.s); got != tc.want {
			t.Errorf("%s on %d symbols of %d mechanisms: %s, want %s", tc.method, tc.s.Alphabet.Len(), len(tc.s.Mechanisms), got, tc.want)
		}
	}
	for _, tc := range []struct {
		ci   CI
		s    *core.Study
		want string
	}{
		{CI{Level: 0.95, Method: core.IntervalLocalProfile}, grid(40, planar, krr), ""},
		{CI{Level: 0.95, Method: core.IntervalLocalProfile}, cat, "need a grid"},
		{CI{Level: 0.95, Method: core.IntervalLocalProfile}, grid(40, planar, rappor), "need a grid"},
		{CI{Level: 0.95, Method: core.IntervalFisher}, grid(70, krr), "information matrix"},
	} {
		err := tc.ci.CheckStudy(tc.s)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s on %d symbols: %v, want %q", tc.ci.Method, tc.s.Alphabet.Len(), err, tc.want)
		}
	}
}

// TestIntervalsLocalProfile computes GIBU's intervals on a 30×24 grid
// of planar and k-RR users through interval.Of, as auto chooses there:
// the windowed profile, whose sentence names the window and the cells
// at 0, with progress reaching 1 and no error figures.
func TestIntervalsLocalProfile(t *testing.T) {
	a := core.Alphabet{Kind: core.KindGrid, Rows: 24, Cols: 30, South: 40, West: -74, CellKm: 0.5}
	s := &core.Study{Alphabet: a, Mechanisms: []core.MechanismSpec{{ID: "g", Kind: core.KindPlanar, Epsilon: 1.2}, {ID: "k", Kind: core.KindKRR, Epsilon: 4}}}
	mechs, err := mechanisms(s)
	if err != nil {
		t.Fatal(err)
	}
	truth := make([]float64, a.Len())
	rng := rand.New(rand.NewPCG(4, 4))
	sum := 0.0
	for x := range truth {
		if rng.Float64() < 0.3 {
			truth[x] = rng.Float64()
			sum += truth[x]
		}
	}
	for x := range truth {
		truth[x] /= sum
	}
	g, err := core.SimulateGroups(context.Background(), rand.New(rand.NewPCG(1, 1)), mechs, []int{5000, 5000}, truth)
	if err != nil {
		t.Fatal(err)
	}
	est, err := core.Reconstruct(context.Background(), core.MethodGIBU, s, mechs, g, core.EstimateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	last := 0.0
	iv, err := Of(context.Background(), core.MethodGIBU, s, mechs, g, est, core.EstimateOptions{}, CI{Level: 0.95}, func(f float64) { last = f })
	if err != nil {
		t.Fatal(err)
	}
	if iv.Method != core.IntervalLocalProfile || last != 1 || !math.IsNaN(iv.TV) || !math.IsNaN(iv.EMD) || iv.ZeroEnds == 0 {
		t.Fatalf("method %s, progress %v, TV %v, EMD %v, zero ends %d", iv.Method, last, iv.TV, iv.EMD, iv.ZeroEnds)
	}
	for x, th := range est.Theta {
		if !(iv.BandLo[x] <= iv.Lo[x] && iv.Lo[x] <= th && th <= iv.Hi[x] && iv.Hi[x] <= iv.BandHi[x]) {
			t.Fatalf("cell %d: θ̂ %.4g, interval [%.4g, %.4g], band [%.4g, %.4g]", x, th, iv.Lo[x], iv.Hi[x], iv.BandLo[x], iv.BandHi[x])
		}
	}
	sentence := Sentence(iv, a)
	for _, want := range []string{"the profile likelihood in a window", "9×9 cells", fmt.Sprintf("at the %s cells the estimate puts at 0", human.Thousands(iv.ZeroEnds)), "approximate"} {
		if !strings.Contains(sentence, want) {
			t.Errorf("the sentence lacks %q: %s", want, sentence)
		}
	}
}

// TestIntervalsLinear computes the intervals of GIBU on a line of 12
// symbols through interval.Of: the EMD bound in steps is the
// quantile of the replicates' EMDs, which the sentence and the error
// figures carry; the Fisher method of another method is refused.
func TestIntervalsLinear(t *testing.T) {
	a := core.Alphabet{Kind: core.KindLinear, Size: 12}
	s := &core.Study{Alphabet: a, Mechanisms: []core.MechanismSpec{{ID: "g", Kind: core.KindGeo, Epsilon: 1}}}
	mechs, err := mechanisms(s)
	if err != nil {
		t.Fatal(err)
	}
	truth := []float64{0.02, 0.05, 0.08, 0.1, 0.15, 0.2, 0.15, 0.1, 0.08, 0.04, 0.02, 0.01}
	g, err := core.SimulateGroups(context.Background(), rand.New(rand.NewPCG(1, 1)), mechs, []int{3000}, truth)
	if err != nil {
		t.Fatal(err)
	}
	est, err := core.Reconstruct(context.Background(), core.MethodGIBU, s, mechs, g, core.EstimateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var fractions []float64
	iv, err := Of(context.Background(), core.MethodGIBU, s, mechs, g, est, core.EstimateOptions{}, CI{Level: 0.9, Method: core.IntervalBootstrap, Replicates: 50, Seed: 2},
		func(f float64) { fractions = append(fractions, f) })
	if err != nil {
		t.Fatal(err)
	}
	if iv.EMDUnit != "step" || !(iv.EMD > 0 && iv.EMD < 11) || iv.Replicates != 50 {
		t.Errorf("EMD bound %v %s over %d replicates", iv.EMD, iv.EMDUnit, iv.Replicates)
	}
	if n := len(fractions); n == 0 || fractions[n-1] != 1 {
		t.Errorf("progress %v, want it to end at 1", fractions)
	}
	sentence := Sentence(iv, a)
	for _, want := range []string{"With 90% confidence (a parametric bootstrap of 50 replicates, approximate), each of the 12 values",
		"TV at most", "EMD at most", " step."} {
		if !strings.Contains(sentence, want) {
			t.Errorf("sentence %q lacks %q", sentence, want)
		}
	}
	// Where the MLE puts values at 0, their upper ends are raised
	// (core.ZeroEnds), and the sentence says at how many.
	if iv.ZeroEnds > 0 {
		if want := fmt.Sprintf("approximate; at the %s the estimate puts at 0, upper ends that hold the profile likelihood's)", human.Plural(iv.ZeroEnds, "value", "values")); !strings.Contains(sentence, want) {
			t.Errorf("sentence %q lacks %q", sentence, want)
		}
	}
	zeros := 0
	for _, v := range est.Theta {
		if v <= 1e-9 {
			zeros++
		}
	}
	if iv.ZeroEnds != zeros {
		t.Errorf("%d upper ends raised, %d values at 0", iv.ZeroEnds, zeros)
	}
	// The default for the MLE on 12 values: the profile likelihood,
	// whose band is each value's interval at Šidák's level.
	pv, err := Of(context.Background(), core.MethodGIBU, s, mechs, g, est, core.EstimateOptions{}, CI{Level: 0.9}, nil)
	if err != nil || pv.Method != core.IntervalProfile || !math.IsNaN(pv.TV) {
		t.Fatalf("default intervals of gibu: %v, %v", pv, err)
	}
	if got, want := Sentence(pv, a), "With 90% confidence (the profile likelihood: the values each value can take whose best likelihood is within χ²₁'s 90% quantile of the most likely map's, approximate), each of the 12 values lies in its own interval (columns lo–hi), and all of them at once lie in their band (band_lo–band_hi, each value's interval with its chance of missing cut to 0.87% by Šidák's rule)."; got != want {
		t.Errorf("profile sentence\n%s\nwant\n%s", got, want)
	}
	if _, err := Of(context.Background(), core.MethodINVM, s, mechs, g, est, core.EstimateOptions{}, CI{Level: 0.9, Method: core.IntervalFisher}, nil); err == nil ||
		!strings.Contains(err.Error(), "needs the bootstrap") {
		t.Errorf("fisher for inv-m: %v", err)
	}
}

// TestIntervalCaveat: where people sent several reports, the intervals
// are said to describe the records; one report a person, nothing.
func TestIntervalCaveat(t *testing.T) {
	s := &core.Study{Data: []int{0, 1, 1, 2}, People: []int{0, 0, 1, 2}}
	g := &core.Groups{Users: []int{4}}
	if got := Caveat(s, g); !strings.Contains(got, "describe the 4 records, up to 2 from one of the 3 people") {
		t.Errorf("caveat %q", got)
	}
	s.People = []int{0, 1, 2, 3}
	if got := Caveat(s, g); got != "" {
		t.Errorf("one a person: %q", got)
	}
}

// mechanisms builds every mechanism of s.
func mechanisms(s *core.Study) ([]core.Mechanism, error) {
	mechs := make([]core.Mechanism, len(s.Mechanisms))
	for i, spec := range s.Mechanisms {
		m, err := core.NewMechanism(spec, s.Alphabet)
		if err != nil {
			return nil, err
		}
		mechs[i] = m
	}
	return mechs, nil
}
