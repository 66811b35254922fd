// Package central holds the noises of a central release (PM): a
// curator who holds the counts of a histogram adds noise to each and
// publishes them. The noises here are zero-mean
// and symmetric; each of the piecewise mixtures fuses two of one family
// at a break-point c (PM §III, restated in docs/ARCHITECTURE.md §9), and
// the standard Laplace and geometric mechanisms are their special cases
// with one parameter.
//
// Floating point: these samplers draw from seeded math/rand/v2 through
// float64 inverse CDFs, which is right for previewing a release and wrong
// for publishing one: the low bits of floating-point Laplace noise reveal
// the value it was added to (Mironov, "On significance of the least
// significant bits for differential privacy", CCS 2012). A release meant
// for publication draws integer geometric or geometric-mixture noise with
// exact arithmetic from crypto/rand (SecureGeometricMixture).
//
// A Laplace release rounds its noise to whole counts: Rounded is that
// integer noise, and answers what GeometricMixture answers under the same
// names (PMF, CDF, Quantile, Rand, WorstEpsilon, Budget, BudgetPM,
// AbsMean, Variance, Entropy), so that a user declares one interface for
// both. The package knows nothing of local mechanisms (package core); see
// docs/ARCHITECTURE.md §1 and §9.
package central
