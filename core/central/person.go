package central

import (
	"math"
	"slices"

	"github.com/privmap/privmap/internal/linalg"
)

// A PersonLoss is the privacy loss of a release of a histogram's counts,
// each with its own independent noise, for one person who adds or removes
// up to Δ records that may fall in any of the cells (docs/ARCHITECTURE.md
// §9, "A person's loss").
//
// With d_i of her records in cell i (Σ d_i = Δ), the released counts
// o_i are independent, so her loss L = Σ_i L_i(o_i) with
// L_i = ln P(o_i − x_i)/P(o_i − x_i − d_i), and
//
//	worst case  sup_o |L| = Σ_i W(d_i),   W(d) = sup_k |ln P(k)/P(k−d)|,
//
// each cell's supremum reached with one sign (the noise is symmetric).
// A count's W is what WorstEpsilon(d) returns. The person's worst case is
// the largest Σ W(d_i) over every way to split Δ records among the
// cells, at most Cells of them taking records (see worstSplit).
//
// The average loss, PM's general budget ε_g = E|L| (PM §III-C, eq.
// 32–35), does not split into the cells' terms: |Σ L_i| ≠ Σ |L_i|. It is
// the largest E|L| over every split, computed exactly by enumerating the
// splits and convolving the cells' loss distributions (see budgetSplit);
// when they are too many, Budget and BudgetPM are the worst case, an
// upper bound, and BudgetExact is false.
type PersonLoss struct {
	// Records is Δ, Cells the number of counts released.
	Records, Cells int
	// Worst is the exact worst-case ε; WorstSplit a split reaching it,
	// the records in each cell that takes some, largest first.
	Worst      float64
	WorstSplit []int
	// OneCell is the worst case of all Δ records in one count, W(Δ):
	// the figure a count's WorstEpsilon gives, below Worst when a
	// split costs more.
	OneCell float64
	// Budget is the largest E|L| over the splits, BudgetPM PM Table I's
	// reading ln E e^{|L|}; BudgetSplit a split reaching Budget.
	Budget, BudgetPM float64
	BudgetSplit      []int
	BudgetExact      bool
}

// countNoise is what PersonLoss asks of a count's noise: the worst case
// of a count shifted by d, and the distribution of the loss L(k) =
// ln P(k)/P(k−d) for the noise k.
type countNoise interface {
	WorstEpsilon(sensitivity int) float64
	// lossAtoms returns the loss's values with their probabilities.
	lossAtoms(d int) ([]atom, bool)
}

// PersonLoss returns the loss of the release for one person's records
// records among cells counts (records ≥ 1, cells ≥ 1).
func (m GeometricMixture) PersonLoss(records, cells int) PersonLoss {
	return personLoss(m, records, cells)
}

// PersonLoss returns the loss of the rounded release for one person's
// records records among cells counts (records ≥ 1, cells ≥ 1).
func (r Rounded) PersonLoss(records, cells int) PersonLoss { return personLoss(r, records, cells) }

func personLoss(n countNoise, records, cells int) PersonLoss {
	p := PersonLoss{Records: records, Cells: cells}
	p.Worst, p.WorstSplit = worstSplit(n.WorstEpsilon, records, cells)
	p.OneCell = n.WorstEpsilon(records)
	p.Budget, p.BudgetPM, p.BudgetSplit, p.BudgetExact = budgetSplit(n, records, cells)
	if !p.BudgetExact {
		p.Budget, p.BudgetPM, p.BudgetSplit = p.Worst, p.Worst, nil
	}
	return p
}

