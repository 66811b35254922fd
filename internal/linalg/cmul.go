package linalg

// MulAdd sets acc[k] += t[k]·v[k] for k < len(acc) (t and v at least
// as long): the same bits as the loop in Go, two products at a time
// with AVX2.
func MulAdd(acc, t, v []complex128) {
	n := len(acc)
	t, v = t[:n], v[:n]
	if even := n &^ 1; fastFFT && even > 0 {
		cmulAdd(even, &acc[0], &t[0], &v[0])
		acc, t, v = acc[even:], t[even:], v[even:]
	}
	for k := range acc {
		acc[k] += t[k] * v[k]
	}
}

// MulAdd2 sets s[k] += a[k]·x[k] + b[k]·y[k] for k < len(s): the same
// bits as the loop in Go, two at a time with AVX2.
func MulAdd2(s, a, x, b, y []complex128) {
	n := len(s)
	a, x, b, y = a[:n], x[:n], b[:n], y[:n]
	if even := n &^ 1; fastFFT && even > 0 {
		cmulAdd2(even, &s[0], &a[0], &x[0], &b[0], &y[0])
		s, a, x, b, y = s[even:], a[even:], x[even:], b[even:], y[even:]
	}
	for k := range s {
		s[k] += a[k]*x[k] + b[k]*y[k]
	}
}

// Mul sets dst[k] = x[k]·y[k] for k < len(dst): the same bits as the
// loop in Go, two at a time with AVX2.
func Mul(dst, x, y []complex128) {
	n := len(dst)
	x, y = x[:n], y[:n]
	if even := n &^ 1; fastFFT && even > 0 {
		cmul(even, &dst[0], &x[0], &y[0])
		dst, x, y = dst[even:], x[even:], y[even:]
	}
	for k := range dst {
		dst[k] = x[k] * y[k]
	}
}

// MulScaled sets dst[k] = (x[k]·c)·y[k] for k < len(dst): the same bits
// as the loop in Go, two at a time with AVX2.
func MulScaled(dst, x []complex128, c complex128, y []complex128) {
	n := len(dst)
	x, y = x[:n], y[:n]
	if even := n &^ 1; fastFFT && even > 0 {
		cc := [2]float64{real(c), imag(c)}
		cmulScaled(even, &dst[0], &x[0], &y[0], &cc)
		dst, x, y = dst[even:], x[even:], y[even:]
	}
	for k := range dst {
		dst[k] = x[k] * c * y[k]
	}
}
