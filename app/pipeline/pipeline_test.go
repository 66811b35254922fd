package pipeline

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/privmap/privmap/core"
	"github.com/privmap/privmap/core/emd"
)

// testStudy is a linear alphabet of 5 symbols with two k-RR mechanisms
// sharing the users 3:1, and 400 users' data.
func testStudy() (*core.Study, []float64) {
	three, one := 0.75, 0.25
	s := &core.Study{
		Alphabet: core.Alphabet{Kind: core.KindLinear, Size: 5},
		Mechanisms: []core.MechanismSpec{
			{ID: "lo", Kind: core.KindKRR, Epsilon: 0.5, Share: &three},
			{ID: "hi", Kind: core.KindKRR, Epsilon: 4, Share: &one},
		},
	}
	truth := []float64{0.4, 0.3, 0.15, 0.1, 0.05}
	for x, p := range truth {
		for range int(p * 400) {
			s.Data = append(s.Data, x)
		}
	}
	return s, truth
}

// TestSanitise checks the assignment by shares and that the same seed
// gives the same reports, from data and from draws of the truth.
func TestSanitise(t *testing.T) {
	s, truth := testStudy()
	mechs, err := BuildMechanisms(context.Background(), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		users Users
		n     int
	}{
		{"every datum", Users{Data: s.Data, Truth: truth}, 400},
		{"draws from the truth", Users{Truth: truth, N: 1000}, 1000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := func(seed uint64) ([]int, []string) {
				var reps []string
				counts, err := Sanitise(context.Background(), s, mechs, tc.users, seed, func(user, j int, r core.Report) error {
					reps = append(reps, s.Mechanisms[j].ID+":"+r.String())
					return nil
				}, nil)
				if err != nil {
					t.Fatal(err)
				}
				return counts, reps
			}
			counts, a := run(3)
			if want := []int{tc.n * 3 / 4, tc.n / 4}; !slices.Equal(counts, want) {
				t.Errorf("counts %v, want %v", counts, want)
			}
			if len(a) != tc.n {
				t.Errorf("%d reports, want %d", len(a), tc.n)
			}
			if _, b := run(3); !slices.Equal(a, b) {
				t.Error("the same seed gave other reports")
			}
			if _, c := run(4); slices.Equal(a, c) {
				t.Error("another seed gave the same reports")
			}
		})
	}
	if _, err := Sanitise(context.Background(), s, mechs, Users{}, 1, nil, nil); err == nil {
		t.Error("Sanitise with no users succeeded")
	}
}

// TestRun runs the pipeline with two estimators, one of which does not
// apply: its failure is kept in its result, the other's estimate is
// GIBU's on the same reports.
func TestRun(t *testing.T) {
	s, truth := testStudy()
	req := Request{Study: s, Users: Users{Data: s.Data, Truth: truth}, Seed: 1, Methods: []core.Method{core.MethodGIBU, core.MethodRAPM}}
	var stages []string
	var gibu []float64 // the bar during GIBU's steps
	res, err := Run(context.Background(), req, core.Reconstruct, func(m core.Method) string { return strings.ToUpper(string(m)) },
		func(stage string, done float64, detail string) {
			if done < 0 || done > 1 {
				t.Errorf("progress %v outside [0, 1]", done)
			}
			if len(stages) == 0 || stages[len(stages)-1] != stage {
				stages = append(stages, stage)
			}
			if stage == "GIBU" && strings.HasPrefix(detail, "step ") {
				gibu = append(gibu, done)
			}
		})
	if err != nil {
		t.Fatal(err)
	}
	// Two mechanisms, sanitising and two methods: GIBU's share of the bar
	// is [3/5, 4/5]; it moves there with the certified gap.
	if len(gibu) < 2 || gibu[0] < 3.0/5 || gibu[len(gibu)-1] > 4.0/5+1e-15 || !(gibu[len(gibu)-1] > gibu[0]) {
		t.Errorf("the bar during GIBU: %v, want it to rise within [0.6, 0.8]", gibu)
	}
	if want := []string{"Building lo", "Building hi", "Sanitising", "GIBU", "Comparing GIBU with the truth", "RAP-M", "Done"}; !slices.Equal(stages, want) {
		t.Errorf("stages %q, want %q", stages, want)
	}
	if res.N() != 400 || !slices.Equal(res.Counts, []int{300, 100}) || len(res.Results) != 2 {
		t.Fatalf("%d users %v, %d results; want 400 [300 100], 2", res.N(), res.Counts, len(res.Results))
	}
	ok := res.Succeeded()
	if len(ok) != 1 || ok[0].Method != core.MethodGIBU || res.Results[1].Err == nil {
		t.Fatalf("succeeded %v, rap-m error %v; want gibu only", ok, res.Results[1].Err)
	}
	// The same reports, grouped by hand, give the same estimate.
	mechs, _ := BuildMechanisms(context.Background(), s, nil)
	var mech []int
	var reps []core.Report
	if _, err := Sanitise(context.Background(), s, mechs, req.Users, req.Seed, func(_, j int, r core.Report) error {
		mech, reps = append(mech, j), append(reps, r)
		return nil
	}, nil); err != nil {
		t.Fatal(err)
	}
	want, err := core.Reconstruct(context.Background(), core.MethodGIBU, s, mechs, core.GroupReports(2, mech, reps), core.EstimateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ok[0].Estimate.Theta, want.Theta) {
		t.Errorf("Run's GIBU %v, want %v", ok[0].Estimate.Theta, want.Theta)
	}
	m, _ := emd.Compare(context.Background(), truth, want.Theta, s.Alphabet)
	if ok[0].Metrics != m || math.IsNaN(m.EMD) {
		t.Errorf("metrics %+v, want %+v", ok[0].Metrics, m)
	}
}

