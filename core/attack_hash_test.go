package core

import (
	"math"
	"testing"
)

// TestHashSuccess checks hashSuccess's closed form two ways.
//
// Exactly: over a uniformly random hash, each of the g^K functions from
// K symbols to g values is equally likely, so on small cases
// V = g^{−K} Σ_H Σ_v max_x π_x P(v | x, H) is a finite sum, computed
// here by enumerating every function (to 1e−12).
//
// For the seeded family (LocalHash) it stands in for: the mean of
// Σ_v max_x π_x P(v | x, H_s) over seeds s = 0 … n−1 is within 5.3
// standard errors of the closed form; were the seeded hashes uniformly
// random, the chance of a false failure would be below 2·10⁻⁷ for each
// of the three cases (normal tail; n = 200,000 makes the mean's
// distribution normal to far better than that, the summand lying in
// [0, 1]).
func TestHashSuccess(t *testing.T) {
	for _, tc := range []struct {
		pi  []float64
		g   int
		eps float64
	}{
		{[]float64{0.3, 0.25, 0.2, 0.1, 0.1, 0.05}, 3, 1},
		{[]float64{0.5, 0.2, 0.1, 0.1, 0.05, 0.05}, 2, 0.5},
		{[]float64{0.05, 0.1, 0.4, 0.15, 0.3}, 4, 2},
		{[]float64{0.125, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125}, 2, 3},
		{[]float64{0.9, 0.02, 0.02, 0.02, 0.02, 0.02}, 5, 0.2},
	} {
		m, err := NewLH(len(tc.pi), tc.g, tc.eps)
		if err != nil {
			t.Fatal(err)
		}
		got := hashSuccess(m, tc.pi)
		h := make([]int, len(tc.pi))
		total, count := 0.0, 0
		for {
			total += seededSuccess(m, tc.pi, func(x int) int { return h[x] })
			count++
			if !nextFunction(h, tc.g) {
				break
			}
		}
		if want := total / float64(count); math.Abs(got-want) > 1e-12 {
			t.Errorf("π %v, g %d, ε %v: hashSuccess %.15f, enumeration of %d hashes %.15f", tc.pi, tc.g, tc.eps, got, count, want)
		}
	}

	const n = 200000
	for _, tc := range []struct {
		k, g int
		eps  float64
	}{{6, 3, 1}, {9, 2, 2.5}, {12, 56, 4}} {
		m, err := NewLH(tc.k, tc.g, tc.eps)
		if err != nil {
			t.Fatal(err)
		}
		pi := zipf(tc.k, 1.1)
		var sum, sq float64
		for s := range uint32(n) {
			v := seededSuccess(m, pi, func(x int) int { return m.hash(s, x) })
			sum += v
			sq += v * v
		}
		mean := sum / n
		se := math.Sqrt((sq/n - mean*mean) / (n - 1))
		if z := (mean - hashSuccess(m, pi)) / se; math.Abs(z) > 5.3 {
			t.Errorf("K %d, g %d, ε %v: seeded mean %v, closed form %v, z = %.2f", tc.k, tc.g, tc.eps, mean, hashSuccess(m, pi), z)
		}
	}
}

// seededSuccess returns Σ_v max_x π_x P(v | x, H) for one hash H of
// local hashing m: P(v | x, H) = kept if H(x) = v, off otherwise.
func seededSuccess(m hasher, pi []float64, hash func(x int) int) float64 {
	kept := math.Exp(m.logKept())
	off := kept * m.low()
	v := 0.0
	for val := range m.values() {
		best := 0.0
		for x, p := range pi {
			q := off
			if hash(x) == val {
				q = kept
			}
			best = math.Max(best, p*q)
		}
		v += best
	}
	return v
}

// nextFunction advances h, a function from its indices to 0..g−1
// written as base-g digits, to the next; false after the last.
func nextFunction(h []int, g int) bool {
	for i := range h {
		h[i]++
		if h[i] < g {
			return true
		}
		h[i] = 0
	}
	return false
}
