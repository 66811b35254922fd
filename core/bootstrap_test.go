package core

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/stat/distuv"
)

// planarSmall returns two planar geometric mechanisms on a 6×4 grid and
// the grouped reports of n users of each, drawn from a truth with zeros.
func planarSmall(t *testing.T, n int) ([]Mechanism, *Groups, []float64) {
	t.Helper()
	mechs := planarSmallMechanisms(t)
	truth := randomDist(rand.New(rand.NewPCG(3, 3)), 24, 0.4)
	g, err := SimulateGroups(context.Background(), rand.New(rand.NewPCG(4, 4)), mechs, []int{n, n}, truth)
	if err != nil {
		t.Fatal(err)
	}
	return mechs, g, truth
}

// planarSmallMechanisms returns planarSmall's two planar geometric
// mechanisms on a 6×4 grid of 0.5 km cells, ε = 0.5 and 2 a km.
func planarSmallMechanisms(t *testing.T) []Mechanism {
	t.Helper()
	var mechs []Mechanism
	for _, e := range []float64{0.5, 2} {
		m, err := NewPlanarGeometric(6, 4, 0.5, e)
		if err != nil {
			t.Fatal(err)
		}
		mechs = append(mechs, m)
	}
	return mechs
}

// TestBootstrapReplicatesCertified checks that every GIBU replicate —
// Newton's steps from θ̂ with the borrowed Hessian — is the certified
// MLE of its own reports, which the replicate's generator draws again,
// and that the replicates do not depend on how many run at once.
func TestBootstrapReplicatesCertified(t *testing.T) {
	mechs, g, _ := planarSmall(t, 3000)
	est, err := GIBU(context.Background(), mechs, g, nil, EMOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const b, seed = 12, 5
	reps, err := Bootstrap(context.Background(), MethodGIBU, nil, mechs, g, est, EstimateOptions{}, b, seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	tol := math.Max(DefaultGapTol, 1e-3/float64(g.N()))
	dr := newDrawer(mechs, g.Users, est.Theta)
	for i, r := range reps {
		gb, err := dr.draw(context.Background(), rand.New(rand.NewPCG(seed, replicateStream+uint64(i))))
		if err != nil {
			t.Fatal(err)
		}
		if gb.N() != g.N() {
			t.Errorf("replicate %d has %d reports, want %d", i, gb.N(), g.N())
		}
		m, err := newModel(mechs, gb, nil, ColumnBudget)
		if err != nil {
			t.Fatal(err)
		}
		if _, gap := m.step(r, make([]float64, len(r))); gap > tol {
			t.Errorf("replicate %d: certified gap %g on its own reports, want ≤ %g", i, gap, tol)
		}
		if s := floats.Sum(r); math.Abs(s-1) > 1e-12 || slices.Min(r) < 0 {
			t.Errorf("replicate %d is not a distribution (sum %v, min %v)", i, s, slices.Min(r))
		}
	}
	prev := runtime.GOMAXPROCS(1)
	one, err := Bootstrap(context.Background(), MethodGIBU, nil, mechs, g, est, EstimateOptions{}, b, seed, nil)
	runtime.GOMAXPROCS(prev)
	if err != nil {
		t.Fatal(err)
	}
	for i := range reps {
		if !slices.Equal(one[i], reps[i]) {
			t.Fatalf("replicate %d differs on one core", i)
		}
	}
}

// TestBootstrapOtherMethods runs the replicates of estimators that are
// not GIBU (reconstructed with a warm start or as they are) and of the
// closed form of one k-RR, each replicate a distribution.
func TestBootstrapOtherMethods(t *testing.T) {
	mechs, g, _ := planarSmall(t, 2000)
	for _, method := range []Method{MethodIBUM, MethodINVM, MethodIBUR, MethodCEM} {
		t.Run(string(method), func(t *testing.T) {
			est, err := Reconstruct(context.Background(), method, nil, mechs, g, EstimateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			reps, err := Bootstrap(context.Background(), method, nil, mechs, g, est, EstimateOptions{}, 4, 1, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range reps {
				if s := floats.Sum(r); math.Abs(s-1) > 1e-9 || slices.Min(r) < 0 {
					t.Errorf("replicate %d is not a distribution (sum %v, min %v)", i, s, slices.Min(r))
				}
			}
		})
	}
}

// TestDrawerLaw holds the drawer's draw of a channel's report
// counts from its output law θA to that law, by a chi-square test of
// 200,000 reports of k-RR and of a planar channel (the fast path) and of
// RAPPOR (each user sanitised): a false failure has probability 10⁻⁶.
func TestDrawerLaw(t *testing.T) {
	krr, _ := NewKRR(5, 1)
	planar, _ := NewPlanarGeometric(3, 2, 1, 1)
	rappor, _ := NewRAPPOR(3, 2)
	const n = 200000
	for _, tc := range []struct {
		name  string
		m     Mechanism
		theta []float64
	}{
		{"krr", krr, []float64{0.5, 0.2, 0.3, 0, 0}},
		{"planar", planar, []float64{0.1, 0, 0.4, 0.2, 0.2, 0.1}},
		{"rappor", rappor, []float64{0.6, 0.4, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := newDrawer([]Mechanism{tc.m}, []int{n}, tc.theta).draw(context.Background(), rand.New(rand.NewPCG(1, 2)))
			if err != nil {
				t.Fatal(err)
			}
			chi, cells := 0.0, 0
			seen := 0
			for _, gr := range g.List {
				col, scale := tc.m.Likelihood(nil, gr.Report)
				p := floats.Dot(col, tc.theta) * math.Exp(scale)
				e := n * p
				chi += (float64(gr.Count) - e) * (float64(gr.Count) - e) / e
				cells++
				seen += gr.Count
			}
			if seen != n {
				t.Fatalf("%d reports drawn, want %d", seen, n)
			}
			// Outputs never drawn add their expectations.
			all := outputsOf(tc.m)
			drawn := 0.0
			for _, gr := range g.List {
				col, scale := tc.m.Likelihood(nil, gr.Report)
				drawn += floats.Dot(col, tc.theta) * math.Exp(scale)
			}
			chi += n * (1 - drawn)
			limit := distuv.ChiSquared{K: float64(all - 1)}.Quantile(1 - 1e-6)
			if chi > limit {
				t.Errorf("χ² = %.1f over %d outputs, above %.1f (p < 10⁻⁶)", chi, all, limit)
			}
		})
	}
}

// outputsOf returns the number of a mechanism's possible reports.
func outputsOf(m Mechanism) int {
	if c, ok := m.(Channel); ok {
		return c.Outputs()
	}
	return 1 << m.(BitChannel).Bits()
}

// TestBootstrapRefuses checks the bootstrap's refusals: a PUM's reports,
// and replicates out of range.
func TestBootstrapRefuses(t *testing.T) {
	mechs, g, _ := planarSmall(t, 100)
	est := &Estimate{Theta: fill(nil, 24, 1.0/24)}
	for _, b := range []int{1, MaxReplicates + 1} {
		if _, err := Bootstrap(context.Background(), MethodGIBU, nil, mechs, g, est, EstimateOptions{}, b, 1, nil); err == nil || !strings.Contains(err.Error(), "replicates") {
			t.Errorf("B = %d: err %v, want a refusal", b, err)
		}
	}
	pum, err := NewPUM(4, 1, []int{0}, []string{"home"}, KindURR)
	if err != nil {
		t.Fatal(err)
	}
	gp := &Groups{List: []Group{{Mech: 0, Report: SymbolReport(1), Count: 3}}, Users: []int{3}}
	_, err = Bootstrap(context.Background(), MethodULDP, nil, []Mechanism{pum}, gp, &Estimate{Theta: []float64{.25, .25, .25, .25, 0}}, EstimateOptions{}, 10, 1, nil)
	if err == nil || !strings.Contains(err.Error(), "personal cells") {
		t.Errorf("pum: err %v, want the personal cells refusal", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Bootstrap(ctx, MethodGIBU, nil, mechs, g, est, EstimateOptions{}, 4, 1, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err %v, want context.Canceled", err)
	}
}

// TestReportDrawer draws through the exported drawer: as many reports
// of each mechanism as users asked, none of a mechanism with 0 users,
// and refusals of a PUM, of counts that do not fit and of negative ones.
func TestReportDrawer(t *testing.T) {
	krr, _ := NewKRR(5, 1)
	rappor, _ := NewRAPPOR(5, 2)
	d, err := NewReportDrawer([]Mechanism{krr, rappor}, []float64{0.5, 0.2, 0.3, 0, 0})
	if err != nil {
		t.Fatal(err)
	}
	for _, users := range [][]int{{300, 200}, {0, 70}, {9, 0}} {
		g, err := d.Draw(context.Background(), rand.New(rand.NewPCG(1, 2)), users)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]int, 2)
		for _, gr := range g.List {
			got[gr.Mech] += gr.Count
		}
		if got[0] != users[0] || got[1] != users[1] || g.Users[0] != users[0] || g.Users[1] != users[1] {
			t.Errorf("users %v: drew %v (groups' users %v)", users, got, g.Users)
		}
	}
	for _, users := range [][]int{{1}, {-1, 3}} {
		if _, err := d.Draw(context.Background(), rand.New(rand.NewPCG(1, 2)), users); err == nil {
			t.Errorf("users %v: no error", users)
		}
	}
	pum, err := NewPUM(4, 1, []int{0}, []string{"home"}, KindURR)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewReportDrawer([]Mechanism{pum}, []float64{.25, .25, .25, .25}); err == nil || !strings.Contains(err.Error(), "personal cells") {
		t.Errorf("pum: err %v, want the personal cells refusal", err)
	}
}