// TestRunCancel cancels a run during its first estimator: the run ends
// with the context's error.
func TestRunCancel(t *testing.T) {
	s, truth := testStudy()
	ctx, cancel := context.WithCancel(context.Background())
	slow := func(ctx context.Context, _ core.Method, _ *core.Study, _ []core.Mechanism, _ *core.Groups, _ core.EstimateOptions) (*core.Estimate, error) {
		cancel()
		<-ctx.Done()
		return nil, ctx.Err()
	}
	req := Request{Study: s, Users: Users{Data: s.Data, Truth: truth}, Seed: 1, Methods: []core.Method{core.MethodGIBU}}
	res, err := Run(ctx, req, slow, func(m core.Method) string { return string(m) }, func(string, float64, string) {})
	if !errors.Is(err, context.Canceled) || res != nil {
		t.Errorf("cancelled run: %v, %v; want nil, context.Canceled", res, err)
	}
}

// TestGapFraction checks the bar's position for a certified gap.
func TestGapFraction(t *testing.T) {
	for _, tc := range []struct{ gap, tol, want float64 }{
		{1, 1e-6, 0}, {1e-3, 1e-6, 0.5}, {1e-6, 1e-6, 1}, {1e-9, 1e-6, 1}, {-1e-15, 1e-11, 1},
		{math.Inf(1), 1e-6, 0}, {math.NaN(), 1e-6, 0}, {5, 1e-6, 0},
	} {
		if got := gapFraction(tc.gap, tc.tol); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("gapFraction(%v, %v) = %v, want %v", tc.gap, tc.tol, got, tc.want)
		}
	}
}

// TestMethodProgress checks the bar of one estimator: it follows the
// certified gap, moves inside a Newton step towards the square of the
// last gap as the conjugate gradients proceed, and never moves back.
func TestMethodProgress(t *testing.T) {
	var fracs []float64
	var details []string
	progress, inner := methodProgress(func(f float64, d string) { fracs, details = append(fracs, f), append(details, d) }, 1e-8)
	progress(10, -3.5, 1e-2) // 2/8 of the way
	inner(11, 0.5)           // halfway to 1e-4: 3/8
	inner(11, 0.25)          // would be 2.5/8: stays
	progress(11, -3.4, 1e-3) // 3/8 exactly
	progress(12, -3.3, 1e-1) // a worse gap: stays
	want := []float64{0.25, 0.375, 0.375, 0.375, 0.375}
	for i, f := range fracs {
		if math.Abs(f-want[i]) > 1e-12 {
			t.Errorf("call %d: bar at %v, want %v (%s)", i, f, want[i], details[i])
		}
	}
	if !strings.Contains(details[1], "conjugate gradients 50%") {
		t.Errorf("detail %q", details[1])
	}
}

// TestCEMStages checks that corrected EM's bias stages move the bar
// forward through every correction — the data's, then one a simulation
// that chooses α, named as core.CorrectedEM names them — and through
// one when α is given.
func TestCEMStages(t *testing.T) {
	stages := []string{"Forming Ŝ (CEM eq. (31))", "Inverting Ŝ + λI (CEM eq. (32))", "Quadratic forms (CEM eq. (29)–(30))"}
	for _, sims := range []int{0, 1, 3} {
		prev := -1.0
		names := stages
		for i := range sims {
			prefix := "Choosing α: "
			if sims > 1 {
				prefix = fmt.Sprintf("Choosing α (%d of %d): ", i+1, sims)
			}
			for _, s := range stages {
				names = append(names, prefix+s)
			}
		}
		for _, name := range names {
			for _, f := range []float64{0, 0.5, 1} {
				v := cemStages(name, f, sims)
				if v < prev || v > 1 {
					t.Fatalf("%d simulations: %s at %v gives %v after %v", sims, name, f, v, prev)
				}
				prev = v
			}
		}
		if math.Abs(prev-1) > 1e-15 {
			t.Errorf("%d simulations: ends at %v, want 1", sims, prev)
		}
	}
}
