package core

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/privmap/privmap/internal/linalg"
)

// symbolChannels returns the mechanisms of the groups as Channels with a
// common output alphabet, or an error naming the first that is not.
func symbolChannels(mechs []Mechanism, g *Groups, s *Study, method Method) ([]Channel, error) {
	cs := make([]Channel, len(mechs))
	outputs := -1
	first := -1
	for j, m := range mechs {
		if g.Users[j] == 0 {
			continue
		}
		c, ok := m.(Channel)
		if !ok {
			what := capNames[CapBits]
			if _, h := m.(hasher); h {
				what = capNames[CapHashed]
			}
			return nil, bitVectorsNotInvertible(method, s, j, what)
		}
		if outputs >= 0 && c.Outputs() != outputs {
			return nil, notCommon(method, s, first, outputs, j, c.Outputs())
		}
		if outputs < 0 {
			outputs, first = c.Outputs(), j
		}
		cs[j] = c
	}
	if first < 0 {
		return nil, errors.New("core: no reports")
	}
	return cs, nil
}

// compound returns A[n] = Σ_A (n^A/n) A and q[n], the frequencies of the
// outputs over all users (FW eq. 6–7), for mechanisms with a common
// output alphabet.
func compound(cs []Channel, g *Groups) (*mat.Dense, []float64) {
	var a *mat.Dense
	n := float64(g.N())
	for j, c := range cs {
		if c == nil {
			continue
		}
		m := Matrix(c)
		if a == nil {
			a = mat.NewDense(c.Inputs(), c.Outputs(), nil)
		}
		a.Apply(func(x, z int, v float64) float64 { return v + float64(g.Users[j])/n*m.At(x, z) }, a)
	}
	return a, pooled(cs, g)
}

// pooled returns q[n], the frequencies of the outputs over all users.
func pooled(cs []Channel, g *Groups) []float64 {
	var q []float64
	for _, c := range cs {
		if c != nil {
			q = make([]float64, c.Outputs())
			break
		}
	}
	n := float64(g.N())
	for _, gr := range g.List {
		q[gr.Report.Symbol] += float64(gr.Count) / n
	}
	return q
}

// MaxDenseSymbols bounds the dense K×K channels of the inversion
// estimators and of [IBU]_M without operators: an LU factorisation of
// K = 4,096 (0.13 GB, 5·10¹⁰ operations) takes tens of seconds here and
// cannot be interrupted.
const MaxDenseSymbols = 4096

// checkDense refuses, before anything is allocated, dense channels of
// more than MaxDenseSymbols inputs or outputs.
func checkDense(what string, cs []Channel) error {
	for _, c := range cs {
		if c == nil {
			continue
		}
		if k := max(c.Inputs(), c.Outputs()); k > MaxDenseSymbols {
			return &TooLargeError{What: what,
				Need:  fmt.Sprintf("a dense %d×%d matrix (%.1f GB, %.0e operations)", c.Inputs(), c.Outputs(), float64(c.Inputs())*float64(c.Outputs())*8/1e9, math.Pow(float64(k), 3)),
				Limit: fmt.Sprintf("%d symbols; GIBU and [IBU]_M estimate matrix-free", MaxDenseSymbols)}
		}
		if err := CheckMemory(what, 3*8*float64(c.Inputs())*float64(c.Outputs())); err != nil {
			return err // the matrix, its factors and a copy
		}
	}
	return nil
}

// invert solves θ A = q for a square, well-conditioned A.
func invert(a *mat.Dense, q []float64) ([]float64, error) {
	k, z := a.Dims()
	if k != z {
		return nil, notSquare(k, z)
	}
	var lu mat.LU
	lu.Factorize(a)
	if c := lu.Cond(); c > maxCondition || math.IsInf(c, 0) || math.IsNaN(c) {
		return nil, fmt.Errorf("core: the channel matrix is singular or ill-conditioned (condition number %.3g > %.0g); use GIBU or IBU", c, maxCondition)
	}
	var theta mat.VecDense
	if err := lu.SolveVecTo(&theta, true, mat.NewVecDense(k, q)); err != nil {
		return nil, fmt.Errorf("core: matrix inversion: %w", err)
	}
	return theta.RawVector().Data, nil
}

