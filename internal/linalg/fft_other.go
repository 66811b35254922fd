//go:build !amd64

package linalg

// fastFFT is false off amd64: the butterflies are radix4's Go loops.
const fastFFT = false

func radix4AVX(n int, a0, a1, a2, a3, y0, y1, y2, y3 *complex128, w *[11]float64) {
	panic("linalg: no radix-4 kernel")
}

func radix5AVX(n int, a0, a1, a2, a3, a4, y0, y1, y2, y3, y4 *complex128, w *[17]float64) {
	panic("linalg: no radix-5 kernel")
}

func radix3AVX(n int, a0, a1, a2, y0, y1, y2 *complex128, w *[10]float64) {
	panic("linalg: no radix-3 kernel")
}

func cmulAdd(n int, acc, t, v *complex128) { panic("linalg: no kernel") }

func cmulAdd2(n int, s, a, x, b, y *complex128) { panic("linalg: no kernel") }

func cmul(n int, dst, x, y *complex128) { panic("linalg: no kernel") }

func cmulScaled(n int, dst, x, y *complex128, c *[2]float64) { panic("linalg: no kernel") }