// worstSplit returns max Σ_i W(d_i) over the splits of Δ = records into
// at most cells parts, and the balanced split that reaches it.
//
// The argument. W(0) = 0 and, for the noises here, W is concave on the
// whole numbers (its steps W(d+1) − W(d) never grow). Then a split with
// two parts d_i ≥ d_j + 2 is improved, or kept, by moving a record from i
// to j: the sum changes by [W(d_j+1) − W(d_j)] − [W(d_i) − W(d_i−1)] ≥ 0.
// So the balanced split — q = ⌊Δ/m⌋ records in m − r cells and q + 1 in
// r = Δ mod m of them, m = min(cells, Δ) — is a largest one.
//
// W is concave because −ln P(k), as a function of |k|, has steps that
// only fall (the mixture's ε_in > ε_out: −ln f is concave on [0, ∞)) or
// only grow (ε_in ≤ ε_out: log-concave noise):
//   - geometric mixture: W(d) = min(d, c)·γ₁ + (d−c)⁺·γ₂ when γ₁ > γ₂,
//     else d·γ₂ (WorstEpsilon), concave in both cases;
//   - rounded Laplace mixture: q(j) = ∫_{j−½}^{j+½} f is log-concave when
//     f is (Prékopa), and W(d) = d/λ₂, linear; when f is log-convex on
//     [0, ∞), q is log-convex on j ≥ 1 (an integral of log-convex
//     functions), so the steps δ_j = ln q(j)/q(j+1) fall from j = 1 on,
//     the window of d steps that gains most starts at j = 0 or 1, and
//     W(d) = max(δ₀ + … + δ_{d−1}, δ₁ + … + δ_d): the sum of the d
//     largest of δ₀ ≥ … inserted in its place among the falling δ_j, so
//     W's steps fall too.
//
// TestPersonLossBruteForce checks it against every split for Δ ≤ 6.
func worstSplit(w func(int) float64, records, cells int) (float64, []int) {
	m := min(cells, records)
	q, r := records/m, records%m
	split := make([]int, m)
	for i := range split {
		split[i] = q
		if i < r {
			split[i] = q + 1
		}
	}
	sum := float64(m-r) * w(q)
	if r > 0 {
		sum += float64(r) * w(q+1)
	}
	return sum, split
}

// atom is one value of a loss and its probability.
type atom struct{ v, p float64 }

// Limits of budgetSplit's enumeration: the atoms one cell's loss may
// take, the pairs of atoms the convolutions may form and the splits
// enumerated. Beyond them the budget is left as the worst case.
const (
	maxLossAtoms  = 100_000
	maxSplitWork  = 4_000_000
	maxSplitCount = 20_000
)

// budgetSplit returns the largest E|L| (and ln E e^{|L|}) over the
// splits of records into at most cells parts: each split's loss is the
// sum of its cells' independent losses, whose distribution is the
// convolution of theirs; every split is enumerated, largest parts first,
// sharing the convolution of a common prefix. ok is false when the
// enumeration would pass its limits.
func budgetSplit(n countNoise, records, cells int) (abs, pm float64, split []int, ok bool) {
	s := splitSearch{n: n, dists: map[int][]atom{}, best: -1}
	if !s.rec(records, records, cells, nil) {
		return 0, 0, nil, false
	}
	return s.best, s.bestPM, s.split, true
}

// splitSearch is budgetSplit's enumeration: the cells' loss
// distributions by records, the work done, the split under way and the
// best found.
type splitSearch struct {
	n           countNoise
	dists       map[int][]atom
	work, count int
	cur, split  []int
	best        float64
	bestPM      float64
}

// part returns the loss distribution of a cell of d records.
func (s *splitSearch) part(d int) ([]atom, bool) {
	if a, ok := s.dists[d]; ok {
		return a, true
	}
	a, ok := s.n.lossAtoms(d)
	if !ok || len(a) > maxLossAtoms {
		return nil, false
	}
	s.dists[d] = mergeAtoms(a)
	return s.dists[d], true
}

// leaf weighs a whole split's loss distribution acc.
func (s *splitSearch) leaf(acc []atom) bool {
	s.count++
	if s.count > maxSplitCount {
		return false
	}
	var a, e float64
	for _, x := range acc {
		a += x.p * math.Abs(x.v)
		e += x.p * math.Exp(math.Abs(x.v))
	}
	if a > s.best {
		s.best, s.bestPM, s.split = a, math.Log(e), slices.Clone(s.cur)
	}
	return true
}

