// Package plan answers the planning question of a local-privacy
// deployment: how many users, or which ε, keep the estimate's error
// below a target with a stated probability. Make simulates Runs
// deployments at each point of the axis and finds where the bound
// meets the target; Cost says beforehand what that takes. The central
// release's plan is release.PlanFor.
//
// # Planning: how many users, or which ε, for an accuracy
//
// The intervals answer "how wrong is this map?"; before a deployment, a
// privacy officer asks the converse: how many users (or which ε) so that
// the map's error stays below X with probability L? `plan.Make`
// answers it by simulation on the loaded truth, since no closed form
// exists for a deconvolution's error (the MLE sits on the simplex's
// boundary, and its error depends on the truth's shape):
//
//   - At each point of a grid — numbers of users, by default seven from a
//     tenth to ten times the data's, log-spaced; or factors of every
//     mechanism's ε at a fixed number of users, by default × 0.5 to × 4 —
//     R deployments (default 20) are simulated: the users split among the
//     mechanisms in the study's shares (`core.Assign`), their reports drawn
//     through their mechanisms from the truth (`core.ReportDrawer`, the
//     bootstrap's drawer exported: a symbol channel's counts from θA) and
//     estimated by the chosen estimator from its own cold start, as a real
//     deployment would be; the error to the truth (TV, the largest cell
//     error, or the EMD in km or steps on grids of at most 4,096 cells) of
//     each is measured. Run i at point p draws from its own PCG (seed,
//     stream p·10⁴ + i), and runs go on every core.
//   - The L-quantile of a point's R errors is the error a deployment of
//     that size stays within with probability L (up to the quantile's
//     sampling error: with R = 20 the 95% quantile lies between the two
//     largest errors, and the sentence says how many runs it rests on).
//   - The answer is read where the quantiles cross X, interpolated on
//     log–log axes between the two points that bracket it (an estimator's
//     error falls about as a power of n: n^{−1/2} for the inversion
//     estimators, near it for the MLE); beyond the points it is
//     extrapolated along the last two and said to be ("would need …,
//     extrapolated, as a power law"); a curve that does not fall gives no
//     answer. Users are rounded up to two significant figures, which is
//     all the quantiles of a few runs carry.
//
// *Limits*: the plan assumes the deployment's users follow the loaded
// distribution and use the mechanisms in the study's shares; a
// personalized mechanism (PUM) is refused (its reports depend on each
// user's personal cells), and varying ε applies to kinds whose level is
// an ε (not Shokri's Q, nor the identity).
//
// For a **central release** the question has a closed form
// (`release.PlanFor`): the bounds of `release.Spec.Interval` (each count
// alone, P(|noise| ≤ t) ≥ L; every count at once, P(|noise| ≤ t)^K ≥ L)
// fall as ε grows, so a bisection on the factor of ε (within and beyond
// a mixture's break-point together, their ratio kept) finds the smallest
// ε, rounded up to three significant figures, that keeps every released
// count within ±T (and each one alone within ±T) at level L: for a
// rounded Laplace release of K counts, ε = Δ·ln(1/(1 − L^{1/K}))/(T + ½).
package plan
