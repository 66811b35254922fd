package emd_test

import (
	"context"
	"fmt"
	"log"

	"github.com/privmap/privmap/core"
	"github.com/privmap/privmap/core/emd"
)

// Compare measures an estimate on a 2×1 grid of 1 km cells: moving 0.1
// of the mass one cell costs 0.1 km.
func ExampleCompare() {
	grid := core.Alphabet{Kind: core.KindGrid, Cols: 2, Rows: 1, CellKm: 1}
	m, err := emd.Compare(context.Background(), []float64{0.6, 0.4}, []float64{0.5, 0.5}, grid)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("EMD %.3f %s, MSE %.3f, TV %.3f, JSD %.5f\n", m.EMD, m.EMDUnit, m.MSE, m.TV, m.JSD)
	// Output:
	// EMD 0.100 km, MSE 0.020, TV 0.100, JSD 0.00506
}

// The exact transport between two distributions under any ground
// distance: here |i − j| on three points.
func ExampleTransport() {
	d, err := emd.Transport(context.Background(), []float64{1, 0, 0}, []float64{0, 0.5, 0.5},
		func(i, j int) float64 { return float64(max(i-j, j-i)) })
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(d)
	// Output:
	// 1.5
}

// On a line the EMD is the L1 distance of the cumulative distributions.
func ExampleEMDLinear() {
	fmt.Println(emd.EMDLinear([]float64{1, 0, 0}, []float64{0, 0, 1}))
	// Output:
	// 2
}

// The squared error, total variation and Jensen–Shannon divergence
// (nats) of two distributions with disjoint supports.
func ExampleTV() {
	p, q := []float64{1, 0}, []float64{0, 1}
	fmt.Printf("MSE %g, TV %g, JSD %.4f (ln 2)\n", emd.SquaredError(p, q), emd.TV(p, q), emd.JSD(p, q))
	// Output:
	// MSE 2, TV 1, JSD 0.6931 (ln 2)
}

// The squared error Σ (p − q)² (CEM eq. 2).
func ExampleSquaredError() {
	fmt.Printf("%.2f\n", emd.SquaredError([]float64{0.5, 0.5}, []float64{0.7, 0.3}))
	// Output:
	// 0.08
}

// The Jensen–Shannon divergence in nats (CEM eq. 8): 0 between equal
// distributions, ln 2 between disjoint ones.
func ExampleJSD() {
	fmt.Printf("%.4f %.4f\n", emd.JSD([]float64{0.5, 0.5}, []float64{0.5, 0.5}), emd.JSD([]float64{1, 0}, []float64{0, 1}))
	// Output:
	// 0.0000 0.6931
}
