package app

import (
	"context"
	"errors"
	"math"
	"testing"
)

// TestReleaseSpec checks a release's spec: its validation, its summary
// (a geometric mechanism's budget is its ε), the standard mechanism of a
// mixture's budget in either reading, and the draws: repeated by a seed,
// exact integer noise for publication, never Laplace for publication,
// stopped by a cancelled context.
func TestReleaseSpec(t *testing.T) {
	for _, bad := range []ReleaseSpec{
		{Mechanism: "gauss", EpsIn: 1, EpsOut: 1, Sensitivity: 1},
		{Mechanism: Laplace, EpsIn: 1, EpsOut: 1, Sensitivity: 0},
		{Mechanism: PMGeometric, EpsIn: 1, EpsOut: 2, Break: 1.5, Sensitivity: 1},
		{Mechanism: PMLaplace, EpsIn: 0, EpsOut: 2, Break: 1, Sensitivity: 1},
	} {
		if bad.Validate() == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	geo := ReleaseSpec{Mechanism: Geometric, EpsIn: 0.4, EpsOut: 0.4, Sensitivity: 1}
	if sum, err := geo.Summary(); err != nil || math.Abs(sum.Budget-0.4) > 1e-12 || math.Abs(sum.WorstEps-0.4) > 1e-12 {
		t.Errorf("geometric ε = 0.4: %+v, %v", sum, err)
	}
	mix := ReleaseSpec{Mechanism: PMLaplace, EpsIn: 0.25, EpsOut: 2.5, Break: 6, Sensitivity: 1}
	ms, _ := mix.Summary()
	for _, reading := range []func(ReleaseSummary) float64{
		func(b ReleaseSummary) float64 { return b.Budget }, func(b ReleaseSummary) float64 { return b.BudgetPM }} {
		std, err := mix.MatchingBy(reading)
		if err != nil {
			t.Fatal(err)
		}
		ss, _ := std.Summary()
		if std.Mechanism != Laplace || math.Abs(reading(ss)-reading(ms)) > 1e-9 || !(std.EpsIn > reading(ms)) {
			t.Errorf("matching Laplace ε %v: budget %v, want %v", std.EpsIn, reading(ss), reading(ms))
		}
	}
	counts := []float64{0, 3, 100, 7}
	a, _ := ReleaseCounts(context.Background(), counts, mix, 9, false)
	b, _ := ReleaseCounts(context.Background(), counts, mix, 9, false)
	for i := range a {
		if a[i] != b[i] || a[i] != math.Round(a[i]) {
			t.Fatalf("seeded releases %v and %v", a, b)
		}
	}
	if _, err := ReleaseCounts(context.Background(), counts, mix, 9, true); !errors.Is(err, ErrPreviewOnly) {
		t.Errorf("a Laplace release for publication: %v", err)
	}
	exact, err := ReleaseCounts(context.Background(), counts, geo, 0, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range exact {
		if v != math.Round(v) {
			t.Errorf("a secure release of %v", v)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ReleaseCounts(ctx, counts, geo, 1, false); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled release: %v", err)
	}
}
