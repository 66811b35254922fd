package core

import (
	"math"

	"gonum.org/v1/gonum/floats"
)

// hessWeights returns s_z = q_z/(n p_z²), the weights of the outputs in
// the Hessian's diagonal Σ_z s_z A(x, z)².
func hessWeights(q, p []float64, n float64) []float64 {
	s := make([]float64, len(q))
	for z, c := range q {
		s[z] = c / (n * p[z] * p[z])
	}
	return s
}

// diagonal adds the term's share of diag(−∇²L) at the point of at,
// Σ_z q_z A(x, z)²/(n p_z²), to acc, and reports false when its
// operator has no square.
func (t *operatorTerm) diagonal(acc []float64) bool {
	sq, ok := t.op.(squarer)
	if ok {
		floats.Add(acc, sq.squared().MulVecTo(nil, false, hessWeights(t.q, t.p, t.n)))
	}
	return ok
}

func (t *planarTerms) diagonal(acc []float64) bool {
	for j, m := range t.b.ms {
		floats.Add(acc, m.squared().MulVecTo(nil, false, hessWeights(t.q[j], t.p[j], t.n)))
	}
	return true
}

func (c *columns) diagonal(acc []float64) bool {
	for i, g := range c.col {
		s := c.count[i] / (c.n * c.dots[i] * c.dots[i])
		for x, v := range g {
			acc[x] += s * v * v
		}
	}
	return true
}

// diagonal returns diag(−∇²L) at the point of at, or nil when some term
// has no square.
func (m *mixture) diagonal() []float64 {
	d := make([]float64, m.k)
	for _, t := range m.terms {
		if !t.diagonal(d) {
			return nil
		}
	}
	return d
}

// diagonal returns diag(−∇²L) at the point of at.
func (c *columns) hessDiagonal() []float64 {
	d := make([]float64, c.k)
	c.diagonal(d)
	return d
}

// metric returns the weights w of cgStep's preconditioner on the free
// set: the geometric mean √(θ̃_x / B_xx) of EM's metric θ̃_x =
// max(θ_x, 1/(100K)) and the inverse of the Hessian's diagonal B_xx
// (Jacobi) where m gives that diagonal, else θ̃. On NYC's GIBU it takes
// 2.8 times fewer conjugate-gradient iterations than θ̃ alone; Jacobi
// alone took 4.8 times fewer there but lost a single wide planar
// mechanism's Newton steps, where the mean keeps them.
func metric(m curvedModel, theta []float64, bound []bool) []float64 {
	k := len(theta)
	var d []float64
	switch m := m.(type) {
	case *mixture:
		d = m.diagonal()
	case *columns:
		d = m.hessDiagonal()
	}
	w := make([]float64, k)
	for x := range w {
		if bound[x] {
			continue
		}
		w[x] = math.Max(theta[x], 0.01/float64(k))
		if d != nil && d[x] > 0 {
			w[x] = math.Sqrt(w[x] / d[x])
		}
	}
	return w
}
