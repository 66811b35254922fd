package linalg

import "golang.org/x/sys/cpu"

// fastKernel reports whether kernel6x8's AVX2 and FMA instructions run
// here.
var fastKernel = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// kernel6x8 adds Σ_p a[6p+i]·b[8p+j] to c[i·ldc+j] for i < 6, j < 8, over
// p < k (k ≥ 1): one tile of Gemm, in gemm_amd64.s.
//
//go:noescape
func kernel6x8(k int, a, b, c *float64, ldc int)
