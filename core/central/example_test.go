package central_test

import (
	"context"
	"fmt"
	"log"
	"math/rand/v2"

	"github.com/privmap/privmap/core/central"
)

// A geometric mixture of PM Table I's kind (α = e^{−ε}: the standard
// mechanism's E|noise| = 2α/(1−α²), variance 2α/(1−α)²): ε = 0.25 within a break-point
// of 6 counts, 2.5 beyond, on counts of sensitivity 1.
func ExampleNewGeometricMixture() {
	m, err := central.NewGeometricMixture(0.25, 2.5, 6, 1)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("worst-case ε %.3f, budget %.4f (PM's reading %.4f)\n", m.WorstEpsilon(1), m.Budget(1), m.BudgetPM(1))
	fmt.Printf("P(noise = 0) = %.4f, P(noise ≤ 6) = %.4f, 95%% within ±%d\n", m.PMF(0), m.CDF(6), m.Quantile(0.975))
	// Output:
	// worst-case ε 2.500, budget 0.3409 (PM's reading 0.5449)
	// P(noise = 0) = 0.1536, P(noise ≤ 6) = 0.9969, 95% within ±6
}

// The standard geometric mechanism is the mixture with one ε.
func ExampleNewGeometricNoise() {
	m, err := central.NewGeometricNoise(0.5, 1)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("ε %.2f, E|noise| %.4f, variance %.4f\n", m.WorstEpsilon(1), m.AbsMean(), m.Variance())
	// Output:
	// ε 0.50, E|noise| 1.9190, variance 7.8354
}

// A Laplace release rounds its noise to whole counts: Rounded answers the
// geometric mixture's questions about that integer noise.
func ExampleNewLaplaceMixture() {
	l, err := central.NewLaplaceMixture(0.25, 2.5, 6, 1)
	if err != nil {
		log.Fatal(err)
	}
	r := central.Rounded{LaplaceMixture: l}
	fmt.Printf("continuous: worst-case ε %.3f; rounded: %.3f, budget %.4f\n", l.WorstEpsilon(1), r.WorstEpsilon(1), r.Budget(1))
	fmt.Printf("P(round(noise) = 0) = %.4f\n", r.PMF(0))
	// Output:
	// continuous: worst-case ε 2.500; rounded: 2.500, budget 0.3154
	// P(round(noise) = 0) = 0.1470
}

// The Laplace mechanism of scale Δ/ε, rounded, as privmap release draws
// it for a preview.
func ExampleNewLaplaceNoise() {
	l, err := central.NewLaplaceNoise(1, 1)
	if err != nil {
		log.Fatal(err)
	}
	r := central.Rounded{LaplaceMixture: l}
	rng := rand.New(rand.NewPCG(1, 2))
	fmt.Println("E|noise|", l.AbsMean(), "draws", r.Rand(rng), r.Rand(rng), r.Rand(rng))
	fmt.Printf("rounded: ε %.4f, P(0) = %.4f\n", r.WorstEpsilon(1), r.PMF(0))
	// Output:
	// E|noise| 1 draws 0 0 0
	// rounded: ε 1.0000, P(0) = 0.3935
}

// Integer noise for publication: exact arithmetic on parameters read from
// their decimal forms, drawn from crypto/rand (so the draw itself cannot
// be shown).
func ExampleNewSecureGeometricMixture() {
	m, err := central.NewSecureGeometricMixture("0.25", "2.5", 6, "1")
	if err != nil {
		log.Fatal(err)
	}
	k, err := m.Rand(context.Background())
	fmt.Println(err == nil, k > -1_000_000 && k < 1_000_000)
	// Output:
	// true true
}

// Rounded is the integer noise of a Laplace release: P(round(X) = 0) =
// 1 − e^{−1/(2λ)} for the Laplace noise of scale λ = Δ/ε, here λ = 1.
func ExampleRounded() {
	l, _ := central.NewLaplaceNoise(1, 1)
	r := central.Rounded{LaplaceMixture: l}
	fmt.Printf("P(0) = %.4f, P(≤ 0) = %.4f, 90%% at most %d\n", r.PMF(0), r.CDF(0), r.Quantile(0.9))
	// Output:
	// P(0) = 0.3935, P(≤ 0) = 0.6967, 90% at most 2
}
