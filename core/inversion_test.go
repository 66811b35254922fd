package core

import (
	"context"
	"errors"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
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

// TestInversionTooLarge checks that the dense estimators refuse, before
// allocating, channels beyond maxDenseSymbols, while [IBU]_M goes
// matrix-free there.
func TestInversionTooLarge(t *testing.T) {
	k := maxDenseSymbols + 1
	m, _ := NewKRR(k, 1)
	g := &Groups{Users: []int{10}, List: []Group{{Mech: 0, Report: SymbolReport(3), Count: 10}}}
	var large *TooLargeError
	if _, err := INVM([]Mechanism{m}, g, nil, PostProj); !errors.As(err, &large) {
		t.Errorf("inv-m on %d symbols: %v, want a *TooLargeError", k, err)
	}
	est, err := IBUM(context.Background(), []Mechanism{m}, g, nil, EMOptions{MaxIter: 3})
	if err != nil || len(est.Theta) != k {
		t.Errorf("ibu-m on %d symbols: %v", k, err)
	}
}
