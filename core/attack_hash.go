package core

import (
	"cmp"
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
	slices.SortFunc(sorted, func(a, b float64) int { return cmp.Compare(b, a) }) // largest first
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
