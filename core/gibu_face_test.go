package core

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// faceSetup returns curvedPair's models and point with a free set of
// two thirds of the symbols.
func faceSetup(t *testing.T) (*mixture, *columns, []float64, []bool) {
	t.Helper()
	ops, cols, theta, _ := curvedPair(t)
	bound := make([]bool, 40)
	for x := range bound {
		bound[x] = x%3 == 0
	}
	return ops, cols, theta, bound
}

// TestFaceHessian checks the Hessian formed densely on a face (XXᵀ of
// facer.face, by gram's blocks) against Hessian products with the unit
// vectors of the face, for the operator form and the columns, and that
// a Hessian kept on a face gives its principal submatrix on a smaller
// one.
func TestFaceHessian(t *testing.T) {
	ops, cols, theta, bound := faceSetup(t)
	free := freeSet(bound)
	cols.at(theta)
	e, col := make([]float64, 40), make([]float64, 40)
	for name, m := range map[string]curvedModel{"operators": ops, "columns": cols} {
		var c faceHessian
		if ok, err := c.build(bg, m, theta, free); !ok || err != nil {
			t.Fatalf("%s: no dense face: %v", name, err)
		}
		if !c.at(theta) {
			t.Errorf("%s: the kept Hessian is not at θ", name)
		}
		for a, x := range free {
			clear(e)
			e[x] = 1
			cols.hessVec(e, col)
			for b, y := range free {
				if d := math.Abs(c.h.At(a, b) - col[y]); d > 1e-12*math.Abs(col[y])+1e-14 {
					t.Fatalf("%s: H[%d][%d] = %v, Hessian product %v", name, x, y, c.h.At(a, b), col[y])
				}
			}
		}
		// On a smaller face, the kept Hessian's submatrix is the one a
		// new build gives.
		sub := free[1:]
		kept, ok := c.factor(sub, faceRidge(theta, sub, 1e-6))
		var fresh faceHessian
		fresh.build(bg, m, theta, sub)
		new, ok2 := fresh.factor(sub, faceRidge(theta, sub, 1e-6))
		if !ok || !ok2 {
			t.Fatalf("%s: factorisations failed", name)
		}
		g := randomDist(rand.New(rand.NewPCG(1, 1)), 40, 0)
		if d := maxDiff(kept.solve(g), new.solve(g)); d > 1e-12*floats.Norm(new.solve(g), math.Inf(1)) {
			t.Errorf("%s: kept and fresh Hessians' steps differ by %g", name, d)
		}
		if _, ok := c.factor([]int{0}, faceRidge(theta, []int{0}, 1e-6)); ok {
			t.Errorf("%s: a face outside the kept one was factorised", name)
		}
		// Extended by three symbols, the kept Hessian is the one at θ on
		// the larger face.
		wide := append([]int{0, 3, 6}, free...)
		if ok, err := c.extend(bg, m, wide); !ok || err != nil {
			t.Fatalf("%s: not extended: %v", name, err)
		}
		for _, x := range wide {
			clear(e)
			e[x] = 1
			cols.hessVec(e, col)
			for _, y := range wide {
				if got := c.h.At(c.pos[x], c.pos[y]); math.Abs(got-col[y]) > 1e-12*math.Abs(col[y])+1e-14 {
					t.Fatalf("%s extended: H[%d][%d] = %v, Hessian product %v", name, x, y, got, col[y])
				}
			}
		}
		if ok, _ := c.extend(bg, m, freeSet(make([]bool, 40))); ok {
			t.Errorf("%s: extended by more than a quarter of the face", name)
		}
	}
}

// TestGram checks gram's blocked XXᵀ and products' XYᵀ against the
// general product on a size that is not a multiple of their block, and
// that a cancelled context stops them.
func TestGram(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	x := mat.NewDense(gramBlock*2+37, 53, nil)
	for i := range gramBlock*2 + 37 {
		for j := range 53 {
			x.Set(i, j, rng.NormFloat64())
		}
	}
	var want mat.Dense
	want.Mul(x, x.T())
	got, err := gram(bg, x)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := want.Dims()
	for i := range r {
		for j := range r {
			if d := math.Abs(got.At(i, j) - want.At(i, j)); d > 1e-12*math.Max(1, math.Abs(want.At(i, j))) {
				t.Fatalf("XXᵀ[%d][%d] = %v, want %v", i, j, got.At(i, j), want.At(i, j))
			}
		}
	}
	y := x.Slice(0, 40, 0, 53).(*mat.Dense)
	xy, err := products(bg, x, y)
	if err != nil {
		t.Fatal(err)
	}
	for i := range r {
		for j := range 40 {
			if d := math.Abs(xy.At(i, j) - want.At(i, j)); d > 1e-12*math.Max(1, math.Abs(want.At(i, j))) {
				t.Fatalf("XYᵀ[%d][%d] = %v, want %v", i, j, xy.At(i, j), want.At(i, j))
			}
		}
	}
	ctx, cancel := context.WithCancel(bg)
	cancel()
	if _, err := gram(ctx, x); !errors.Is(err, context.Canceled) {
		t.Errorf("gram after cancel: %v", err)
	}
	if _, err := products(ctx, x, y); !errors.Is(err, context.Canceled) {
		t.Errorf("products after cancel: %v", err)
	}
}

// TestFaceStep checks the dense Newton step on a face: it solves
// (H + R) d = G_F − μ1 with 1ᵀd = 0 (checked with Hessian products), and
// conjugate gradients preconditioned by the same Hessian reach it at
// once.
func TestFaceStep(t *testing.T) {
	ops, _, theta, bound := faceSetup(t)
	free := freeSet(bound)
	grad := make([]float64, 40)
	ops.gradient(theta, grad)
	const damp = 1e-6
	var c faceHessian
	if ok, err := c.build(bg, ops, theta, free); !ok || err != nil {
		t.Fatal("no dense face", err)
	}
	ridge := faceRidge(theta, free, damp)
	pr, ok := c.factor(free, ridge)
	if !ok {
		t.Fatal("factorisation failed")
	}
	d := pr.solve(grad)
	hd := make([]float64, 40)
	ops.at(theta)
	ops.hessVec(d, hd)
	mu, sum := math.NaN(), 0.0
	for _, x := range free {
		res := grad[x] - hd[x] - ridge[x]*d[x] // μ at every x of F
		if math.IsNaN(mu) {
			mu = res
		}
		if math.Abs(res-mu) > 1e-9*math.Max(1, math.Abs(mu)) {
			t.Errorf("symbol %d: G − (H+R)d = %v, want %v as elsewhere on the face", x, res, mu)
		}
		sum += d[x]
	}
	for x, b := range bound {
		if b && d[x] != 0 {
			t.Errorf("bound symbol %d moves by %v", x, d[x])
		}
	}
	if math.Abs(sum) > 1e-12*floats.Norm(d, math.Inf(1)) {
		t.Errorf("1ᵀd = %g, want 0", sum)
	}
	cg, reached, err := cgStep(bg, ops, theta, grad, bound, cgParams{damp: damp, tol: 1e-14, limit: 3}, pr, ridge)
	if err != nil || !reached {
		t.Fatalf("preconditioned by the exact Hessian: reached %v, %v", reached, err)
	}
	if diff := maxDiff(cg, d); diff > 1e-9*floats.Norm(d, math.Inf(1)) {
		t.Errorf("conjugate gradients' step is %g from the dense one", diff)
	}
}
