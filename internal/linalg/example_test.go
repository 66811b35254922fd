package linalg_test

import (
	"context"
	"fmt"
	"log"
	"math"

	"github.com/privmap/privmap/internal/linalg"
)

// GMRES solves a linear system given only its products: here
// [[2, 1], [1, 3]] x = [3, 5], whose solution is x = [0.8, 1.4].
func ExampleGMRES() {
	f := func(dst, x []float64) {
		dst[0] = 2*x[0] + x[1]
		dst[1] = x[0] + 3*x[1]
	}
	x, res, _, err := linalg.GMRES(context.Background(), f, []float64{3, 5}, 1e-12, 100)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("x = [%.4f %.4f], residual below 1e-12: %v\n", x[0], x[1], res <= 1e-12)
	// Output:
	// x = [0.8000 1.4000], residual below 1e-12: true
}

// The nearest distribution to a vector with a negative entry, as the
// inversion estimators' post-processing takes it (FW §5.2): λ = −0.05
// brings (0.6, 0.5, −0.1) to (0.55, 0.45, 0).
func ExampleProjectSimplex() {
	p := linalg.ProjectSimplex(nil, []float64{0.6, 0.5, -0.1})
	fmt.Printf("%.2f\n", p)
	// Output:
	// [0.55 0.45 0.00]
}

// ProjectSimplexScratch is ProjectSimplex without allocation, for a loop
// over many rows.
func ExampleProjectSimplexScratch() {
	row, scratch := []float64{2, 0}, make([]float64, 2)
	linalg.ProjectSimplexScratch(row, row, scratch)
	fmt.Println(row)
	// Output:
	// [1 0]
}

// A cyclic convolution on a 4×4 torus by a kernel that moves every
// entry one column east: the mass at (0, 3) wraps round to (0, 0).
func ExampleNewConv2() {
	c := linalg.NewConv2(4, 4, 1, func(i, j int) float64 {
		if i == 0 && j == 1 {
			return 1
		}
		return 0
	})
	a := c.Buffer()
	a[0*4+3] = 1
	c.Apply(a, 4, 4)
	fmt.Printf("%.0f\n", a[:4])
	c.Done(a)
	// Output:
	// [1 0 0 0]
}

// Smooth rounds a length up to one whose prime factors are 2, 3 and 5,
// which FFTs transform fastest; Mod is the remainder in [0, n).
func ExampleSmooth() {
	fmt.Println(linalg.Smooth(97), linalg.Smooth(128), linalg.Mod(-1, 5))
	// Output:
	// 100 128 4
}

// Each runs independent work on every core; results are combined in
// index order afterwards, so the outcome does not depend on the schedule.
func ExampleEach() {
	squares := make([]int, 5)
	linalg.Each(len(squares), func(i int) { squares[i] = i * i })
	fmt.Println(squares)
	// Output:
	// [0 1 4 9 16]
}

// Log reads a subnormal number's exponent right, where math.Log on amd64
// does not (golang/go#56600).
func ExampleLog() {
	fmt.Printf("%.2f %.2f\n", linalg.Log(5e-324), math.Log(math.E))
	// Output:
	// -744.44 1.00
}

// Mod is the remainder in [0, n), as a torus's offsets need.
func ExampleMod() {
	fmt.Println(linalg.Mod(7, 5), linalg.Mod(-7, 5))
	// Output:
	// 2 3
}
