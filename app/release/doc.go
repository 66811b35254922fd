// Package release is the central release: a data set's counts
// published with noise drawn by the curator, not by each person.
//
// A Spec names the noise (Laplace, geometric, or their piecewise
// mixtures of PM), its privacy levels and the sensitivity Δ; its
// Summary gives the worst-case ε and PM's general privacy budget for
// one person, PersonSummary the exact worst case over every way her Δ
// records fall among the cells. Counts draws the noisy counts (exact
// integer noise from crypto/rand for a publication; floating-point
// Laplace is preview-only), Suppress and Clip post-process them, and
// Write writes them as a distribution file. Interval bounds every
// released count's error with a stated probability, PlanFor finds the ε
// a target error needs, Reading says the guarantee in words and Line
// is the JSON line privmap release prints.
package release
