//go:build !amd64

package linalg

// fastKernel is false off amd64: Gemm is blas64.Gemm.
const fastKernel = false

func kernel6x8(k int, a, b, c *float64, ldc int) { panic("linalg: no kernel") }
