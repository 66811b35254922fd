// Package interval gives an estimate its intervals and says how far
// they can be trusted.
//
// CI chooses the method (GIBU's windowed profile likelihood where the
// map allows it, a parametric bootstrap elsewhere) and checks it
// against the study; Of computes the intervals and, on grids small
// enough, a bound on the EMD to the truth. CoverageNote and
// CoverageHeld read the coverage measured by the experiments on real
// data, by people a cell, so that an interval says what it held where
// people are, not only on average.
//
// # How wrong the map can be
//
// In a deployment there is no truth to compare with, only the reports
// and the estimate. privmap bounds the estimate's error by three
// methods: core/profile.go, core/bootstrap.go with core/interval.go,
// and core/fisher.go. Both front ends call Of. CI.MethodFor chooses
// when the user does not (-ci-method auto, the window):
//
//   - for the MLE (gibu, em) on a grid whose mechanisms are all k-RR or
//     planar geometric (core.LocalStudy): the windowed profile;
//   - for the MLE on other maps of at most 512 symbols: the profile
//     likelihood;
//   - elsewhere: the bootstrap. That is other estimators, and other
//     large maps, where the profile's per-cell solves on the whole map
//     would take hours (docs/PERFORMANCE.md).
//
// The choice rests on the coverage experiment (docs/EXPERIMENTS.md,
// coverage). On the cells with people, the profile intervals reached
// their level in every set-up measured. The percentile bootstrap's fell
// short where the truth has cells of one or a few people: 85.9% on the
// cells with people of FW's planar set-up (issue 45). A bias-corrected
// (BC) bootstrap did worse: 85% with people on San Francisco's real
// check-ins with 2,000 users, where the percentile interval held 95% and
// the profile 99%. Its correction pushes the intervals of cells at 0
// further down.
//
// # The profile likelihood
//
// core.Profile is GIBU's (Venzon & Moolgavkar 1988, Pawitan 2001 §9.7).
// Cell x's interval is {t : 2n(L(θ̂) − max_{θ_x = t} L(θ)) ≤ z²}, with
// z = Φ⁻¹((1+L)/2). The band takes z at Šidák's level L^{1/K}.
//
// Each end is the MLE of the reports with ω pseudo-reports of "x" (the
// upper end) or "not x" (the lower end). That is one more likelihood
// column, so GIBU's Newton's method solves it (pinned), the borrowed
// Hessian at θ̂ preconditioning it. ω is searched until the drop crosses
// z²/2n. Along this Lagrange path the profile's slope is ω/t, so
// Newton's steps on the drop take three or four solves an end (regula
// falsi in log ω where the path kinks).
//
// The end returned is the nearest θ_x certified outside the set: the
// drop minus the solve's certified gap exceeds z²/2n. So each interval
// contains the profile interval. The search stops within 1% of the
// half-width. At the boundary (θ̂_x = 0) the interval is [0, t⁺] with
// t⁺ > 0: moving mass into x costs likelihood at the rate of its KKT
// shortfall 1 − G_x. The bootstrap's replicates, drawn from θ̂, would
// leave x at 0 there.
//
// Cost: about 4 ends × 3.5 solves a symbol. FW's San Francisco set-up
// (345 cells, 20,000 users) takes 11 s, 16 s with 100,000 users. New
// York's 9,024 cells would take hours (2% in five minutes), which is why
// auto stops at 512 symbols.
//
// # The windowed profile
//
// core.LocalProfile (-ci-method local-profile; auto on a grid of k-RR
// and planar geometric users) gives the same intervals, with each end's
// best θ sought over the 9×9 cells around x and the outside's mass o as
// a whole. The window's cells are those θ̂ supports or whose gradient is
// within 0.2 of 1; the outside keeps θ̂'s shape.
//
// Pinning x moves θ only within the kernels' reach, and the rest is
// structure. A k-RR's report outside the window sees every window cell
// alike (rank one plus diagonal), so with the window's mass it is a
// function of o alone. A planar report beyond e^{−3} of its kernel from
// the window barely sees it.
//
// The local objective ℓ is L exactly on the reports the window can
// shift: a planar channel's outputs within 3 nats of its kernel, a
// k-RR's in the window. These are a few thousand rows of at most 82
// columns. On the other reports ℓ is L's Taylor expansion at θ̂: first
// order in the window's symbols (their pull, read off L's gradient), and
// second order in o as A·log o + B·o. A is the far reports' curvature in
// o, summed once for the map: a planar channel's far weight, a k-RR's
// Σ w_z((p − r)θ̂_z/q̂_z)². At θ̂, ℓ's gradient is L's, so the drops start
// at 0 as the exact profile's do.
//
// Each end is Newton's method on the convex drop in t, its slope the
// local solve's multiplier. Each solve is a projected Newton method with
// the window's dense Hessian (Cholesky of at most 82 symbols), certified
// by its duality gap. From inside, a step lands outside, and the end is
// the outside iterate within 1% of the half-width.
//
// Measured against core.Profile: within 0.75% of the half-width on 4×4
// and 20×14 grids (TestLocalProfileAgainstProfile), and within 0.5% on
// twelve of New York's cells (the exact profile takes 3–13 s a cell).
//
// At the cells θ̂ puts at 0, the upper ends come from the whole-map
// profile's own search (profiler.run) on maps of at most 512 cells
// (core.LocalExactZeros). Beyond, they are the concavity bound of
// core.ZeroEnds below, which holds the exact profile's end. There the
// windowed ends held 92.6% of New York's cells with people (the
// profile's own coverage on that map), and the bound 94.6%
// (docs/EXPERIMENTS.md, coverage (e)). On San Francisco the bound would
// be 1.5 times the exact end at the median cell.
//
// Cost: New York's 9,024 cells take 25 s with the estimate, on two
// cores; San Francisco's 345 with 100,000 users 10 s (the whole-map
// profile 14 s).
//
// # The parametric bootstrap
//
// core.Bootstrap serves every estimator (Efron & Tibshirani 1993, §6.5).
// B sets of reports (200 by default) are drawn from the estimate θ̂
// through the same population: n^A users of each mechanism A, each
// datum drawn from θ̂ and sanitised by her mechanism. A symbol channel's
// report counts are drawn from its output law θ̂A, the same draw at a
// product's cost. Each set is estimated by the same method. Replicate b
// draws from a PCG of its own (the seed, stream b), so the replicates do
// not depend on the cores.
//
// It is parametric because of the simplex's boundary. The MLE of a
// deconvolution sits there (most cells of a planar estimate are 0),
// where the normal approximation fails. Redrawing from θ̂ still gives the
// estimator's own behaviour there.
//
// GIBU's replicates are solved by Newton's method from θ̂: a replicate's
// MLE lies a few standard errors away, where EM would crawl. Its
// conjugate gradients are preconditioned by the Hessian formed once at
// θ̂ on the whole alphabet, or on its support and the highest gradients,
// as large as a dense face may be. Every replicate borrows it (a
// faceHessian marked borrowed): a preconditioner only, never taken as
// the replicate's own, its factorisation kept while the face stays. The
// likelihood columns of every report θ̂ can draw are computed once and
// shared. Each replicate is certified to the gap max(gap-tol, 10⁻³/n)
// nats a report. In any direction it then lies within about √(2nδ) ≤
// 4.5% of a standard error of its MLE.
//
// Where θ̂'s support is larger than a dense face (New York's 1,584 cells
// at 0.5 km), Newton's steps from θ̂ would be conjugate gradients on
// faces of thousands of symbols. GIBU's replicates then run GIBU's EM
// and Newton steps from θ̂ mixed with 1% of the uniform distribution
// (warmStart): 1.0–1.07 s a replicate on New York, against 1.44 s from
// the uniform start. Other estimators run again from their own start to
// the same gap; the corrected EM keeps θ̂'s α. A PUM's reports are
// refused: they depend on each user's personal cells, which no estimate
// carries.
//
// Per-cell intervals are the percentile intervals
// [Q_x((1−L)/2), Q_x((1+L)/2)] of the replicates
// (core.BootstrapIntervals). They respect the simplex: a cell whose
// replicates sit at 0 gets an interval from 0. The basic interval
// (θ̂ reflected, 2θ̂ − Q) corrects a bias the percentile interval
// carries. But it covered only 54% of the cells of FW's planar set-up in
// the prototype runs, missing the cells θ̂ puts at 0 while the truth
// does not; the percentile interval covered 95–97%.
//
// On a city the percentile interval fails where θ̂ is 0 too: its
// replicates, drawn from θ̂, keep such a cell at 0 (New York, FW Table 7:
// 70.7% of the one-person cells held). For GIBU's certified MLE,
// core.ZeroEnds raises the upper ends (interval and band) of every cell
// θ̂ puts at 0 to a bound of its profile interval's, by concavity:
// L_p(t) ≤ L(θ̂) + g − t·(1 + g − G_x). So every t above
// (z²/2n + g)/(1 + g − G_x) is outside, with G = ∇L(θ̂), g the certified
// gap, and z at the level (at Šidák's for the band). It takes one
// gradient for the whole map. Of applies it to GIBU's and em's
// bootstrap, and the intervals' sentence says at how many cells
// (Intervals.ZeroEnds).
//
// The simultaneous band is studentised: θ̂_x ± c·s_x, with s_x the
// bootstrap standard error and c the L-quantile over the replicates of
// max_x |θ*_x − θ̂_x|/s_x (Davison & Hinkley 1997, §4.2.5). c is never
// below Šidák's normal quantile Φ⁻¹((1 + L^{1/K'})/2) for the K' cells
// that vary: the quantile of B maxima is noisy, and low where θ̂'s
// standard errors understate the truth's. A cell none of whose
// replicates moves from θ̂ has a band of one point.
//
// The error figures are the L-quantiles over the replicates of
// TV(θ*, θ̂), of max_x |θ* − θ̂| and, on linear alphabets and grids of at
// most 4,096 cells, of the EMD (an exact transport a replicate,
// emd.EMDs on every core). They are read as bounds on the estimate's
// distance to the unknown truth: the bootstrap principle.
//
// # Fisher
//
// core.Fisher (-ci-method fisher) is GIBU's only. It gives Wald
// intervals θ̂_x ± z·√C_xx from the observed information
// J = −n∇²L(θ̂) restricted to the simplex's plane,
// C = J⁻¹ − (J⁻¹1)(J⁻¹1)ᵀ/(1ᵀJ⁻¹1), and the band with Šidák's z, valid
// for a normal vector of any correlation. It is a fast first answer
// where it is valid. It refuses an estimate with a cell at 0 (the
// boundary), a singular information (reports that cannot tell cells
// apart) and alphabets beyond 4,096 symbols (J is formed and factorised
// densely).
//
// # Limits, said wherever intervals are shown
//
// Every method is an approximation. The coverage table
// (docs/EXPERIMENTS.md, coverage) is what they achieve, measured against
// each run's own data: the estimand is the distribution of the data
// set's records, the people drawn in that run. It is measured on the
// cells with people and the empty ones apart, and by people a cell (1,
// 2–4, 5+).
//
// CoverageNote finds where an estimator's intervals by a method
// under-cover on a kind of population: on the cells with people or on
// all cells below 93%, or a band or TV bound holding in fewer runs than
// a binomial test at 95% allows. The Compare screen and estimate -ci say
// so beside the intervals.
//
// The bootstrap draws every report independently, as if from a
// different person. So when a study's people sent several reports
// (people in the study), the intervals are too narrow, and estimate says
// so. The error bounds describe the estimator's variability about θ̂,
// not its bias, which they miss where θ̂ is far smoother or spikier than
// the truth.
package interval
