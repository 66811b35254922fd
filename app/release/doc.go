// Package release is the central release: a data set's counts
// published with noise drawn by the curator, not by each person.
//
// A Spec names the noise (Laplace, geometric, or PM's piecewise
// mixtures of them), its privacy levels and the sensitivity Δ. Its
// Summary gives the worst-case ε and PM's general privacy budget for one
// person. PersonSummary gives the exact worst case over every way her Δ
// records fall among the cells. Counts draws the noisy counts: exact
// integer noise from crypto/rand for a publication, while floating-point
// Laplace is preview-only. Suppress and Clip post-process them, and Write
// writes them as a distribution file. Interval bounds every released
// count's error with a stated probability. PlanFor finds the ε a target
// error needs. Reading says the guarantee in words, and Line is the JSON
// line privmap release prints.
//
// # The noises
//
// A curator who holds a histogram's counts publishes them with noise.
// The noises are package core/central's (central.go, centralgeo.go,
// rounded.go, budget.go, securenoise.go); this package draws and reads
// them (release.go). A Laplace release rounds its noise to whole
// counts. central.Rounded is that integer noise, and it answers what
// central.GeometricMixture answers, under the same names: PMF, CDF,
// Quantile, Rand, WorstEpsilon, Budget, BudgetPM, AbsMean, Variance and
// Entropy. So this package, their only user, declares the one interface
// it asks (Noise) and never asks which noise it holds.
//
// The Laplace piecewise mixture has scale λ₁ within the break-point c
// and λ₂ beyond it. With e₁ = e^{−c/λ₁}, its density is
// f(x) = a₁e^{−|x|/λ₁} for |x| ≤ c and a₂e^{−|x|/λ₂} beyond, where
// a₁ = 1/(2[λ₁(1−e₁) + λ₂e₁]) and a₂ = a₁e^{c/λ₂−c/λ₁}: continuous at c.
// The geometric mixture has α_i = e^{−ε_i/Δ}. Its mass is
// P(k) = b₁α₁^{|k|} for |k| ≤ c and b₂α₂^{|k|} beyond, with
// b₂ = b₁(α₁/α₂)^c. The scales are λ_i = Δ/ε_i. With c = 0 they are the
// Laplace mechanism (λ = Δ/ε) and the geometric one (α = e^{−ε/Δ}).
//
// Each has its PDF or PMF, its CDF and an inverse-CDF sampler (PM
// Algorithms 1–2). Each has closed forms for E|noise|, the variance and
// the entropy (PM eq. 14–16, 28–30). The geometric mixture's inner sums
// are added term by term, as their closed forms cancel catastrophically
// when α₁ → 1. Each has the exact worst-case ε for a sensitivity Δ:
// −ln f is piecewise linear in |x| with slopes 1/λ₁ and 1/λ₂, so the
// worst window of width Δ is where it is steepest.
//
// Check values (core/central/central_test.go): the Laplace mixture with
// λ₁ = 1, λ₂ = 3, c = 2 has E|X| = 2.065070, Var = 11.372614 and
// h = 2.358720. The geometric mixture with ε₁ = 0.5, ε₂ = 1, c = 3 has
// E|K| = 1.42644428, Var = 3.79340170 and H = 2.06547015.
//
// # The general privacy budget
//
// PM's general privacy budget (§III-C) is read as the expected absolute
// privacy loss between neighbouring counts x and x + Δ:
// ε_g = E_{o∼M(x)} |ln P[M(x)=o]/P[M(x+Δ)=o]|. It is taken over the
// integer outputs of the geometric noises and of Laplace noise rounded
// to the nearest integer (PM eq. 34–35), or over the densities of
// unrounded Laplace noise, for counts far from 0. It equals ε for the
// geometric mechanism. PM Table I's values are ln E e^{|L|} instead: its
// geometric-mixture column is reproduced to the last digit that way,
// e.g. 0.545 for c = 6, ε₁ = 0.25, ε₂ = 2.5, where E|L| = 0.341.
// privmap computes both and calls the first the budget.
package release
