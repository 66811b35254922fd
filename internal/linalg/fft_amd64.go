package linalg

import "golang.org/x/sys/cpu"

// fastFFT reports whether radix4AVX's AVX instructions run here.
var fastFFT = cpu.X86.HasAVX2

// radix4AVX computes radix4's butterflies of n (even) terms, two at a
// time, in fft_amd64.s: the same bits as radix4's loop.
//
//go:noescape
func radix4AVX(n int, a0, a1, a2, a3, y0, y1, y2, y3 *complex128, w *[11]float64)

// radix5AVX computes radix5's butterflies of n (even) terms, two at a
// time, in fft_amd64.s: the same bits as radix5's loop.
//
//go:noescape
func radix5AVX(n int, a0, a1, a2, a3, a4, y0, y1, y2, y3, y4 *complex128, w *[17]float64)

// radix3AVX computes radix3's butterflies of n (even) terms, two at a
// time, in fft_amd64.s: the same bits as radix3's loop.
//
//go:noescape
func radix3AVX(n int, a0, a1, a2, y0, y1, y2 *complex128, w *[10]float64)

//go:noescape
func cmulAdd(n int, acc, t, v *complex128)

//go:noescape
func cmulAdd2(n int, s, a, x, b, y *complex128)

//go:noescape
func cmul(n int, dst, x, y *complex128)

//go:noescape
func cmulScaled(n int, dst, x, y *complex128, c *[2]float64)
