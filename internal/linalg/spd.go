package linalg

import (
	"context"
	"errors"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// ErrNotPositiveDefinite is InvertSPD's error for a matrix that is not
// numerically positive definite.
var ErrNotPositiveDefinite = errors.New("linalg: matrix is not positive definite")

// spdBlock is the block size of InvertSPD's three sweeps, spdRows the
// height of the block rows of Cholesky's trailing updates.
const (
	spdBlock = 128
	spdRows  = 512
)

// InvertSPD replaces the n×n symmetric positive definite matrix a
// (row-major, its lower triangle read) by its inverse, both triangles
// written. It is LAPACK's Dpotrf followed by Dpotri, blocked by rows so
// that nearly all the n³ multiply-adds are gonum's matrix products
// (blas64.Gemm, on every core) and ctx is checked between blocks:
//
//  1. a = LLᵀ, right-looking: each panel of columns is factored and the
//     trailing lower triangle updated by products of block rows;
//  2. W = L⁻¹ by block rows from the top: W_II = L_II⁻¹ and
//     W_IJ = −W_II Σ_{J≤K<I} L_IK W_KJ, the rows above already W;
//  3. a⁻¹ = WᵀW by block rows from the top: row block I is
//     Σ_{K≥I} W_KIᵀ W_K,0..I, which reads only rows not yet written.
//
// Written here because lapack64.Potrf and Potri cannot be cancelled
// and run at gonum's pure-Go speed: on New York's 9,024 cells they take
// 3.5 minutes, this takes seconds with Gemm's kernel (docs/PERFORMANCE.md).
// progress, when not nil, is called with the fraction done.
func InvertSPD(ctx context.Context, a []float64, n int, progress func(float64)) error {
	if len(a) != n*n {
		panic("linalg: InvertSPD: slice length mismatch")
	}
	report := func(f float64) {
		if progress != nil {
			progress(f)
		}
	}
	blocks := (n + spdBlock - 1) / spdBlock
	step := 0
	next := func() error {
		step++
		report(float64(step) / float64(3*blocks))
		return ctx.Err()
	}
	if err := cholesky(a, n, next); err != nil {
		return err
	}
	for i := range n {
		clear(a[i*n+i+1 : (i+1)*n])
	}
	if err := lowerInverse(a, n, next); err != nil {
		return err
	}
	if err := gramOfLower(a, n, next); err != nil {
		return err
	}
	for i := range n {
		for j := range i {
			a[j*n+i] = a[i*n+j]
		}
	}
	return nil
}

// sub returns the r×c block of the n×n row-major a at row i, column j.
func sub(a []float64, n, i, j, r, c int) blas64.General {
	return blas64.General{Rows: r, Cols: c, Stride: n, Data: a[i*n+j:]}
}

// lowerBlock returns the b×b lower triangle of a at (i, i).
func lowerBlock(a []float64, n, i, b int) blas64.Triangular {
	return blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: b, Stride: n, Data: a[i*n+i:]}
}

// spdChunk is the number of rows or columns of a block's work given to a
// core at a time.
const spdChunk = 256

// Chunked calls f(lo, hi) on ranges of at most 256 of [0, n), on every
// core: the independent column or row ranges of a matrix product.
func Chunked(n int, f func(lo, hi int)) {
	Each((n+spdChunk-1)/spdChunk, func(i int) { f(i*spdChunk, min(n, (i+1)*spdChunk)) })
}

// cholesky overwrites the lower triangle of a with L, a = LLᵀ.
func cholesky(a []float64, n int, next func() error) error {
	for j0 := 0; j0 < n; j0 += spdBlock {
		jb := min(spdBlock, n-j0)
		if _, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Lower, N: jb, Stride: n, Data: a[j0*n+j0:]}); !ok {
			return ErrNotPositiveDefinite
		}
		rest := n - j0 - jb
		if rest > 0 {
			l11 := lowerBlock(a, n, j0, jb)
			Chunked(rest, func(lo, hi int) {
				blas64.Trsm(blas.Right, blas.Trans, 1, l11, sub(a, n, j0+jb+lo, j0, hi-lo, jb))
			})
			// The trailing lower triangle, a block row of spdRows at a
			// time (with its diagonal block whole: the upper triangle is
			// not read); each packs the panel's columns it needs once.
			Each((rest+spdRows-1)/spdRows, func(b int) {
				i0 := j0 + jb + b*spdRows
				ib := min(spdRows, n-i0)
				w := i0 + ib - j0 - jb
				Gemm(blas.NoTrans, blas.Trans, -1, sub(a, n, i0, j0, ib, jb), sub(a, n, j0+jb, j0, w, jb), 1, sub(a, n, i0, j0+jb, ib, w))
			})
		}
		if err := next(); err != nil {
			return err
		}
	}
	return nil
}

// lowerInverse overwrites the lower triangular L in a (zero above the
// diagonal) with W = L⁻¹.
func lowerInverse(a []float64, n int, next func() error) error {
	t := make([]float64, spdBlock*n)
	for i0 := 0; i0 < n; i0 += spdBlock {
		ib := min(spdBlock, n-i0)
		// T = Σ_K L_IK W_KJ for every J < I, spdRows columns at a time
		// so that few of the zeros above W's diagonal are multiplied.
		Each((i0+spdRows-1)/spdRows, func(b int) {
			j0 := b * spdRows
			jb := min(spdRows, i0-j0)
			Gemm(blas.NoTrans, blas.NoTrans, 1, sub(a, n, i0, j0, ib, i0-j0), sub(a, n, j0, j0, i0-j0, jb), 0, sub(t, n, 0, j0, ib, jb))
		})
		wii := lowerBlock(a, n, i0, ib)
		if !lapack64.Trtri(wii) {
			return ErrNotPositiveDefinite
		}
		Chunked(i0, func(lo, hi int) {
			blas64.Trmm(blas.Left, blas.NoTrans, -1, wii, sub(t, n, 0, lo, ib, hi-lo))
		})
		for r := range ib {
			copy(a[(i0+r)*n:(i0+r)*n+i0], t[r*n:r*n+i0])
		}
		if err := next(); err != nil {
			return err
		}
	}
	return nil
}

// gramOfLower overwrites the lower triangular W in a (zero above the
// diagonal) with the lower triangle of WᵀW.
func gramOfLower(a []float64, n int, next func() error) error {
	t := make([]float64, spdBlock*n)
	for i0 := 0; i0 < n; i0 += spdBlock {
		ib := min(spdBlock, n-i0)
		wi := sub(a, n, i0, i0, n-i0, ib)
		Chunked(i0+ib, func(lo, hi int) {
			Gemm(blas.Trans, blas.NoTrans, 1, wi, sub(a, n, i0, lo, n-i0, hi-lo), 0, sub(t, n, 0, lo, ib, hi-lo))
		})
		for r := range ib {
			copy(a[(i0+r)*n:(i0+r)*n+i0+r+1], t[r*n:r*n+i0+r+1])
		}
		if err := next(); err != nil {
			return err
		}
	}
	return nil
}
