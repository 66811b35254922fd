package app

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

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

// TestIntervalsLinear computes the intervals of GIBU on a line of 12
// symbols through app.Intervals: the EMD bound in steps is the
// quantile of the replicates' EMDs, which the sentence and the error
// figures carry; the Fisher method of another method is refused.
func TestIntervalsLinear(t *testing.T) {
	a := core.Alphabet{Kind: core.KindLinear, Size: 12}
	s := &core.Study{Alphabet: a, Mechanisms: []core.MechanismSpec{{ID: "g", Kind: core.KindGeo, Epsilon: 1}}}
	mechs, err := BuildMechanisms(context.Background(), s, nil)
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
	iv, err := Intervals(context.Background(), core.MethodGIBU, s, mechs, g, est, core.EstimateOptions{}, CI{Level: 0.9, Method: core.IntervalBootstrap, Replicates: 50, Seed: 2},
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
	sentence := IntervalSentence(iv, a)
	for _, want := range []string{"With 90% confidence (a parametric bootstrap of 50 replicates, approximate), each of the 12 values",
		"TV at most", "EMD at most", " step."} {
		if !strings.Contains(sentence, want) {
			t.Errorf("sentence %q lacks %q", sentence, want)
		}
	}
	// Where the MLE puts values at 0, their upper ends are raised
	// (core.ZeroEnds), and the sentence says at how many.
	if iv.ZeroEnds > 0 {
		if want := fmt.Sprintf("approximate; at the %s the estimate puts at 0, upper ends that hold the profile likelihood's)", plural(iv.ZeroEnds, "value", "values")); !strings.Contains(sentence, want) {
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
	pv, err := Intervals(context.Background(), core.MethodGIBU, s, mechs, g, est, core.EstimateOptions{}, CI{Level: 0.9}, nil)
	if err != nil || pv.Method != core.IntervalProfile || !math.IsNaN(pv.TV) {
		t.Fatalf("default intervals of gibu: %v, %v", pv, err)
	}
	if got, want := IntervalSentence(pv, a), "With 90% confidence (the profile likelihood: the values each value can take whose best likelihood is within χ²₁'s 90% quantile of the most likely map's, approximate), each of the 12 values lies in its own interval (columns lo–hi), and all of them at once lie in their band (band_lo–band_hi, each value's interval with its chance of missing cut to 0.87% by Šidák's rule)."; got != want {
		t.Errorf("profile sentence\n%s\nwant\n%s", got, want)
	}
	if _, err := Intervals(context.Background(), core.MethodINVM, s, mechs, g, est, core.EstimateOptions{}, CI{Level: 0.9, Method: core.IntervalFisher}, nil); err == nil ||
		!strings.Contains(err.Error(), "needs the bootstrap") {
		t.Errorf("fisher for inv-m: %v", err)
	}
}

// TestIntervalCaveat: where people sent several reports, the intervals
// are said to describe the records; one report a person, nothing.
func TestIntervalCaveat(t *testing.T) {
	s := &core.Study{Data: []int{0, 1, 1, 2}, People: []int{0, 0, 1, 2}}
	g := &core.Groups{Users: []int{4}}
	if got := IntervalCaveat(s, g); !strings.Contains(got, "describe the 4 records, up to 2 from one of the 3 people") {
		t.Errorf("caveat %q", got)
	}
	s.People = []int{0, 1, 2, 3}
	if got := IntervalCaveat(s, g); got != "" {
		t.Errorf("one a person: %q", got)
	}
}
