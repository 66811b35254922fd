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
