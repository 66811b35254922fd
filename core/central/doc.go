// Package central holds the noises of a central release (PM): a
// curator who holds the counts of a histogram adds noise to each and
// publishes them. The noises here are zero-mean
// and symmetric; each of the piecewise mixtures fuses two of one family
// at a break-point c (PM §III, restated in package app/release's doc), and
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
// docs/ARCHITECTURE.md and "A person's loss" below.
//
// # A person's loss
//
// The figures above are a count's: Δ added to one count. A person who
// adds or removes up to Δ records changes the histogram by Δ in ℓ₁, and
// her records may fall in different cells (`central.PersonLoss`,
// `core/central/person.go`; `release.Spec.PersonSummary`). With d_i of
// them in cell i, the cells' noises are independent, so her loss is
// L = Σ_i L_i and its worst case Σ_i W(d_i), W(d) the worst case of one
// count shifted by d (each cell's supremum is reached with one sign, the
// noise being symmetric). privmap states the largest Σ_i W(d_i) over every
// split of Δ among the cells: W is concave for these noises (−ln P has
// steps that only fall, ε_in > ε_out, or only grow, ε_in ≤ ε_out; for
// rounded Laplace noise by Prékopa's theorem and the log-convexity of
// integrals of log-convex densities), so moving a record from a fuller
// cell to an emptier one never lowers the sum and the balanced split is a
// largest one: Δ·W(1) when there are at least Δ cells. For a mixture with
// ε_in > ε_out this is more than one count's W(Δ): pm-geometric ε_in 2,
// ε_out 0.5, c = 1 at Δ = 3 costs a person 3 × 2/3 = 2, one record in
// each of three cells, where three records in one count cost 1. For the
// standard mechanisms and ε_in ≤ ε_out W is linear and the two agree. A
// geometric release's worst case is (A·ε_in + B·ε_out)/Δ with whole A and
// B, computed in rational arithmetic from the ε as given and rounded once.
//
// The average loss E|L| does not split into cells (|Σ L_i| ≠ Σ |L_i|):
// privmap enumerates every split of Δ among at most the release's cells,
// convolves the cells' loss distributions (atoms equal to 10⁻¹² merged)
// and states the largest, and ln E e^{|L|} of the same split. When the
// splits are too many (about Δ > 20; 4·10⁶ atom pairs or 20,000 splits),
// the average is stated by its bound, the worst case, and the reading says
// so. The ledger, the release's JSON line (`worst_eps`, `budget`,
// `budget_pm`), its sentences, the window's Release screen and the report
// all carry the person's figures; PM's experiments (`app/experiment`) keep
// the count's, as the paper defines them. Tested against brute force over
// every split for Δ ≤ 6 (`TestPersonLossBruteForce`).
package central