// rec enumerates the splits of left records into at most parts cells of
// at most largest each, after those whose loss distribution is acc.
func (s *splitSearch) rec(left, largest, parts int, acc []atom) bool {
	if left == 0 {
		return s.leaf(acc)
	}
	if parts == 0 {
		return true
	}
	for d := min(left, largest); d >= 1; d-- {
		// The remaining parts, at most d each, must hold what is left.
		if (left-d+d-1)/d > parts-1 {
			break
		}
		pd, ok := s.part(d)
		if !ok {
			return false
		}
		next := pd
		if acc != nil {
			s.work += len(acc) * len(pd)
			if s.work > maxSplitWork {
				return false
			}
			next = convolve(acc, pd)
		}
		s.cur = append(s.cur, d)
		if !s.rec(left-d, d, parts-1, next) {
			return false
		}
		s.cur = s.cur[:len(s.cur)-1]
	}
	return true
}

// convolve returns the distribution of the sum of two independent losses.
func convolve(a, b []atom) []atom {
	out := make([]atom, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			out = append(out, atom{x.v + y.v, x.p * y.p})
		}
	}
	return mergeAtoms(out)
}

// mergeAtoms sorts atoms by value and adds the probabilities of values
// equal to within 10⁻¹² (relative, at least absolute), the rounding of
// sums that are equal in exact arithmetic: the merged value moves by at
// most that, and E|L| with it. Atoms of probability 0 are dropped.
func mergeAtoms(a []atom) []atom {
	slices.SortFunc(a, func(x, y atom) int {
		switch {
		case x.v < y.v:
			return -1
		case x.v > y.v:
			return 1
		}
		return 0
	})
	out := a[:0]
	for _, x := range a {
		if x.p == 0 {
			continue
		}
		if k := len(out) - 1; k >= 0 && x.v-out[k].v <= 1e-12*math.Max(1, math.Abs(x.v)) {
			out[k].p += x.p
			continue
		}
		out = append(out, x)
	}
	return out
}

// lossAtoms returns the loss ln P(k)/P(k−d) for the noise k: within
// k = −c…c+d term by term, and beyond, where k and k−d lie past the
// break-point on one side, the constant ±d·γ₂ with the tails' masses.
func (m GeometricMixture) lossAtoms(d int) ([]atom, bool) {
	c := m.Break
	if c+d > maxLossAtoms {
		return nil, false
	}
	b1, b2 := m.coefficients()
	l1, l2 := -math.Log(m.Alpha1), -math.Log(m.Alpha2)
	logP := func(k int) float64 {
		if ak := abs(k); ak <= c {
			return math.Log(b1) - float64(ak)*l1
		}
		return math.Log(b2) - float64(abs(k))*l2
	}
	out := make([]atom, 0, 2*c+d+3)
	for k := -c; k <= c+d; k++ {
		out = append(out, atom{logP(k) - logP(k-d), math.Exp(logP(k))})
	}
	out = append(out, atom{-float64(d) * l2, m.tail(c + d)}, atom{float64(d) * l2, m.tail(c)})
	return out, true
}

// lossAtoms returns the loss ln q(j)/q(j−d) for the rounded noise j: over
// the range terms covers, and beyond it the constant ±d/λ₂ with the
// masses of the bins past it.
func (r Rounded) lossAtoms(d int) ([]atom, bool) {
	if r.Break+float64(d) > maxLossAtoms {
		return nil, false
	}
	lo := int(math.Floor(-r.Break - 0.5))
	hi := int(math.Ceil(r.Break+0.5)) + d
	out := make([]atom, 0, hi-lo+3)
	for j := lo; j <= hi; j++ {
		q := r.PMF(j)
		out = append(out, atom{linalg.Log(q) - linalg.Log(r.PMF(j-d)), q})
	}
	l := float64(d) / r.Scale2
	out = append(out, atom{-l, r.tail(float64(hi) + 0.5)}, atom{l, r.tail(-float64(lo) + 0.5)})
	return out, true
}
