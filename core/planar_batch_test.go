package core

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
)

// TestPlanarBatch checks the shared transforms of a planarBatch against
// each mechanism's own MulVecTo: the forward products bit for bit, the
// summed adjoints to rounding.
func TestPlanarBatch(t *testing.T) { bothEdgePaths(t, testPlanarBatch) }

func testPlanarBatch(t *testing.T) {
	var ms []*PlanarGeometric
	for _, eps := range []float64{0.3, 1.1, 3.124} {
		m, err := NewPlanarGeometric(9, 6, 0.5, eps)
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	if !batchable(ms) || batchable(ms[:1]) {
		t.Fatal("batchable is wrong")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	k := ms[0].Inputs()
	b := newPlanarBatch(ms)
	x := randomDist(rng, k, 0.4)
	got := make([][]float64, len(ms))
	b.forward(got, x)
	u := make([][]float64, len(ms))
	want := make([]float64, k)
	for j, m := range ms {
		if d := maxDiff(got[j], m.MulVecTo(nil, true, x)); d != 0 {
			t.Errorf("forward of ε=%v differs from MulVecTo by %g", m.Epsilon, d)
		}
		u[j] = randomDist(rng, k, 0.5)
		floats.Add(want, m.MulVecTo(nil, false, u[j]))
	}
	sum := make([]float64, k)
	b.adjointSum(sum, u)
	if d := maxDiff(sum, want); d > 1e-15*floats.Max(want) {
		t.Errorf("summed adjoints differ from MulVecTo's by %g", d)
	}
	// The weighted sum as one operator, both ways.
	w := []float64{0.5, 0.2, 0.3}
	op := planarSum(ms, w)
	for _, trans := range []bool{false, true} {
		want := make([]float64, k)
		for j, m := range ms {
			floats.AddScaled(want, w[j], m.MulVecTo(nil, trans, x))
		}
		if d := maxDiff(op.MulVecTo(nil, trans, x), want); d > 1e-15*floats.Max(want) {
			t.Errorf("trans %v: planarSum differs from the weighted MulVecTo by %g", trans, d)
		}
	}
}

// curvedPair returns one seeded data set of two planar mechanisms and a
// k-RR on 40 symbols in operator form (a planarBatch and a k-RR
// operator) and as likelihood columns, a random point θ, and the
// generator to draw on.
func curvedPair(t *testing.T) (*mixture, *columns, []float64, *rand.Rand) {
	t.Helper()
	p1, _ := NewPlanarGeometric(8, 5, 0.5, 1.2)
	p2, _ := NewPlanarGeometric(8, 5, 0.5, 2.5)
	krr, _ := NewKRR(40, 2)
	mechs := []Mechanism{p1, p2, krr}
	rng := rand.New(rand.NewPCG(6, 7))
	g, err := SimulateGroups(bg, rng, mechs, []int{400, 300, 300}, randomDist(rng, 40, 0.3))
	if err != nil {
		t.Fatal(err)
	}
	cm, _ := newColumns(mechs, g, nil)
	om, _ := newModel(mechs, g, nil, 0)
	return om.(*mixture), cm, randomDist(rng, 40, 0), rng
}

// TestHessVec checks the Hessian products and diagonal of the operator
// form (a planarBatch and a k-RR operator) against those of likelihood
// columns,
// (1/n) Σ c·g (g·v)/(θ·g)², and the columns' against central differences
// of their gradient.
func TestHessVec(t *testing.T) {
	ops, cols, theta, rng := curvedPair(t)
	if _, ok := ops.terms[0].(*planarTerms); !ok {
		t.Fatalf("the planar users are not batched: %T", ops.terms[0])
	}
	v := make([]float64, 40)
	for x := range v {
		v[x] = rng.NormFloat64() * theta[x]
	}
	hc, ho := make([]float64, 40), make([]float64, 40)
	cols.at(theta)
	cols.hessVec(v, hc)
	ops.at(theta)
	ops.hessVec(v, ho)
	if d := maxDiff(hc, ho); d > 1e-12*floats.Norm(hc, math.Inf(1)) {
		t.Errorf("operator form's Hessian product differs from the columns' by %g", d)
	}
	// The Hessian's diagonal, from the squared operators (planar: the
	// squared tables; k-RR: two values squared), against the columns'.
	dc, do := cols.hessDiagonal(), ops.diagonal()
	if do == nil {
		t.Fatal("the operator form gives no diagonal")
	}
	if d := maxDiff(dc, do); d > 1e-12*floats.Max(dc) {
		t.Errorf("the operator form's Hessian diagonal differs from the columns' by %g", d)
	}
	if vhv := floats.Dot(v, hc); vhv <= 0 {
		t.Errorf("vᵀ(−∇²L)v = %g, want > 0", vhv)
	}
	const h = 1e-6
	plus, minus := make([]float64, 40), make([]float64, 40)
	gp, gm := make([]float64, 40), make([]float64, 40)
	for x := range theta {
		plus[x], minus[x] = theta[x]+h*v[x], theta[x]-h*v[x]
	}
	cols.gradient(plus, gp)
	cols.gradient(minus, gm)
	for x := range gp {
		fd := -(gp[x] - gm[x]) / (2 * h)
		if math.Abs(fd-hc[x]) > 1e-6*math.Max(1, math.Abs(hc[x])) {
			t.Errorf("symbol %d: Hessian product %v, central difference %v", x, hc[x], fd)
		}
	}
}

// cancelAfter is a curved model that cancels its context at the n-th
// Hessian product and counts the products after that.
type cancelAfter struct {
	curvedModel
	n, calls, late int
	cancel         func()
}

func (c *cancelAfter) hessVec(v, dst []float64) {
	c.calls++
	if c.calls == c.n {
		c.cancel()
	}
	if c.calls > c.n {
		c.late++
	}
	c.curvedModel.hessVec(v, dst)
}

// TestNewtonCGCancel checks that Newton–CG reports progress inside its
// conjugate gradients and stops at the first Hessian product after its
// context is cancelled there, with the context's error.
func TestNewtonCGCancel(t *testing.T) {
	p1, _ := NewPlanarGeometric(12, 10, 0.5, 0.6)
	p2, _ := NewPlanarGeometric(12, 10, 0.5, 1.5)
	mechs := []Mechanism{p1, p2}
	rng := rand.New(rand.NewPCG(2, 8))
	g, err := SimulateGroups(bg, rng, mechs, []int{3000, 3000}, randomDist(rng, 120, 0.5))
	if err != nil {
		t.Fatal(err)
	}
	m, _ := newModel(mechs, g, nil, 0)
	ctx, cancel := context.WithCancel(bg)
	defer cancel()
	c := &cancelAfter{curvedModel: m.(curvedModel), n: 5, cancel: cancel}
	theta := fill(nil, 120, 1.0/120)
	inner := 0
	_, _, _, err = polish(ctx, c, theta, 1e-14, 0, 1000, nil, func(step int, done float64) {
		inner++
		if step != 1 || !(done >= 0 && done <= 1) {
			t.Errorf("inner progress: step %d, done %v", step, done)
		}
	})
	if !errors.Is(err, context.Canceled) || c.late > 0 {
		t.Errorf("polish: %v after %d products, %d after the cancel", err, c.calls, c.late)
	}
	if inner == 0 {
		t.Error("no progress inside the conjugate gradients")
	}
	if c.calls < c.n {
		t.Fatalf("only %d Hessian products: the test did not reach its cancel", c.calls)
	}
}
