package plan

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/privmap/privmap/app/pipeline"
	"github.com/privmap/privmap/core"
)

// binomialTail returns the exact q-quantile of |X/n − p|, X ~ Bin(n, p):
// the smallest d with P(|X/n − p| ≤ d) ≥ q.
func binomialTail(n int, p, q float64) float64 {
	type at struct{ d, pr float64 }
	var all []at
	lg := func(k int) float64 { v, _ := math.Lgamma(float64(k) + 1); return v }
	for k := 0; k <= n; k++ {
		lp := lg(n) - lg(k) - lg(n-k) + float64(k)*math.Log(p) + float64(n-k)*math.Log(1-p)
		all = append(all, at{math.Abs(float64(k)/float64(n) - p), math.Exp(lp)})
	}
	// Smallest d first.
	for i := range all {
		for j := i + 1; j < len(all); j++ {
			if all[j].d < all[i].d {
				all[i], all[j] = all[j], all[i]
			}
		}
	}
	acc := 0.0
	for _, a := range all {
		if acc += a.pr; acc >= q {
			return a.d
		}
	}
	return all[len(all)-1].d
}

// TestPlanIdentity plans the users of a population that reports its
// datum as it is (the identity mechanism) on two symbols, θ = (0.3,
// 0.7): the estimate is the sample's distribution, its TV to the truth
// |X/n − 0.3| with X ~ Bin(n, 0.3), whose quantiles are exact.
//
// At each point, the runs whose error is at most the exact 95% quantile
// t are Bin(R, π) with π ≥ 0.95 (π < 0.97 here: the binomial's atoms are
// small); the test asks for at least 0.90·R of R = 400, which fails with
// probability below 2·10⁻⁵ for π ≥ 0.95 (Chernoff), and the number of
// users that the plan reads for t = 0.02 within 15% of the exact one,
// 2,017 by the normal approximation: the 95% quantile of 400 runs has a
// relative standard error of about 3%, the users twice that, so 15% is
// 2.5 of them (false failure about 1%; with this seed it is 5%).
func TestPlanIdentity(t *testing.T) {
	s := &core.Study{Alphabet: core.Alphabet{Kind: core.KindLinear, Size: 2},
		Mechanisms: []core.MechanismSpec{{ID: "id", Kind: core.KindIdentity}}}
	mechs, err := pipeline.BuildMechanisms(context.Background(), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	truth := []float64{0.3, 0.7}
	req := Request{Study: s, Truth: truth, Method: core.MethodGIBU, Metric: TV, Target: 0.02, Runs: 400,
		Points: []float64{250, 500, 1000, 2000, 4000, 8000}, Seed: 7}
	var fractions []float64
	plan, err := Make(context.Background(), req, mechs, func(f float64) { fractions = append(fractions, f) })
	if err != nil {
		t.Fatal(err)
	}
	if len(fractions) != 6*400 || fractions[len(fractions)-1] != 1 {
		t.Errorf("progress: %d calls ending at %v, want 2400 ending at 1", len(fractions), fractions[len(fractions)-1])
	}
	for i, pt := range plan.Points {
		exact := binomialTail(int(pt.X), 0.3, 0.95)
		in := 0
		for _, e := range pt.Errors {
			if e <= exact+1e-12 {
				in++
			}
		}
		if in < 360 {
			t.Errorf("%v users: %d of 400 runs within the exact 95%% quantile %.4f, want ≥ 360", pt.X, in, exact)
		}
		if i > 0 && pt.Bound >= plan.Points[i-1].Bound {
			t.Errorf("%v users: bound %.4g not below the last point's %.4g", pt.X, pt.Bound, plan.Points[i-1].Bound)
		}
	}
	want := 1.959964 * 1.959964 * 0.21 / (0.02 * 0.02)
	t.Logf("need %.0f users, want about %.0f", plan.Need, want)
	if plan.Extrapolated || math.Abs(plan.Need/want-1) > 0.15 {
		t.Errorf("need %.0f users (extrapolated %v), want about %.0f", plan.Need, plan.Extrapolated, want)
	}
	sent := plan.Sentence()
	for _, w := range []string{"TV to the truth at most 0.02", "probability 95%", "interpolated between", "400 simulated deployments at each of 6 sizes from 250 users to 8,000 users"} {
		if !strings.Contains(sent, w) {
			t.Errorf("sentence %q lacks %q", sent, w)
		}
	}
	// The same seed, the same plan, whatever the cores.
	again, err := Make(context.Background(), req, mechs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if again.Need != plan.Need || again.Points[2].Errors[17] != plan.Points[2].Errors[17] {
		t.Errorf("a second plan differs: %v vs %v", again.Need, plan.Need)
	}
}

// TestPlanEps plans every ε of a k-RR population on six symbols with
// the maximum error: the error falls as ε grows, and the answer's
// factor lies between the points that bracket it.
func TestPlanEps(t *testing.T) {
	s := &core.Study{Alphabet: core.Alphabet{Kind: core.KindLinear, Size: 6},
		Mechanisms: []core.MechanismSpec{{ID: "k", Kind: core.KindKRR, Epsilon: 1}}}
	truth := []float64{0.3, 0.25, 0.2, 0.12, 0.08, 0.05}
	mechs, err := pipeline.BuildMechanisms(context.Background(), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	req := Request{Study: s, Truth: truth, Method: core.MethodGIBU, Metric: MaxCell, Target: 0.03, Runs: 40,
		Axis: AxisEps, Points: []float64{0.5, 1, 2, 4}, Users: 5000, Seed: 3}
	plan, err := Make(context.Background(), req, mechs, nil)
	if err != nil {
		t.Fatal(err)
	}
	i := 1
	for i < len(plan.Points) && plan.Points[i].Bound > 0.03 {
		i++
	}
	if i == len(plan.Points) || plan.Extrapolated || plan.Need < plan.Points[i-1].X || plan.Need > plan.Points[i].X {
		t.Fatalf("need ε × %v, not between the bracketing points %+v", plan.Need, plan.Points)
	}
	if !strings.Contains(plan.Sentence(), "every ε multiplied by about ") || !strings.Contains(plan.Sentence(), "(k: ε ") {
		t.Errorf("sentence %q", plan.Sentence())
	}
}

// TestPlanCheck refuses requests out of range before any work.
func TestPlanCheck(t *testing.T) {
	grid := core.Alphabet{Kind: core.KindCategorical, Size: 3}
	s := &core.Study{Alphabet: grid, Mechanisms: []core.MechanismSpec{{ID: "k", Kind: core.KindKRR, Epsilon: 1}}}
	sh := &core.Study{Alphabet: grid, Mechanisms: []core.MechanismSpec{{ID: "id", Kind: core.KindIdentity}}}
	truth := []float64{0.2, 0.3, 0.5}
	for _, tc := range []struct {
		req  Request
		want string
	}{
		{Request{Study: s, Truth: truth, Target: 0.1}, ""},
		{Request{Study: s, Truth: truth, Target: 0}, "a number > 0"},
		{Request{Study: s, Truth: truth, Target: 1.5}, "below 1"},
		{Request{Study: s, Truth: truth, Target: 0.1, Metric: EMD}, "no ground distance"},
		{Request{Study: s, Truth: truth, Target: 0.1, Metric: "mse"}, `error "mse"`},
		{Request{Study: s, Truth: truth, Target: 0.1, Runs: 1}, "want 2 to"},
		{Request{Study: s, Truth: truth, Target: 0.1, Level: 1}, "strictly between"},
		{Request{Study: s, Truth: truth, Target: 0.1, Points: []float64{100, 50}}, "increasing"},
		{Request{Study: s, Truth: truth, Target: 0.1, Points: []float64{100, 150.5}}, "whole"},
		{Request{Study: s, Truth: truth[:2], Target: 0.1}, "2 symbols"},
		{Request{Study: sh, Truth: truth, Target: 0.1, Axis: AxisEps}, "no ε to vary"},
	} {
		err := tc.req.Check()
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v: %v, want %q", tc.req, err, tc.want)
		}
	}
}

// TestPlanCancel stops a plan at once when its context is cancelled,
// returning the context's error.
func TestPlanCancel(t *testing.T) {
	s := &core.Study{Alphabet: core.Alphabet{Kind: core.KindLinear, Size: 2},
		Mechanisms: []core.MechanismSpec{{ID: "id", Kind: core.KindIdentity}}}
	mechs, err := pipeline.BuildMechanisms(context.Background(), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	_, err = Make(ctx, Request{Study: s, Truth: []float64{0.5, 0.5}, Target: 0.1, Points: []float64{100, 200}, Runs: 50},
		mechs, func(float64) {
			if calls++; calls == 3 {
				cancel()
			}
		})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if calls > 3+2 { // the runs already begun on the other cores may finish
		t.Errorf("%d runs after the cancel", calls-3)
	}
}

// TestMeet reads the users at which a power law meets the target:
// between the points, and beyond them (extrapolated).
func TestMeet(t *testing.T) {
	law := func(xs ...float64) []Point {
		var out []Point
		for _, x := range xs {
			out = append(out, Point{X: x, Bound: 2 / math.Sqrt(x)})
		}
		return out
	}
	for _, tc := range []struct {
		pts    []Point
		target float64
		want   float64
		extra  bool
	}{
		{law(100, 1000, 10000), 0.04, 2500, false},
		{law(100, 1000), 0.01, 40000, true},
		{law(1000, 10000), 0.2, 100, true},
	} {
		got, extra := meet(tc.pts, tc.target)
		if math.Abs(got/tc.want-1) > 1e-9 || extra != tc.extra {
			t.Errorf("target %v: %v (extrapolated %v), want %v (%v)", tc.target, got, extra, tc.want, tc.extra)
		}
	}
	// A noisy curve that crosses, rises and crosses again: the last.
	noisy := []Point{{X: 100, Bound: 0.3}, {X: 200, Bound: 0.09}, {X: 400, Bound: 0.12}, {X: 800, Bound: 0.05}}
	if got, extra := meet(noisy, 0.1); !(got > 400 && got < 800) || extra {
		t.Errorf("noisy curve: %v (extrapolated %v), want between 400 and 800", got, extra)
	}
	if got, _ := meet([]Point{{X: 1, Bound: 0.1}, {X: 2, Bound: 0.2}}, 0.05); !math.IsNaN(got) {
		t.Errorf("a rising curve meets at %v, want NaN", got)
	}
}

// TestPlanCost checks the plan's cost model: Runs estimates at each
// point, growing with the users and the runs, with the EMD's transport
// on a grid, the whole named in one part.
func TestPlanCost(t *testing.T) {
	a := core.Alphabet{Kind: core.KindGrid, Rows: 16, Cols: 24, South: 37.72, West: -122.51, CellKm: 0.5}
	s := &core.Study{Alphabet: a, Mechanisms: []core.MechanismSpec{{ID: "g", Kind: core.KindPlanar, Epsilon: 1}}}
	truth := make([]float64, a.Len())
	for x := range truth {
		truth[x] = 1 / float64(a.Len())
	}
	req := Request{Study: s, Truth: truth, Target: 0.1, Runs: 10, Points: []float64{1000, 10000}}
	c := Cost(req)
	more := req
	more.Runs = 40
	if !(Cost(more).Time > 3*c.Time) {
		t.Errorf("40 runs %v, not well above 10 runs' %v", Cost(more).Time, c.Time)
	}
	emd := req
	emd.Metric = EMD
	if !(Cost(emd).Time > c.Time) {
		t.Errorf("with the EMD %v, not above %v", Cost(emd).Time, c.Time)
	}
	if len(c.Parts) != 1 || !strings.Contains(c.Parts[0], "20 estimates by GIBU, 10 at each of 2 sizes") {
		t.Errorf("parts %q", c.Parts)
	}
}
