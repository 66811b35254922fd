package linalg

import "slices"

// ProjectSimplex sets dst to the Euclidean projection of v onto the
// probability simplex {p : p ≥ 0, Σp = 1} (Wang & Carreira-Perpiñán,
// "Projection onto the probability simplex", arXiv:1309.1541, Algorithm 1):
//
//	u = v sorted decreasingly, ρ = max{j : u_j + (1 − Σ_{i≤j} u_i)/j > 0},
//	λ = (1 − Σ_{i≤ρ} u_i)/ρ,  p_i = max(v_i + λ, 0).
//
// It allocates dst when nil; dst may be v. It costs O(K log K).
func ProjectSimplex(dst, v []float64) []float64 {
	return ProjectSimplexScratch(dst, v, make([]float64, len(v)))
}

// ProjectSimplexScratch is ProjectSimplex with a scratch slice of len(v).
func ProjectSimplexScratch(dst, v, scratch []float64) []float64 {
	n := len(v)
	if dst == nil {
		dst = make([]float64, n)
	}
	if len(dst) != n || len(scratch) != n {
		panic("core: slice length mismatch")
	}
	u := scratch
	copy(u, v)
	slices.Sort(u) // increasing: u_j of the paper is u[n−j]
	sum, lambda := 0.0, 0.0
	for j := 1; j <= n; j++ {
		uj := u[n-j]
		sum += uj
		if l := (1 - sum) / float64(j); uj+l > 0 {
			lambda = l
		}
	}
	for i, x := range v {
		dst[i] = max(x+lambda, 0)
	}
	return dst
}