// INVM is [INV]_M (FW eq. 7): θ̂ = q[n] A[n]⁻¹, post-processed. With one
// mechanism it is INV, the empirical estimator.
func INVM(mechs []Mechanism, g *Groups, s *Study, post Post) ([]float64, error) {
	return invM(context.Background(), mechs, g, s, post, MethodINVM)
}

// invM is INVM; ctx cancels the matrix-free solve, and errors name
// method (inv, inv-m or inv-r, which runs it per mechanism).
func invM(ctx context.Context, mechs []Mechanism, g *Groups, s *Study, post Post, method Method) ([]float64, error) {
	cs, err := symbolChannels(mechs, g, s, method)
	if err != nil {
		return nil, err
	}
	raw, err := solveCompound(ctx, cs, g)
	if err != nil {
		return nil, err
	}
	return PostProcess(raw, post)
}

// Matrix-free inversion stops at the relative residual invTol, and gives
// up after invMaxIter products of A[n].
const (
	invTol     = 1e-10
	invMaxIter = 5000
)

// solveCompound solves θ A[n] = q[n]: by LU on the dense A[n] up to
// MaxDenseSymbols symbols, and beyond that by GMRES on A[n] applied
// matrix-free when every mechanism has an operator, to the relative
// residual invTol.
func solveCompound(ctx context.Context, cs []Channel, g *Groups) ([]float64, error) {
	if ops, w, ok := compoundOperators(cs, g, MaxDenseSymbols*MaxDenseSymbols); ok {
		op := &compoundOp{ops: ops, w: w}
		theta, _, _, err := linalg.GMRES(ctx, func(dst, x []float64) { op.MulVecTo(dst, true, x) }, pooled(cs, g), invTol, invMaxIter)
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			return nil, fmt.Errorf("core: matrix inversion, matrix-free: %w: the channel is too ill-conditioned to invert; use GIBU or IBU", err)
		}
		return theta, nil
	}
	if err := checkDense("matrix inversion", cs); err != nil {
		return nil, err
	}
	a, q := compound(cs, g)
	return invert(a, q)
}

// maxCondition is the largest condition number of A[n] that the
// inversion estimators accept.
const maxCondition = 1e12

// The names of matrix inversion (FW eq. 7) for the users of one
// mechanism, of [INV]_M on their average channel and of [INV]_R, per
// mechanism averaged (FW eq. 4).
const (
	MethodINV  Method = "inv"
	MethodINVM Method = "inv-m"
	MethodINVR Method = "inv-r"
)

// The inversion estimators, registered in registry.
var (
	invEstimator = Estimator{Method: MethodINV, Single: true, Refuses: CapPersonal | CapBits | CapHashed, Cost: CostInversion,
		run: func(e *estimation) (*Estimate, error) { return closed(e.inv(e.g)) }}
	invMEstimator = Estimator{Method: MethodINVM, Title: "[INV]_M", Help: "inversion of the average matrix (FW eq. 7)",
		Refuses: CapPersonal | CapBits | CapHashed, Cost: CostInversion,
		run: func(e *estimation) (*Estimate, error) { return closed(e.inv(e.g)) }}
	invREstimator = Estimator{Method: MethodINVR, Title: "[INV]_R", Help: "inversion per mechanism, averaged",
		PerMechanism: true, Refuses: CapPersonal | CapBits | CapHashed, Cost: CostInversionEach,
		run: func(e *estimation) (*Estimate, error) { return closed(PerMechanism(e.g, e.inv)) }}
)

func (e *estimation) inv(g *Groups) ([]float64, error) {
	return invM(e.ctx, e.mechs, g, e.s, e.opt.Post, e.method)
}
