package central

import (
	"math"
	"math/rand/v2"
)

// Rounded is a Laplace mixture's noise rounded to the nearest integer,
// the noise a count receives from a Laplace release (PM eq. 34–35). It
// answers the questions GeometricMixture answers, under the same names,
// about integer noise: its probabilities, tails, quantiles and draws, and
// the privacy loss and budget of the rounded release; AbsMean, Variance
// and Entropy are those of the unrounded noise.
type Rounded struct {
	LaplaceMixture
}

// PMF returns q(j) = P(round(X) = j) = P(j−½ < X ≤ j+½), from the tails
// so that far bins keep their precision.
func (r Rounded) PMF(j int) float64 {
	a := abs(j)
	if a == 0 {
		return 1 - 2*r.tail(0.5)
	}
	return r.tail(float64(a)-0.5) - r.tail(float64(a)+0.5)
}

// CDF returns P(round(X) ≤ k) = P(X ≤ k + ½).
func (r Rounded) CDF(k int) float64 { return r.LaplaceMixture.CDF(float64(k) + 0.5) }

// Quantile returns ⌈Q(p) − ½⌉ for the unrounded quantile Q: the smallest
// k with P(round(X) ≤ k) ≥ p, 0 < p < 1.
func (r Rounded) Quantile(p float64) int {
	return int(math.Ceil(r.LaplaceMixture.Quantile(p) - 0.5))
}

// Rand draws the noise, rounded to the nearest integer, for a preview
// (see the package's note on floating point).
func (r Rounded) Rand(rng *rand.Rand) int { return int(math.Round(r.LaplaceMixture.Rand(rng))) }
