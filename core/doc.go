// Package core holds the mathematics of privmap: alphabets, local privacy
// mechanisms, estimators and metrics. It works on integer symbols 0..K−1
// and knows nothing of geography, files' paths, flags or the user
// interface: package geo maps places to symbols, package app/pipeline runs the
// pipeline, and packages app/cli and app/gui are its front ends (see
// docs/ARCHITECTURE.md).
//
// # The path of a report
//
// A study (Study, read by ReadStudy) names an Alphabet and the mechanisms
// the users may choose (MechanismSpec). NewMechanism builds each as a
// Mechanism; Simulate or SimulateData sanitise the users' data with them,
// reports are grouped by mechanism and report (Groups, the only input an
// estimator needs, FW §6), Reconstruct runs a Method on the groups, and
// core/emd's Compare measures the Estimate against the truth.
//
// # Where things are
//
//	concept                                   file
//	alphabets, ground distance                alphabet.go, attributes.go
//	study files (JSON), mechanism specs       study.go, studyjson.go,
//	  strict JSON keys                        jsonkeys.go
//	sensitive symbol lists ("5, 17, 20-25")   symbols.go
//	presets of the papers' populations        presets.go
//	the registry of mechanism kinds (Kind)    kinds.go
//	Mechanism, building and drawing           mechanism.go
//	every capability a mechanism may offer    capabilities.go
//	  (Channel, BitChannel, Sampler,
//	  BitSampler, Personalized, …)
//	reports and bit vectors                   report.go
//	k-RR                                      krr.go
//	RAPPOR                                    rappor.go
//	optimised unary encoding (OUE)            oue.go
//	Hadamard response (HR)                    hr.go
//	linear geometric                          geometric.go
//	planar geometric (FFT convolution)        planar.go,
//	  its border's edges by FFT               planar_edge.go
//	  several sharing their transforms        planar_batch.go
//	Shokri's optimal mechanism (LP)           shokri.go
//	uRR, uRAP                                 urr.go, urappor.go
//	PUM                                       pum.go
//	identity (ε = ∞)                          identity.go
//	privacy audit of a channel                audit.go
//	simulation, assignment by shares          simulate.go
//	grouped reports, reports files            groups.go, csv.go
//	counts tables (a cluster's reports)       counts.go, decimal.go
//	distribution files                        distribution.go
//	the registry of estimators (Estimator)    estimators.go
//	which estimators apply to a population    applicable.go
//	Reconstruct, options, log-likelihood      estimate.go
//	GIBU / EM (with SQUAREM)                  gibu.go
//	Newton's method near the MLE (dense on    gibu_newton.go,
//	  the free face, or conjugate gradients,  gibu_face.go,
//	  preconditioned)                         gibu_precond.go
//	[IBU]_M                                   ibu.go
//	[INV]_M                                   inv.go
//	[RAP]_M                                   rap.go
//	[e]_R (per mechanism, averaged)           estimate_permechanism.go
//	corrected EM                              cem.go
//	ULDP empirical estimators                 uldp.go
//	post-processing onto the simplex          post.go
//	intervals: the parametric bootstrap,      bootstrap.go,
//	  percentile intervals and the band,      interval.go,
//	  the observed Fisher information         fisher.go
//	memory checks before large work           memory*.go
//
// Its leaves live in packages of their own: core/emd holds the metrics
// (MSE, JSD, TV) and the exact EMD (transportation simplex), core/central
// the central release's noises (Laplace, geometric and their piecewise
// mixtures, their budgets, exact integer noise from crypto/rand), and
// internal/linalg the numerical kernels (GMRES, simplex projection, FFT
// convolution, the parallel loop, a subnormal-safe logarithm).
//
// # Equations of the papers
//
//	FW eq. (1)            k-RR                          KRR.Prob, KRR.MLE
//	FW eq. (2)–(3)        truncated linear geometric    Geometric.Prob
//	FW §2.3               planar geometric              PlanarGeometric
//	FW eq. (4)–(5)        [e]_R                         PerMechanism
//	FW eq. (6)–(7)        q[n], A[n], [INV]_M           INVM
//	FW eq. (8)–(9)        [INV]_M under k-RR            INVM (by the matrix)
//	FW eq. (10)           IBU                           IBUM, GIBU (one mechanism)
//	FW §5.3               [IBU]_M                       IBUM
//	FW eq. (12)           basic one-time RAPPOR         RAPPOR
//	FW eq. (13)–(14)      [RAP]_M                       RAPM
//	FW eq. (15), Alg. 1   GIBU                          GIBU
//	FW §8.2.4             Shokri's mechanism            SolveShokri
//	CEM eq. (2)           squared error                 emd.SquaredError
//	CEM eq. (8)           Jensen–Shannon divergence     emd.JSD
//	CEM eq. (14), Alg. 1  EM reconstruction             GIBU
//	CEM eq. (22)–(24)     s_n and its derivatives       CorrectedEM (cem_bias.go)
//	CEM eq. (25)–(32)     bias â₋₁, Tikhonov λ          CorrectedEM (cem_bias.go)
//	CEM Alg. 2, §4.3      corrected EM, α by simulation CorrectedEM
//	ULDP §2.5             empirical estimate, threshold ULDPEstimate
//	ULDP Def. 3, §4.1     uRR                           URR
//	ULDP Def. 4, §4.2     uRAP                          URAP
//	ULDP §5               PUM and its estimate          PUM, ULDPEstimate
//	PM eq. (4)–(5)        Laplace mechanism             central.NewLaplaceNoise
//	PM eq. (7)            geometric mechanism           central.NewGeometricNoise
//	PM eq. (11)–(16)      Laplace mixture, Alg. 1       central.LaplaceMixture
//	PM eq. (21)–(30)      geometric mixture, Alg. 2     central.GeometricMixture
//	PM eq. (32)–(35)      general privacy budget        central.GeometricMixture.Budget,
//	                                                    central.Rounded.Budget
//
// docs/ARCHITECTURE.md restates the formulas whose text the papers'
// copies lost (uRR, uRAP, PUM).
//
// # References
//
//   - FW: E. ElSalamouny and C. Palamidessi, "Reconstruction of the
//     distribution of sensitive data under free-will privacy", 2022.
//   - CEM: T. Murakami, H. Hino and J. Sakuma, "Toward distribution
//     estimation under local differential privacy with small samples",
//     Proceedings on Privacy Enhancing Technologies 2018(3),
//     doi:10.1515/popets-2018-0022.
//   - ULDP: T. Murakami and Y. Kawamoto, "Utility-optimized local
//     differential privacy mechanisms for distribution estimation",
//     USENIX Security 2019, arXiv:1807.11317.
//
// # Randomness
//
// Simulation randomness is seeded math/rand/v2, which makes experiments
// repeatable and is not fit for collecting real data: a collection client
// would need crypto/rand and floating-point-safe noise samplers (see
// Mironov, "On significance of the least significant bits for differential
// privacy", CCS 2012). Nothing in this package is such a client.
//
// # Its layer
//
// Core works on integer symbols 0..K−1. It knows no file paths, no
// flags and no geography: a grid is only `cols × rows` cells of a side in
// km. `core/doc.go` lists which file holds which concept; files that
// belong together sort together (`gibu.go`, `gibu_newton.go`,
// `gibu_face.go`, `gibu_precond.go`; `planar.go`, `planar_edge.go`,
// `planar_batch.go`). Its kinds of mechanisms and its estimators are
// registries ("Mechanisms" and "Estimators" below). Its leaves are packages of their own, which core
// does not import: `core/emd` (metrics and the exact transport, which
// need core's alphabets) and `core/central` (the central release's
// noises, which need nothing of core); the numerical kernels that core
// and its leaves share, knowing nothing of mechanisms, are
// `internal/linalg` (restarted GMRES, the simplex projection, cyclic 2-D
// convolution by its own FFT (`fftPlan`: Stockham, radix 4/2/3/5, a batch
// of columns and a batch of row pairs at once, the radix-4/3/5
// butterflies and the spectra's products (`Mul`, `MulScaled`, `MulAdd`,
// `MulAdd2`) in AVX assembly on amd64 giving the same bits as their Go
// loops, which run elsewhere; `RealFFT` with its batches), the matrix
// product `Gemm` (a 6×8
// AVX2/FMA kernel in assembly on amd64, gonum's Dgemm elsewhere), the
// blocked, cancellable inverse of a symmetric positive definite matrix
// `InvertSPD`, the parallel loop, a subnormal-safe logarithm).
// What the application writes into a study (`source`, `run`) is the
// application's: `studyfile.ApplicationMembers`, passed to `core.ReadStudy`.
//
// Capabilities are small interfaces declared in `core/mechanism.go` and
// asked for where they are used: `Channel` (symbol outputs with their
// probabilities), `BitChannel` (independent bits), `Sampler` and
// `BitSampler` (drawing a report), `Personalized` (PUM's pre-mapping of a
// user's own sensitive data). `NewMechanism` refuses a mechanism that can
// draw no report, so a study file cannot reach a panic.
//
// # Mechanisms
//
// A[x][z] = P(z | x). Planar ε is per kilometre (distances in km between
// cell centres), linear ε per unit step; ε = ∞ is the identity (CEM §5.1).
//
// Every kind is one record, a `core.Kind`, declared in the kind's file
// beside its mechanism and listed once in `core/kinds.go`'s
// `kindRegistry`, in the order of this section: its name in study files,
// the alphabets it takes, its privacy parameter (ε, Shokri's Q, or none)
// and that parameter's name and units on an alphabet (`LevelName`: "ε per
// km" for planar, "ε per step" for linear geometric, "Q (km)" for
// Shokri), whether it takes sensitive symbols or personal tags (and the
// tags a new one protects), the capabilities of its reports that
// estimators ask for (`Caps`), whether its ε is a nominal
// geo-indistinguishability level the audit should read back, whether its
// channel is a convolution or is solved by a linear program (for the cost
// model), and its builder. The study reader and validation, `NewMechanism`,
// the presets, the Population screen (its kinds, which fields a row takes,
// the nominal level beside the audit), figures' headers
// (`guarantee.MechanismLevel`) and the cost model read it.
//
// What simulation, the estimators and the audit ask of a mechanism beyond
// `Mechanism` is declared in one file, `core/capabilities.go`, one
// interface each with its comment (`Channel`, `BitChannel`, `Sampler`,
// `BitSampler`, `Personalized`, and the unexported fast paths: matrix-free
// `operator`, `squarer`, `worker`, `closedFormer`, `bitFlipper`,
// `empirical`, …), and checked by asserting the interface, never a
// concrete type: a mechanism's fast path (a planar channel's FFT work and
// squared tables, k-RR's closed-form MLE) is a method in its own file.
//
// # Adding a mechanism kind
//
// Write its file in `core` (say `core/laplace2d.go`): the mechanism with
// `Inputs`, `Likelihood` and the capabilities it has (a `Channel` and a
// `Sampler` for symbol outputs), its `MechanismKind` constant and its
// record,
//
//	const KindLaplace2D MechanismKind = "laplace-2d"
//
//	var laplace2DKind = Kind{Name: KindLaplace2D, Alphabets: []AlphabetKind{KindGrid},
//		Param: ParamEpsilon, GeoLevel: true,
//		build: func(_ context.Context, s MechanismSpec, a Alphabet, _ func(int, float64)) (Mechanism, error) {
//			m, err := NewLaplace2D(a.Cols, a.Rows, a.CellKm, s.Epsilon)
//			return m, err
//		}}
//
// and add `&laplace2DKind` to `kindRegistry` in `core/kinds.go` (a kind
// whose channel is off·11ᵀ + diff·I says `TwoValued` and gives its two
// values by `channel()`, for corrected EM's bias correction). Study
// files, validation, simulation, every estimator that applies, the audit,
// the Population screen and the cost model follow; `TestKindCaps`,
// `TestEveryKindDraws` and `TestApplicable` test the new kind without a
// line of their own.
//
//   - **k-RR**: FW eq. (1), `core.KRR`.
//   - **RAPPOR** (basic one-time): FW eq. (12), each bit kept with probability
//     e^{ε/2}/(1+e^{ε/2}); a report is a K-bit vector, and P(v|x) ∝
//     r^{2v_x−1} with r = e^{ε/2}, so one report's likelihood costs O(K) and
//     the 2^K matrix is never built. `core.RAPPOR`.
//   - **Optimised unary encoding (OUE)**: Wang, Blocki, Li and Jha, USENIX
//     Security 2017, §4.3: the datum's bit reported 1 with probability ½,
//     every other bit with 1/(e^ε+1); a K-bit report whose likelihood,
//     as RAPPOR's, depends on x through v_x alone (O(K) a column). Exactly
//     ε-LDP. `core.OUE`.
//   - **Hadamard response (HR)**: Acharya, Sun and Zhang, AISTATS 2019, §3,
//     in its one-block form: with K' the smallest power of two above K,
//     symbol x owns the outputs y where row x+1 of Sylvester's Hadamard
//     matrix is +1, and reports one of them with probability
//     e^ε/(e^ε+1), else one of the others, each uniformly. A report is one
//     of K' symbols (`Kind`'s outputs), so the inversion estimators, which
//     need a square channel, refuse it; exactly ε-LDP, and no quality loss
//     (its outputs are not cells). `core.HR`.
//   - **Truncated linear geometric**: FW eq. (2)–(3), `core.Geometric`.
//   - **Planar geometric**: FW §2.3. On the infinite lattice of cell centres
//     P(g|x) = λ e^{−ε d(x,g)}; an output outside the grid is moved to the
//     nearest grid cell (each coordinate clamped). That is post-processing
//     and keeps ε-geo-indistinguishability; resampling until inside would
//     change the guarantee. The lattice is summed out to the grid's extent
//     plus the radius at which the tail is below 1e−15 of the mass
//     (`latticeTail`), so that every border cell's half-line or quadrant sum
//     keeps 1e−15 of its own value: summed only to that radius, far border
//     cells lost their terms (probability 0 from far inputs on city grids)
//     and the channel its ε-geo-indistinguishability; the audit now reads the
//     nominal ε back. The channel is a convolution except
//     at the border: an interior output collects one offset, a border output
//     a half-line of offsets, a corner a quadrant. It is applied by one FFT
//     of the interior on a (2m+1)² torus (m = max(rows, cols) − 1) plus the
//     half-line and quadrant sums kept in tables, exactly and whatever the
//     lattice radius; grids thinner than 3 cells use the FFT on the lattice
//     padded by its radius. `core.PlanarGeometric`. On large grids the
//     edges' half-line sums, which cost rows·cols² by dot products, are taken
//     as convolutions along the rows and columns by FFT (the tail tables'
//     spectra are kept; `core/planar_edge.go`). Several planar
//     mechanisms of one grid share the torus: GIBU transforms θ once for all
//     of them and sums their adjoints in the frequency domain (2J + 2
//     transforms for J mechanisms instead of 4J, `core/planar_batch.go`)
//     whenever a mechanism's likelihood columns (groups × K entries) would
//     pass 4M entries or cost more than its two transforms (`costlier`: on
//     New York at 1 km, 1,800 groups × 2,256 cells against 1.2M
//     multiply-adds, GIBU 0.36 s instead of 5.9 s in columns), and
//     [IBU]_M's average channel Σ_A w_A A is itself one bordered convolution
//     with the weighted sums of their tables. Its tables and torus grow
//     with the square of the grid's longer side (about 120·side² bytes):
//     grids longer than `MaxPlanarSide` = 2,048 cells a side, and lattices
//     wider than `MaxLatticeRadius` = 2,000 (ε·s below 0.024), are refused
//     before anything is allocated, with what they would need. Every
//     alphabet is at most `core.MaxSymbols` = 2²⁴ symbols, checked before
//     cols × rows is multiplied.
//   - **Shokri et al.**: FW §8.2.4, the linear program maximising the
//     adversary's expected error subject to expected quality loss ≤ Q, prior
//     uniform, loss = distance. As the adversary may guess the observation
//     itself, erring by the quality loss, Q bounds the optimum and a channel
//     reaching it is certified optimal at once. `core.SolveShokri`. As she
//     may also ignore the observation and guess the symbol z* nearest on
//     average, P = min_z mean_x d(x, z) bounds it too: when Q ≥ P the bound
//     cannot bind, and the channel that reports z* whatever the input
//     (loss P, privacy P) is returned certified without iterating
//     (`Shokri.Blind`). Its reports tell nothing, so the estimators that
//     invert it alone (inv, inv-r, and inv-m on such mechanisms only) are
//     refused, before the run by `Study.Applicable` (`core.ShokriBlind`)
//     and by `Reconstruct`, in the same words.
//   - **uRR** (ULDP Def. 3). X_S ⊆ X sensitive, X_N = X∖X_S; outputs Y = X
//     with protected Y_P = X_S and invertible Y_I = X_N. With
//     D = |X_S| + e^ε − 1:
//     A[x][x] = e^ε/D (x ∈ X_S); A[x][y] = 1/D (x ∈ X_S, y ∈ X_S∖{x});
//     A[x][y] = 1/D (x ∈ X_N, y ∈ X_S); A[x][x] = (e^ε−1)/D (x ∈ X_N);
//     0 otherwise. Empirical estimator from report frequencies f:
//     p̂(x) = (f(x)D − 1)/(e^ε−1) on X_S, f(x)D/(e^ε−1) on X_N. `core.URR`.
//   - **uRAP** (ULDP Def. 4). K-bit output, bits independent given x, with
//     θ = e^{ε/2}/(e^{ε/2}+1): sensitive bit j is 1 with probability θ if
//     x = j, else 1−θ; non-sensitive bit j is 1 with probability 1 − e^{−ε/2}
//     if x = j, else 0. Protected outputs are those whose non-sensitive bits
//     are all 0. Empirical estimator from bit frequencies f_j:
//     (f_j − (1−θ))/(2θ−1) on X_S, f_j/(1−e^{−ε/2}) on X_N. `core.URAP`.
//   - **PUM** (ULDP §5). Each user also has personal sensitive data X_S^(i)
//     (e.g. her home cell) under κ semantic tags ⊥_1..⊥_κ. She first maps
//     x ∈ X_S^(i) with tag k to ⊥_k, then applies a uRR or uRAP common to
//     everyone on X ∪ {⊥_1..⊥_κ} with sensitive set X_S ∪ {⊥_1..⊥_κ}. The
//     collector estimates r̂ on the extended alphabet and returns each tag's
//     mass to the cells by a background distribution π_k:
//     p̂(x) = r̂(x) + Σ_k r̂(⊥_k) π_k(x). The section's text is lost from the
//     copy of the paper we hold; this is built from its abstract and
//     introduction. `core.PUM`.
//
// Every mechanism can prove its guarantee numerically (`core.AuditMechanism`):
// the worst ε-LDP ratio over its channel (ULDP mechanisms: over the
// protected outputs, with a check that every invertible output has one
// possible input), ε-geo-indistinguishability per km or per step, and the
// expected quality loss. The geo-indistinguishability scan is O(K³) in
// general (O(K²) for few-valued channels such as k-RR); beyond 4·10⁹
// operations a map gets certified bounds from neighbouring cells instead
// (exact on a line; within √(4−2√2) ≈ 1.082 on a grid, the longest
// 8-neighbour path over the straight distance), shown as bounds.
//
// The audit is exact at every ε, not only at the levels people use
// (`core/audit_eps_test.go` checks every kind from ε = 10⁻³ to 700, and
// samples reports of neighbouring inputs against the audited level with a
// Hoeffding confidence bound). Probabilities are formed without
// cancellation: k-RR's other output as keep·e^{−ε} = 1/(e^ε + K − 1), not
// (1 − keep)/(K − 1); RAPPOR's and uRAP's bits in log space
// (ln p = −softplus(−ε/2), ln(1−p) = −softplus(ε/2)), so their likelihoods
// neither overflow nor cancel; ratios are differences of logarithms, never
// quotients that overflow; and logarithms go through `linalg.Log` (`internal/linalg`), because
// Go's `math.Log` on amd64 misreads subnormal numbers (golang/go#56600:
// ln(5e−324) comes out as −709.09 instead of −744.44). When a probability
// that a mechanism's formula makes positive still underflows to 0 in
// float64 (the geometric mechanism's e^{−ε(K−1)} past ε(K−1) ≈ 745, a
// planar kernel across a wide map at a large ε), the ratio is truly
// infinite in the channel privmap samples and estimates with, and the
// audit says so: `Audit.Underflow`, shown as "∞ (underflows at ε = …)"
// rather than "some output is impossible".
//
// # Estimators
//
// Groups (A, z, c); n = Σc; g = the column A[·][z].
//
// Every estimator is one record, a `core.Estimator`, declared in its own
// file beside its algorithm and listed once in `core/estimators.go`'s
// `registry`: its name (`-method`), its title and one line of help for the
// window, whether it is for one mechanism's users (`Single`) or averages
// per mechanism (`PerMechanism`), the capabilities of the mechanisms'
// reports it needs and refuses (`Needs`, `Refuses`, against each kind's
// `Kind.Caps`), whether its estimates carry a certified gap (`Certified`)
// or a correction weight (`Alpha`), the shape of its work for the cost
// model (`Cost`: EM steps over every mechanism, on the average channel or
// per mechanism; an inversion; a pass), and its run function.
// `core.Reconstruct`, `core.Methods`, `privmap estimate`'s help,
// `pipeline.EstimateCost`, the Run screen's list and the Compare screen's
// titles all read it.
//
// Which estimator can take which reports is decided once, from the
// capabilities the mechanisms' kinds declare: `core.Study.Applicable`
// (PUM reports, `CapPersonal`, only by ULDP; IBU, INV and RAP on one
// mechanism; inversions and [IBU]_M refuse bit vectors, `CapBits`; RAP
// needs basic RAPPOR, `CapRAPPOR`; ULDP needs a utility-optimized
// mechanism, `CapUtility`) says why in the words `Reconstruct` fails with.
// `core/applicable_test.go` holds the two together on every method and on
// populations of every registered kind (alone, in pairs, on a grid and on
// a line), and `core/kinds_test.go` holds each kind's declared
// capabilities to the interfaces its built mechanism satisfies. The window
// disables what does not apply before a run, with the reason.
//
// # Adding an estimator
//
// Write its file in `core` (say `core/median.go`): the algorithm, its
// `Method` constant and its record,
//
//	const MethodMedian Method = "median"
//
//	var medianEstimator = Estimator{Method: MethodMedian, Title: "Median", Help: "…",
//		Refuses: CapPersonal | CapBits, Cost: CostInversion,
//		run: func(e *estimation) (*Estimate, error) { return closed(median(e.mechs, e.g)) }}
//
// and add `&medianEstimator` to `registry` in `core/estimators.go`. That
// is all: `privmap estimate -method median`, the Run screen's check box,
// the cost warning, Applicable's reasons and the Compare screen follow. A
// new capability (a new kind of report) is one more `Caps` bit in
// `core/kinds.go` with its reason in `core/applicable.go`.
//
//   - **GIBU** (FW Algorithm 1; CEM's EM, eq. (14), with per-user channels):
//     θ ← θ ⊙ (1/n) Σ_groups c · g / (θ·g), accelerated by SQUAREM without
//     ever lowering the likelihood; structured channels are applied as
//     operators, θ ← θ ⊙ Σ_A (n^A/n) A(q^A ⊘ θA). Each step also gives the
//     gradient G = ∇L(θ), and since L is concave and Σθ_x G_x = 1, the gap
//     max_x G_x − 1 bounds how far the MLE's log-likelihood lies above θ's:
//     the estimate is *converged* only when that certified gap is within its
//     tolerance (default 1e−11 nats per report). Near the MLE, where EM
//     crawls, a projected, damped Newton method on the free face of the
//     simplex finishes the job (`core/gibu_newton.go`): with the Hessian formed
//     on the free face and factorised when that costs less than the
//     conjugate gradients it replaces (`core/gibu_face.go`: XXᵀ from the
//     mechanisms' entries, Prob, of the reports on the face, by blocked
//     general products; near the MLE of a wide planar kernel the face is a
//     few hundred symbols of thousands), the face's Hessian kept, extended
//     to symbols that enter the face, and used to precondition the steps at
//     later points; else by preconditioned conjugate gradients on Hessian
//     products (two operator applications a product; the preconditioner is
//     the geometric mean of EM's own metric diag(θ) and the inverse of the
//     Hessian's diagonal, which the squared channels give exactly: a planar
//     channel's entrywise square is the bordered product of its squared
//     tables, `core/gibu_precond.go`). k-RR's closed-form MLE (water-filling,
//     `KRR.MLE`) is the test oracle. `core.GIBU`.
//   - **IBU** = GIBU with one mechanism; **[IBU]_M**: IBU on the users'
//     average matrix A[n] (FW §5.3), `core.IBUM`.
//   - **[INV]_M**: θ̂ = q A[n]⁻¹ (FW eq. 7), then a `core.Post`: Euclidean
//     projection onto the simplex (Wang & Carreira-Perpiñán), clip and
//     renormalise, or none. **INV** is one mechanism. `core.INVM`. Up to
//     4,096 symbols A[n] is factorised densely (LU, with its condition
//     number); beyond, θ A[n] = q is solved by restarted GMRES on A[n]
//     applied matrix-free (`internal/linalg/gmres.go`) to a relative residual of
//     1e−10, and refused when that is not reached in 5,000 products. The
//     linear geometric channel is applied in O(K) by two first-order
//     recursions (`Geometric.MulVecTo`).
//   - **[e]_R**: e per mechanism, averaged by n^A/n (FW eq. 4–5),
//     `core.PerMechanism`.
//   - **[RAP]_M**: FW eq. (13)–(14), `core.RAPM`.
//   - **Corrected EM** (CEM Algorithm 2): θ̃ = θ̂ − α â₋₁ with â₋₁ of CEM
//     eq. (28)–(32), λ = 1e−3, then clip and renormalise; α from
//     {0} ∪ {c·10^{−k}: c = 1..9, k = 1..10} by simulation (CEM §4.3); θ̂ is
//     GIBU's (its model, operators for the planar users). α = 0, no
//     correction, is in the grid so that the choice can keep EM's estimate
//     where every correction loses (on New York through FW Table 7's
//     mechanisms the paper's grid alone chose its top, 0.9, and an EMD 17
//     times GIBU's). The simulation draws `-alpha-sims` data sets (default
//     3, `core.DefaultCEMSims`; their squared errors averaged) from θ̂ — a
//     parametric bootstrap, the default — or with `-alpha-from reports`
//     from the reports' pooled frequencies as CEM §4.3 writes it for k-RR
//     (for a planar mechanism that is the smeared map). The estimate
//     carries the simulations' mean squared errors with the chosen α and
//     with none (`alpha_loss`, `em_loss`); `pipeline.AlphaNote` says them on
//     stderr and the Compare screen, and when α = 0 wins, that the map is
//     EM's. Differentiating eq. (23)
//     gives ∇²s_n = 2 g⊗g⊗g/(p·g)³; the paper prints eq. (24) and (61)
//     without the 2. The exact derivative is the default and the printed
//     form is selectable. `core.CorrectedEM`.
//     The bias correction goes by the structure of the channels, not by one
//     dense likelihood column per report group (`core/cem_bias.go`,
//     `core/cem_shares.go`): every group is an output z of one mechanism, so
//     Ŝ = (1/N) Σ c_z a_z a_zᵀ/q_z² and the quadratic forms t1 = a_zᵀQ̃a_z,
//     t2 = ‖Q̃a_z‖² (Q̃ = (Ŝ + λI)⁻¹ = −Q̂) are sums over channels; with
//     Q̂ŜQ̂ = −Q̂ − λQ̂², CEM's s_zᵀBs_z = N(t1 − λt2)/q_z². Three shares:
//     two-valued channels (`Kind.TwoValued`: k-RR, the identity; O(K²) from
//     Q̃'s diagonal, Q̃1 and Q̃²1), planar geometric users as operators (Ŝ a
//     column per input by one batch of adjoint products; t1, t2 from the
//     forward products of Q̃'s rows), and every other channel by its
//     likelihood columns, made on each pass and multiplied in blocks of 64
//     with `linalg.Gemm`. One K×K matrix (650 MB at New York's 9,024 cells)
//     is formed, inverted in place by `linalg.InvertSPD` and reused for the
//     simulation's correction; `TestBiasCorrectionStructured` holds the
//     result to the dense evaluation over groups (its oracle, in the tests)
//     to 1e−10.
//   - **ULDP empirical** estimators of the mechanisms above, with clip and renormalise and
//     optionally ULDP §2.5's significance threshold, `core.ULDPEstimate`.
package core
