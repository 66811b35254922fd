package core

import (
	"math"
	"slices"
)

// hashSuccess returns local hashing's Bayes vulnerability V over a
// uniformly random hash, the model Wang et al. (2017, §4.4) analyse, of
// which the seeded family (LocalHash) is the stand-in: the adversary
// sees the seed, so V = E_H Σ_v max_x π_x P(v | x, H), and with
// kept = e^ε/(e^ε + g − 1), off = 1/(e^ε + g − 1),
//
//	max_x π_x P(v | x, H) = max(kept · M_v, off · π₁),
//
// M_v the largest mass hashed to v (0 if none) and π₁ the largest of
// all. Each symbol hashes to v with probability 1/g independently, so
// with π sorted decreasing, M_v = π_(i) with probability
// (1 − 1/g)^{i−1}/g and no symbol hashes to v with probability
// (1 − 1/g)^K; the g values are alike:
//
//	V = Σ_i (1 − 1/g)^{i−1} max(kept π_(i), off π₁) + g (1 − 1/g)^K off π₁.
//
// O(K log K).
func hashSuccess(m hasher, pi []float64) float64 {
	sorted := slices.Clone(pi)
	slices.SortFunc(sorted, func(a, b float64) int { return cmpDesc(a, b) })
	g := float64(m.values())
	kept := math.Exp(m.logKept())
	off := kept * m.low()
	stay := 1 - 1/g
	v, w := 0.0, 1.0
	for _, p := range sorted {
		v += w * math.Max(kept*p, off*sorted[0])
		w *= stay
	}
	return v + g*w*off*sorted[0]
}

// cmpDesc orders floats from the largest.
func cmpDesc(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

// subsetSuccess returns subset selection's Bayes vulnerability without
// its C(K, ω) reports: with π sorted decreasing, a subset holding
// symbol 1 is best guessed by it, e^ε π₁/Z; one whose first symbol is
// i ≥ 2 by i or 1, max(e^ε π_i, π₁)/Z, and C(K−i, ω−1) subsets have
// first symbol i. Divided by C(K−1, ω−1), with r_i = C(K−i, ω−1)/
// C(K−1, ω−1) (r₂ = (K−ω)/(K−1), r_{i+1} = r_i (K−i−ω+1)/(K−i)) and
// Z/C(K−1, ω−1) = e^ε + (K−ω)/ω,
//
//	V = (e^ε π₁ + Σ_{i≥2} r_i max(e^ε π_i, π₁)) / (e^ε + (K−ω)/ω).
//
// O(K log K); divided by e^ε throughout, so that no term overflows.
func subsetSuccess(m *SS, pi []float64) float64 {
	sorted := slices.Clone(pi)
	slices.SortFunc(sorted, func(a, b float64) int { return cmpDesc(a, b) })
	k, w := m.K, m.Omega
	low := math.Exp(-m.Epsilon)
	v, r := sorted[0], float64(k-w)/float64(k-1)
	for i := 2; i <= k && r > 0; i++ {
		v += r * math.Max(sorted[i-1], low*sorted[0])
		r *= float64(k-i-w+1) / float64(k-i)
	}
	return v / (1 + float64(k-w)/float64(w)*low)
}
