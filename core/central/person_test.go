package central

import (
	"fmt"
	"math"
	"testing"
)

// partitionsOf calls f with every split of n records into at most m
// cells, parts largest first.
func partitionsOf(n, m int, f func([]int)) {
	var rec func(left, largest int, cur []int)
	rec = func(left, largest int, cur []int) {
		if left == 0 {
			f(cur)
			return
		}
		if len(cur) == m {
			return
		}
		for d := min(left, largest); d >= 1; d-- {
			rec(left-d, d, append(cur, d))
		}
	}
	rec(n, n, nil)
}

// bruteLoss is a split's loss by brute force, written apart from
// person.go: the worst case sums each cell's largest |ln P(k)/P(k−d)|
// scanned over k in [−R, R]; the average convolves the cells' losses held
// in a map keyed by the value rounded to 1e−9, over the same k.
func bruteLoss(pmf func(int) float64, split []int, R int) (worst, avg float64) {
	dist := map[float64]float64{0: 1}
	for _, d := range split {
		w := 0.0
		one := map[float64]float64{}
		for k := -R; k <= R; k++ {
			if pmf(k) < 1e-280 || pmf(k-d) < 1e-280 {
				continue // far out, where the loss is the constant seen nearer
			}
			l := math.Log(pmf(k) / pmf(k-d))
			w = math.Max(w, math.Abs(l))
			one[math.Round(l*1e9)/1e9] += pmf(k)
		}
		worst += w
		next := map[float64]float64{}
		for x, p := range dist {
			for y, q := range one {
				next[math.Round((x+y)*1e9)/1e9] += p * q
			}
		}
		dist = next
	}
	for x, p := range dist {
		avg += p * math.Abs(x)
	}
	return worst, avg
}

// TestPersonLossBruteForce checks a person's worst case and average loss
// against brute force over every split of Δ ≤ 6 records among 1, 2, Δ
// and more cells, for geometric and rounded Laplace mixtures with
// ε_in above, equal to and below ε_out. The first finding of issue 44:
// pm-geometric at ε_in 2, ε_out 0.5, break 1, Δ = 3 costs 2 (one record in
// each of three cells), not the 1 of all three in one count.
func TestPersonLossBruteForce(t *testing.T) {
	type params struct{ in, out, c float64 }
	cases := []params{{2, 0.5, 1}, {0.5, 2, 1}, {1, 1, 0}, {3, 1, 2}, {0.25, 2.5, 6}, {3.9, 0.7, 1}, {2.4, 0.29, 3}}
	for _, pc := range cases {
		for delta := 1; delta <= 6; delta++ {
			g, err := NewGeometricMixture(pc.in, pc.out, int(pc.c), float64(delta))
			if err != nil {
				t.Fatal(err)
			}
			l, err := NewLaplaceMixture(pc.in, pc.out, pc.c+0.3, float64(delta))
			if err != nil {
				t.Fatal(err)
			}
			r := Rounded{LaplaceMixture: l}
			for _, n := range []struct {
				name   string
				pmf    func(int) float64
				person func(records, cells int) PersonLoss
			}{{"geometric", g.PMF, g.PersonLoss}, {"rounded", r.PMF, r.PersonLoss}} {
				for _, cells := range []int{1, 2, delta, delta + 5} {
					var worst, avg float64
					var wSplit, aSplit []int
					partitionsOf(delta, cells, func(s []int) {
						w, a := bruteLoss(n.pmf, s, 400)
						if w > worst {
							worst, wSplit = w, append([]int(nil), s...)
						}
						if a > avg {
							avg, aSplit = a, append([]int(nil), s...)
						}
					})
					name := fmt.Sprintf("%s %+v Δ=%d cells=%d", n.name, pc, delta, cells)
					p := n.person(delta, cells)
					if math.Abs(p.Worst-worst) > 1e-9*worst {
						t.Errorf("%s: worst %.12g (split %v), brute force %.12g (split %v)", name, p.Worst, p.WorstSplit, worst, wSplit)
					}
					if !p.BudgetExact {
						t.Errorf("%s: budget not enumerated", name)
					}
					if math.Abs(p.Budget-avg) > 1e-7*avg {
						t.Errorf("%s: budget %.12g (split %v), brute force %.12g (split %v)", name, p.Budget, p.BudgetSplit, avg, aSplit)
					}
				}
			}
		}
	}
}

// TestPersonLossIssue44 pins the issue's figures: pm-geometric ε_in 2,
// ε_out 0.5, break 1 at Δ = 3 costs exactly 2 per person; pm-laplace
// (rounded) 3 × its one-record loss; and a person's records in one cell
// (one cell released) cost what WorstEpsilon says.
func TestPersonLossIssue44(t *testing.T) {
	g, _ := NewGeometricMixture(2, 0.5, 1, 3)
	if p := g.PersonLoss(3, 384); math.Abs(p.Worst-2) > 1e-12 || len(p.WorstSplit) != 3 {
		t.Errorf("pm-geometric: worst %v split %v, want 2 over [1 1 1]", p.Worst, p.WorstSplit)
	}
	if p := g.PersonLoss(3, 1); math.Abs(p.Worst-g.WorstEpsilon(3)) > 1e-12 || math.Abs(p.Worst-1) > 1e-12 {
		t.Errorf("pm-geometric in one cell: worst %v, want 1", p.Worst)
	}
	l, _ := NewLaplaceMixture(2, 0.5, 1, 3)
	r := Rounded{LaplaceMixture: l}
	if p := r.PersonLoss(3, 384); math.Abs(p.Worst-3*r.WorstEpsilon(1)) > 1e-12 || p.Worst < 1.3 || p.Worst > 1.31 {
		t.Errorf("pm-laplace: worst %v, want 3 × %v ≈ 1.302", p.Worst, r.WorstEpsilon(1))
	}
	// Δ = 7 records in 3 cells: the balanced split 3, 2, 2, each cell's
	// W(d) = min(d, 1)·2/7 + (d−1)·0.5/7: 3/7 + 2 × 2.5/7 = 8/7.
	g, _ = NewGeometricMixture(2, 0.5, 1, 7)
	if p := g.PersonLoss(7, 3); math.Abs(p.Worst-8.0/7) > 1e-12 || fmt.Sprint(p.WorstSplit) != "[3 2 2]" {
		t.Errorf("7 records in 3 cells: worst %v split %v, want 8/7 over [3 2 2]", p.Worst, p.WorstSplit)
	}
}
