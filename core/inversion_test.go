package core

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/privmap/privmap/internal/linalg"
)

// TestInvertSingular: FW eq. (11)'s two mechanisms used by half the users
// each average to a non-informative A[n], which inversion must refuse
// with its condition number.
func TestInvertSingular(t *testing.T) {
	a := mat.NewDense(2, 2, []float64{0.75, 0.25, 0.25, 0.75})
	b := mat.NewDense(2, 2, []float64{0.25, 0.75, 0.75, 0.25})
	var avg mat.Dense
	avg.Add(a, b)
	avg.Scale(0.5, &avg)
	if _, err := invert(&avg, []float64{0.5, 0.5}); err == nil || !strings.Contains(err.Error(), "condition number") {
		t.Errorf("singular A[n]: %v", err)
	}
	if th, err := invert(a, []float64{0.6, 0.4}); err != nil || !near(th, []float64{0.7, 0.3}, 1e-12) {
		t.Errorf("invert = %v, %v; want [0.7 0.3]", th, err)
	}
}

// noOperator is a channel without a matrix-free product.
type noOperator struct{ k *KRR }

func (m noOperator) Inputs() int           { return m.k.Inputs() }
func (m noOperator) Outputs() int          { return m.k.Outputs() }
func (m noOperator) Prob(x, z int) float64 { return m.k.Prob(x, z) }
func (m noOperator) Likelihood(dst []float64, r Report) ([]float64, float64) {
	return m.k.Likelihood(dst, r)
}

// TestInversionTooLarge checks that the inversion estimators refuse,
// before allocating, dense channels beyond MaxDenseSymbols, and solve
// matrix-free there when the mechanisms have operators; [IBU]_M goes
// matrix-free too.
func TestInversionTooLarge(t *testing.T) {
	k := MaxDenseSymbols + 1
	m, _ := NewKRR(k, 1)
	g := &Groups{Users: []int{10}, List: []Group{{Mech: 0, Report: SymbolReport(3), Count: 10}}}
	var large *TooLargeError
	if _, err := INVM([]Mechanism{noOperator{m}}, g, nil, PostProj); !errors.As(err, &large) {
		t.Errorf("inv-m on %d symbols without an operator: %v, want a *TooLargeError", k, err)
	}
	// k-RR's inverse is known: θ_x = (q_x − r)/(p − r) with p the
	// probability of keeping the symbol and r = (1 − p)/(K − 1).
	th, err := INVM([]Mechanism{m}, g, nil, PostNone)
	if err != nil {
		t.Fatalf("inv-m on %d symbols, matrix-free: %v", k, err)
	}
	p := m.Prob(0, 0)
	r := (1 - p) / float64(k-1)
	for x, v := range th {
		q := 0.0
		if x == 3 {
			q = 1
		}
		if want := (q - r) / (p - r); math.Abs(v-want) > 1e-9*math.Abs(want) {
			t.Fatalf("θ_%d = %v, want %v", x, v, want)
		}
	}
	est, err := IBUM(context.Background(), []Mechanism{m}, g, nil, EMOptions{MaxIter: 3})
	if err != nil || len(est.Theta) != k {
		t.Errorf("ibu-m on %d symbols: %v", k, err)
	}
}

// TestGMRES checks the matrix-free inversion against LU on the dense
// average channel of planar geometric, linear geometric and k-RR users,
// and that a singular operator is refused.
func TestGMRES(t *testing.T) {
	p1, _ := NewPlanarGeometric(7, 5, 0.5, 0.6)
	p2, _ := NewPlanarGeometric(7, 5, 0.5, 2)
	geo, _ := NewGeometric(35, 0.4)
	krr, _ := NewKRR(35, 1.5)
	mechs := []Mechanism{p1, p2, geo, krr}
	g, err := SimulateGroups(bg, rand.New(rand.NewPCG(4, 2)), mechs, []int{500, 300, 200, 400}, randomDist(rand.New(rand.NewPCG(1, 9)), 35, 0.3))
	if err != nil {
		t.Fatal(err)
	}
	cs, err := symbolChannels(mechs, g, nil, "inv-m")
	if err != nil {
		t.Fatal(err)
	}
	a, q := compound(cs, g)
	want, err := invert(a, q)
	if err != nil {
		t.Fatal(err)
	}
	ops, w, ok := compoundOperators(cs, g, 0)
	if !ok {
		t.Fatal("no operators")
	}
	op := &compoundOp{ops: ops, w: w}
	got, res, iters, err := linalg.GMRES(bg, func(dst, x []float64) { op.MulVecTo(dst, true, x) }, q, 1e-12, 1000)
	if err != nil || res > 1e-12 {
		t.Fatalf("gmres: %v, relative residual %g", err, res)
	}
	if d := maxDiff(got, want); d > 1e-9 {
		t.Errorf("GMRES is %g (L∞) from LU after %d products", d, iters)
	}
	singular := func(dst, x []float64) {
		clear(dst)
		dst[0] = x[0] + x[1]
	}
	if _, _, _, err := linalg.GMRES(bg, singular, []float64{1, 2, 0}, 1e-10, 100); err == nil {
		t.Error("a singular operator was inverted")
	}
}
