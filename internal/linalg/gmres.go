package linalg

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
)

// gmresRestart is the Krylov dimension of GMRES between restarts.
const gmresRestart = 60

// GMRES solves f(x) = b for x, f linear, by restarted GMRES(m) (Saad and
// Schultz 1986) from x = 0: each cycle builds an orthonormal basis of
// the Krylov space of the residual by modified Gram–Schmidt, reduces
// the Hessenberg least-squares problem by Givens rotations, and ends
// with the true residual b − f(x). It stops once ‖b − f(x)‖ ≤ tol·‖b‖,
// returning x, the relative residual and the products taken, or with an
// error after maxIter products (or when ctx is cancelled). Written here
// because gonum's iterative solvers (gonum.org/v1/exp/linsolve) are not
// served by the module proxy this project builds from.
func GMRES(ctx context.Context, f func(dst, x []float64), b []float64, tol float64, maxIter int) (x []float64, res float64, iters int, err error) {
	k := len(b)
	x = make([]float64, k)
	bnorm := floats.Norm(b, 2)
	if bnorm == 0 {
		return x, 0, 0, nil
	}
	s := newKrylov(k, gmresRestart)
	r := make([]float64, k)
	copy(r, b)
	beta := bnorm
	for {
		if beta <= tol*bnorm {
			return x, beta / bnorm, iters, nil
		}
		if iters >= maxIter {
			return x, beta / bnorm, iters, fmt.Errorf("core: GMRES left the relative residual at %.2g after %d products, not %.0g", beta/bnorm, iters, tol)
		}
		floats.ScaleTo(s.v[0], 1/beta, r)
		clear(s.g)
		s.g[0] = beta
		j := 0
		for j < s.m && iters < maxIter {
			if err := ctx.Err(); err != nil {
				return nil, 0, iters, err
			}
			f(s.v[j+1], s.v[j])
			iters++
			if !s.extend(j) {
				return nil, 0, iters, errors.New("core: GMRES broke down: the channel matrix is singular")
			}
			j++
			if math.Abs(s.g[j]) <= tol*bnorm {
				break
			}
		}
		s.update(x, j)
		f(r, x)
		iters++
		floats.SubTo(r, b, r)
		beta = floats.Norm(r, 2)
	}
}

// krylov is one cycle of gmres: the basis v, the Hessenberg matrix h
// (h[i][j], reduced to triangular by the rotations cs, sn as it grows)
// and the rotated right-hand side g.
type krylov struct {
	m            int
	v, h         [][]float64
	cs, sn, g, y []float64
}

func newKrylov(k, m int) *krylov {
	s := &krylov{m: m, v: make([][]float64, m+1), h: make([][]float64, m+1),
		cs: make([]float64, m), sn: make([]float64, m), g: make([]float64, m+1), y: make([]float64, m)}
	for i := range s.v {
		s.v[i], s.h[i] = make([]float64, k), make([]float64, m)
	}
	return s
}

// extend orthonormalises v[j+1], which holds f(v[j]), against the basis,
// and rotates the new column of h to triangular form, updating g. It
// reports false when the column vanishes: f is singular.
func (s *krylov) extend(j int) bool {
	w, h := s.v[j+1], s.h
	for i := 0; i <= j; i++ {
		h[i][j] = floats.Dot(w, s.v[i])
		floats.AddScaled(w, -h[i][j], s.v[i])
	}
	h[j+1][j] = floats.Norm(w, 2)
	if h[j+1][j] > 0 {
		floats.Scale(1/h[j+1][j], w)
	}
	for i := range j {
		h[i][j], h[i+1][j] = s.cs[i]*h[i][j]+s.sn[i]*h[i+1][j], -s.sn[i]*h[i][j]+s.cs[i]*h[i+1][j]
	}
	d := math.Hypot(h[j][j], h[j+1][j])
	if d == 0 {
		return false
	}
	s.cs[j], s.sn[j] = h[j][j]/d, h[j+1][j]/d
	h[j][j], h[j+1][j] = d, 0
	s.g[j], s.g[j+1] = s.cs[j]*s.g[j], -s.sn[j]*s.g[j]
	return true
}

// update adds V y to x, y solving the triangular H y = g on the first j
// rows by back substitution.
func (s *krylov) update(x []float64, j int) {
	for i := j - 1; i >= 0; i-- {
		sum := s.g[i]
		for l := i + 1; l < j; l++ {
			sum -= s.h[i][l] * s.y[l]
		}
		s.y[i] = sum / s.h[i][i]
	}
	for i := range j {
		floats.AddScaled(x, s.y[i], s.v[i])
	}
}
