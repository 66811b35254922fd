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
package core
