package linalg

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestProjectSimplex(t *testing.T) {
	tests := []struct{ v, want []float64 }{
		{[]float64{0.2, 0.3, 0.5}, []float64{0.2, 0.3, 0.5}},
		{[]float64{1, 1}, []float64{0.5, 0.5}},
		{[]float64{2, 0, -1}, []float64{1, 0, 0}},
		{[]float64{0.5, 0.5, 0.5}, []float64{1.0 / 3, 1.0 / 3, 1.0 / 3}},
		// INV of issue 4's k-RR vector, projected: [0.6954941767, 0.3045058233, 0, 0, 0].
		{[]float64{0.9819767069, 0.5909883534, 0.2, -0.2691860241, -0.5037790362}, []float64{0.6954941767, 0.3045058233, 0, 0, 0}},
	}
	for _, tc := range tests {
		got := ProjectSimplex(nil, tc.v)
		for i := range got {
			if math.Abs(got[i]-tc.want[i]) > 1e-9 {
				t.Errorf("ProjectSimplex(%v) = %v, want %v", tc.v, got, tc.want)
				break
			}
		}
	}
	// Optimality: for random v, no simplex vertex mix is closer.
	rng := rand.New(rand.NewPCG(6, 6))
	for range 200 {
		v := make([]float64, 6)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		p := ProjectSimplex(nil, v)
		sum, d := 0.0, 0.0
		for i := range p {
			sum += p[i]
			d += (p[i] - v[i]) * (p[i] - v[i])
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Fatalf("projection of %v sums to %v", v, sum)
		}
		for range 50 {
			q := make([]float64, 6)
			s := 0.0
			for i := range q {
				q[i] = rng.ExpFloat64()
				s += q[i]
			}
			dq := 0.0
			for i := range q {
				q[i] /= s
				dq += (q[i] - v[i]) * (q[i] - v[i])
			}
			if dq < d-1e-12 {
				t.Fatalf("point %v is closer to %v than its projection %v", q, v, p)
			}
		}
	}
}
