// Package linalg holds the numerical kernels that privmap's estimators
// and metrics share and that know nothing of mechanisms: restarted GMRES
// for matrix-free inversions (FW eq. (7) on large alphabets), the
// Euclidean projection onto the probability simplex (FW §5.2's
// post-processing), cyclic 2-D convolution by FFT (the planar geometric
// channel, FW §2.3) and a parallel loop over independent work items.
//
// Each is written here, not taken from a library, for the reason given
// in its doc comment; see docs/ARCHITECTURE.md for where the package
// sits among privmap's layers.
package linalg
