package linalg

import (
	"math"
	"sync"
)

// fftPlan is a complex FFT of one length n whose prime factors are 2, 3
// and 5 (Smooth), by Stockham's autosort algorithm (decimation in
// frequency, radix 4, 2, 3 and 5 stages, ping-ponging between the data
// and a work array; Van Loan, "Computational Frameworks for the Fast
// Fourier Transform", SIAM 1992, §1.7). It transforms a batch of
// sequences stored interleaved, x[t·batch + b] being term t of sequence
// b: every stage's inner loop then runs over contiguous memory, which is
// how Conv2 transforms the columns of a row-major array all at once.
// Written here because gonum's FFTPACK port transforms one strided
// sequence at a time through accessor functions: on the planar
// mechanisms' 192×192 torus it spent 85% of a product in them, three to
// four times this (docs/PERFORMANCE.md).
type fftPlan struct {
	n      int
	radix  []int
	twid   [][]complex128 // per stage: w^j for j = 1..r−1 of each p, forward
	stages int
}

var fftPlans sync.Map // n → *fftPlan

// planFFT returns the plan of length n, made once.
func planFFT(n int) *fftPlan {
	if p, ok := fftPlans.Load(n); ok {
		return p.(*fftPlan)
	}
	p := newFFTPlan(n)
	q, _ := fftPlans.LoadOrStore(n, p)
	return q.(*fftPlan)
}

func newFFTPlan(n int) *fftPlan {
	p := &fftPlan{n: n}
	m := n
	for m > 1 {
		r := 0
		for _, f := range []int{4, 2, 3, 5} {
			if m%f == 0 {
				r = f
				break
			}
		}
		if r == 0 {
			panic("linalg: FFT length with a prime factor above 5")
		}
		// The stage splits a sub-problem of length m into r of m/r;
		// twiddles w^j, w = e^{−2πi p/m}, p < m/r, j = 1..r−1.
		sub := m / r
		tw := make([]complex128, sub*(r-1))
		for q := range sub {
			for j := 1; j < r; j++ {
				s, c := math.Sincos(-2 * math.Pi * float64(q*j) / float64(m))
				tw[q*(r-1)+j-1] = complex(c, s)
			}
		}
		p.radix, p.twid = append(p.radix, r), append(p.twid, tw)
		m = sub
	}
	p.stages = len(p.radix)
	return p
}

// transform replaces the batch sequences interleaved in x (length
// n·batch) by their discrete Fourier transforms, X_k = Σ_t x_t e^{∓2πi
// tk/n} (− forward, + inverse, unnormalised), using work, of x's length.
func (p *fftPlan) transform(x, work []complex128, batch int, inverse bool) {
	if p.n == 1 {
		return
	}
	src, dst := x, work
	m, s := p.n, batch
	for st, r := range p.radix {
		sub := m / r
		tw := p.twid[st]
		switch r {
		case 4:
			radix4(src, dst, sub, s, tw, inverse)
		case 2:
			radix2(src, dst, sub, s, tw, inverse)
		case 3:
			radix3(src, dst, sub, s, tw, inverse)
		default:
			radix5(src, dst, sub, s, tw, inverse)
		}
		src, dst = dst, src
		m, s = sub, s*r
	}
	if p.stages%2 == 1 {
		copy(x, work[:len(x)])
	}
}

// Each radix stage reads, for p < sub and q < s, the r terms
// src[q + s(p + k·sub)], k < r, and writes their r-point DFT, the j-th
// output times w^j (w^j conjugated for the inverse), to
// dst[q + s(r·p + j)].

func radix2(src, dst []complex128, sub, s int, tw []complex128, inverse bool) {
	for p := range sub {
		w := tw[p]
		if inverse {
			w = conj(w)
		}
		a0, a1 := src[s*p:s*p+s], src[s*(p+sub):s*(p+sub)+s]
		y0, y1 := dst[s*2*p:s*2*p+s], dst[s*(2*p+1):s*(2*p+1)+s]
		for q := range a0 {
			u, v := a0[q], a1[q]
			y0[q], y1[q] = u+v, (u-v)*w
		}
	}
}

func radix4(src, dst []complex128, sub, s int, tw []complex128, inverse bool) {
	// ±i·d for the forward (−) and inverse (+) transforms.
	sg := -1.0
	if inverse {
		sg = 1
	}
	for p := range sub {
		w1, w2, w3 := tw[3*p], tw[3*p+1], tw[3*p+2]
		if inverse {
			w1, w2, w3 = conj(w1), conj(w2), conj(w3)
		}
		a0 := src[s*p : s*p+s]
		a1 := src[s*(p+sub) : s*(p+sub)+len(a0)]
		a2 := src[s*(p+2*sub) : s*(p+2*sub)+len(a0)]
		a3 := src[s*(p+3*sub) : s*(p+3*sub)+len(a0)]
		o := s * 4 * p
		y0, y1, y2, y3 := dst[o:o+len(a0)], dst[o+s:o+s+len(a0)], dst[o+2*s:o+2*s+len(a0)], dst[o+3*s:o+3*s+len(a0)]
		if even := len(a0) &^ 1; fastFFT && even > 0 {
			w := [11]float64{real(w1), imag(w1), real(w2), imag(w2), real(w3), imag(w3), -sg, sg, -sg, sg}
			if p == 0 {
				w[10] = 1 // twiddles of 1: the products skipped
			}
			radix4AVX(even, &a0[0], &a1[0], &a2[0], &a3[0], &y0[0], &y1[0], &y2[0], &y3[0], &w)
			a0, a1, a2, a3 = a0[even:], a1[even:], a2[even:], a3[even:]
			y0, y1, y2, y3 = y0[even:], y1[even:], y2[even:], y3[even:]
		}
		if p == 0 { // w = 1: the products skipped (every butterfly of a last stage; 15% of a 192×192 transform)
			for q, u0 := range a0 {
				u1, u2, u3 := a1[q], a2[q], a3[q]
				t0r, t0i := real(u0)+real(u2), imag(u0)+imag(u2)
				t1r, t1i := real(u0)-real(u2), imag(u0)-imag(u2)
				t2r, t2i := real(u1)+real(u3), imag(u1)+imag(u3)
				dr, di := real(u1)-real(u3), imag(u1)-imag(u3)
				t3r, t3i := -sg*di, sg*dr
				y0[q] = complex(t0r+t2r, t0i+t2i)
				y1[q] = complex(t1r+t3r, t1i+t3i)
				y2[q] = complex(t0r-t2r, t0i-t2i)
				y3[q] = complex(t1r-t3r, t1i-t3i)
			}
			continue
		}
		w1r, w1i, w2r, w2i, w3r, w3i := real(w1), imag(w1), real(w2), imag(w2), real(w3), imag(w3)
		for q, u0 := range a0 {
			u1, u2, u3 := a1[q], a2[q], a3[q]
			t0r, t0i := real(u0)+real(u2), imag(u0)+imag(u2)
			t1r, t1i := real(u0)-real(u2), imag(u0)-imag(u2)
			t2r, t2i := real(u1)+real(u3), imag(u1)+imag(u3)
			dr, di := real(u1)-real(u3), imag(u1)-imag(u3)
			t3r, t3i := -sg*di, sg*dr
			y0[q] = complex(t0r+t2r, t0i+t2i)
			br, bi := t1r+t3r, t1i+t3i
			y1[q] = complex(br*w1r-bi*w1i, br*w1i+bi*w1r)
			br, bi = t0r-t2r, t0i-t2i
			y2[q] = complex(br*w2r-bi*w2i, br*w2i+bi*w2r)
			br, bi = t1r-t3r, t1i-t3i
			y3[q] = complex(br*w3r-bi*w3i, br*w3i+bi*w3r)
		}
	}
}

// sin60 is sin(π/3) = √3/2.
const sin60 = 0.86602540378443864676372317075293618

func radix3(src, dst []complex128, sub, s int, tw []complex128, inverse bool) {
	sn := -sin60
	if inverse {
		sn = sin60
	}
	for p := range sub {
		w1, w2 := tw[2*p], tw[2*p+1]
		if inverse {
			w1, w2 = conj(w1), conj(w2)
		}
		w1r, w1i, w2r, w2i := real(w1), imag(w1), real(w2), imag(w2)
		a0 := src[s*p : s*p+s]
		a1 := src[s*(p+sub) : s*(p+sub)+len(a0)]
		a2 := src[s*(p+2*sub) : s*(p+2*sub)+len(a0)]
		o := s * 3 * p
		y0, y1, y2 := dst[o:o+len(a0)], dst[o+s:o+s+len(a0)], dst[o+2*s:o+2*s+len(a0)]
		if even := len(a0) &^ 1; fastFFT && even > 0 {
			c := [10]float64{w1r, w1i, w2r, w2i, -sn, sn, -sn, sn, 0.5}
			if p == 0 {
				c[9] = 1 // twiddles of 1: the products skipped
			}
			radix3AVX(even, &a0[0], &a1[0], &a2[0], &y0[0], &y1[0], &y2[0], &c)
			a0, a1, a2 = a0[even:], a1[even:], a2[even:]
			y0, y1, y2 = y0[even:], y1[even:], y2[even:]
		}
		for q, u0 := range a0 {
			u1, u2 := a1[q], a2[q]
			tr, ti := real(u1)+real(u2), imag(u1)+imag(u2)
			dr, di := real(u1)-real(u2), imag(u1)-imag(u2)
			mr, mi := real(u0)-0.5*tr, imag(u0)-0.5*ti
			// ±i·sin60·d
			idr, idi := -sn*di, sn*dr
			y0[q] = complex(real(u0)+tr, imag(u0)+ti)
			br, bi := mr+idr, mi+idi
			cr, ci := mr-idr, mi-idi
			if p == 0 {
				y1[q], y2[q] = complex(br, bi), complex(cr, ci)
				continue
			}
			y1[q] = complex(br*w1r-bi*w1i, br*w1i+bi*w1r)
			y2[q] = complex(cr*w2r-ci*w2i, cr*w2i+ci*w2r)
		}
	}
}

// The 5-point DFT's constants: cos and sin of 2π/5 and 4π/5.
var (
	cos1, sin1 = math.Cos(2 * math.Pi / 5), math.Sin(2 * math.Pi / 5)
	cos2, sin2 = math.Cos(4 * math.Pi / 5), math.Sin(4 * math.Pi / 5)
)

// radix5 takes the 5-point DFT from the sums and differences of the
// terms paired by symmetry: with t1 = a1 + a4, t2 = a2 + a3,
// t3 = a1 − a4, t4 = a2 − a3,
//
//	Y0 = a0 + t1 + t2,
//	Y1, Y4 = a0 + c1 t1 + c2 t2 ∓ i (s1 t3 + s2 t4),
//	Y2, Y3 = a0 + c2 t1 + c1 t2 ∓ i (s2 t3 − s1 t4)
//
// (the signs of i reversed for the inverse).
func radix5(src, dst []complex128, sub, s int, tw []complex128, inverse bool) {
	sg := -1.0
	if inverse {
		sg = 1
	}
	for p := range sub {
		var w [4]complex128
		copy(w[:], tw[4*p:4*p+4])
		if inverse {
			for j := range w {
				w[j] = conj(w[j])
			}
		}
		a0 := src[s*p : s*p+s]
		a1 := src[s*(p+sub) : s*(p+sub)+len(a0)]
		a2 := src[s*(p+2*sub) : s*(p+2*sub)+len(a0)]
		a3 := src[s*(p+3*sub) : s*(p+3*sub)+len(a0)]
		a4 := src[s*(p+4*sub) : s*(p+4*sub)+len(a0)]
		o := s * 5 * p
		y0, y1, y2 := dst[o:o+len(a0)], dst[o+s:o+s+len(a0)], dst[o+2*s:o+2*s+len(a0)]
		y3, y4 := dst[o+3*s:o+3*s+len(a0)], dst[o+4*s:o+4*s+len(a0)]
		if even := len(a0) &^ 1; fastFFT && even > 0 {
			c := [17]float64{real(w[0]), imag(w[0]), real(w[1]), imag(w[1]), real(w[2]), imag(w[2]), real(w[3]), imag(w[3]),
				-sg, sg, -sg, sg, cos1, cos2, sin1, sin2}
			if p == 0 {
				c[16] = 1 // twiddles of 1: the products skipped
			}
			radix5AVX(even, &a0[0], &a1[0], &a2[0], &a3[0], &a4[0], &y0[0], &y1[0], &y2[0], &y3[0], &y4[0], &c)
			a0, a1, a2, a3, a4 = a0[even:], a1[even:], a2[even:], a3[even:], a4[even:]
			y0, y1, y2, y3, y4 = y0[even:], y1[even:], y2[even:], y3[even:], y4[even:]
		}
		for q, u0 := range a0 {
			v1, v2, v3, v4 := a1[q], a2[q], a3[q], a4[q]
			t1r, t1i := real(v1)+real(v4), imag(v1)+imag(v4)
			t2r, t2i := real(v2)+real(v3), imag(v2)+imag(v3)
			t3r, t3i := real(v1)-real(v4), imag(v1)-imag(v4)
			t4r, t4i := real(v2)-real(v3), imag(v2)-imag(v3)
			b1r, b1i := real(u0)+cos1*t1r+cos2*t2r, imag(u0)+cos1*t1i+cos2*t2i
			b2r, b2i := real(u0)+cos2*t1r+cos1*t2r, imag(u0)+cos2*t1i+cos1*t2i
			d1r, d1i := sin1*t3r+sin2*t4r, sin1*t3i+sin2*t4i
			d2r, d2i := sin2*t3r-sin1*t4r, sin2*t3i-sin1*t4i
			// ±i·d
			e1r, e1i := -sg*d1i, sg*d1r
			e2r, e2i := -sg*d2i, sg*d2r
			y0[q] = complex(real(u0)+t1r+t2r, imag(u0)+t1i+t2i)
			if p == 0 {
				y1[q], y4[q] = complex(b1r+e1r, b1i+e1i), complex(b1r-e1r, b1i-e1i)
				y2[q], y3[q] = complex(b2r+e2r, b2i+e2i), complex(b2r-e2r, b2i-e2i)
				continue
			}
			y1[q], y4[q] = complex(b1r+e1r, b1i+e1i)*w[0], complex(b1r-e1r, b1i-e1i)*w[3]
			y2[q], y3[q] = complex(b2r+e2r, b2i+e2i)*w[1], complex(b2r-e2r, b2i-e2i)*w[2]
		}
	}
}

func conj(z complex128) complex128 { return complex(real(z), -imag(z)) }

// RealFFT is the real discrete Fourier transform of one length n, with
// the methods of gonum's dsp/fourier.FFT: Coefficients keeps the n/2+1
// coefficients of non-negative frequency, Sequence inverts them
// unnormalised (n·x). For even n the n reals are n/2 complex numbers
// (z_t = x_2t + i·x_2t+1) transformed by fftPlan and separated:
// X_k = E_k + w^k O_k, E_k = (Z_k + Z̄_{m−k})/2, O_k = (Z_k − Z̄_{m−k})/2i,
// m = n/2, w = e^{−2πi/n}. It is not safe for concurrent use.
type RealFFT struct {
	n       int
	plan    *fftPlan
	w       []complex128
	z, work []complex128
	// The batches' sequences, interleaved, the transform's work, and a
	// line.
	zb, workb []complex128
	line      []float64
}

// NewRealFFT returns the real transform of length n (a Smooth length).
func NewRealFFT(n int) *RealFFT {
	f := &RealFFT{n: n}
	m := n
	if n%2 == 0 {
		m = n / 2
		f.w = make([]complex128, m)
		for k := range f.w {
			s, c := math.Sincos(-2 * math.Pi * float64(k) / float64(n))
			f.w[k] = complex(c, s)
		}
	}
	f.plan, f.z, f.work = planFFT(m), make([]complex128, m), make([]complex128, m)
	return f
}

// Len returns n.
func (f *RealFFT) Len() int { return f.n }

// Coefficients sets dst (allocated when nil) to the n/2+1 coefficients of
// x and returns it.
func (f *RealFFT) Coefficients(dst []complex128, x []float64) []complex128 {
	half := f.n/2 + 1
	if dst == nil {
		dst = make([]complex128, half)
	}
	if len(x) != f.n || len(dst) != half {
		panic("linalg: RealFFT: length mismatch")
	}
	z := f.z
	if f.w == nil { // odd n: one complex transform
		for t, v := range x {
			z[t] = complex(v, 0)
		}
		f.plan.transform(z, f.work, 1, false)
		copy(dst, z[:half])
		return dst
	}
	for t := range z {
		z[t] = complex(x[2*t], x[2*t+1])
	}
	f.plan.transform(z, f.work, 1, false)
	f.separate(dst, z, 1, 0)
	return dst
}

// separate sets d to the coefficients of the real sequence whose
// transform of z_t = x_2t + i·x_2t+1 is sequence i of the batch z
// (stride sequences interleaved): X_k = E_k + w^k O_k.
func (f *RealFFT) separate(d, z []complex128, stride, i int) {
	m := f.n / 2
	for k := 0; k <= m; k++ {
		zk, zn := z[(k%m)*stride+i], conj(z[((m-k)%m)*stride+i])
		e, o := (zk+zn)*0.5, (zk-zn)*complex(0, -0.5)
		w := complex(-1, 0) // w^m
		if k < m {
			w = f.w[k]
		}
		d[k] = e + w*o
	}
}

// extend returns coefficient k < n of the real sequence whose first
// n/2+1 are spec: the Hermitian extension, the imaginary parts at 0 and
// n/2 taken as zero.
func (f *RealFFT) extend(spec []complex128, k int) complex128 {
	if k <= f.n/2 {
		v := spec[k]
		if k == 0 || 2*k == f.n {
			v = complex(real(v), 0)
		}
		return v
	}
	return conj(spec[f.n-k])
}

// combine sets sequence i of the batch z (stride sequences
// interleaved) to the half-length transform whose inverse gives the
// real sequence of coefficients spec in its z_t = x_2t + i·x_2t+1.
func (f *RealFFT) combine(z, spec []complex128, stride, i int) {
	m := f.n / 2
	for k := range m {
		a, b := f.extend(spec, k), f.extend(spec, k+m)
		z[k*stride+i] = (a + b) + complex(0, 1)*(a-b)*conj(f.w[k])
	}
}

// Sequence sets dst (allocated when nil) to the unnormalised inverse
// transform n·x of the n/2+1 coefficients spec and returns it; the
// imaginary parts at frequencies 0 and n/2 are ignored.
func (f *RealFFT) Sequence(dst []float64, spec []complex128) []float64 {
	half := f.n/2 + 1
	if dst == nil {
		dst = make([]float64, f.n)
	}
	if len(dst) != f.n || len(spec) != half {
		panic("linalg: RealFFT: length mismatch")
	}
	z := f.z
	if f.w == nil {
		for k := range z {
			z[k] = f.extend(spec, k)
		}
		f.plan.transform(z, f.work, 1, true)
		for t := range dst {
			dst[t] = real(z[t])
		}
		return dst
	}
	f.combine(z, spec, 1, 0)
	f.plan.transform(z, f.work, 1, true)
	for t, v := range z {
		dst[2*t], dst[2*t+1] = real(v), imag(v)
	}
	return dst
}

// batch returns f's batch buffers for count sequences of length m.
func (f *RealFFT) batch(count, m int) (z, work []complex128, line []float64) {
	if len(f.zb) < count*m {
		f.zb, f.workb = make([]complex128, count*m), make([]complex128, count*m)
	}
	if f.line == nil {
		f.line = make([]float64, f.n)
	}
	return f.zb[:count*m], f.workb[:count*m], f.line
}

// CoefficientsBatch sets dst[i] to the coefficients of the sequence
// that load(i, x) writes into x (zeroed, of length n), as Coefficients
// does, for every i < len(dst): the sequences are transformed together
// (fftPlan's batch, its loops over the sequences), each to the same
// bits as alone.
func (f *RealFFT) CoefficientsBatch(dst [][]complex128, load func(i int, x []float64)) {
	if f.w == nil { // odd n: one at a time
		x := make([]float64, f.n)
		for i, d := range dst {
			clear(x)
			load(i, x)
			f.Coefficients(d, x)
		}
		return
	}
	count, m := len(dst), f.n/2
	z, work, x := f.batch(count, m)
	for i := range dst {
		clear(x)
		load(i, x)
		for t := range m {
			z[t*count+i] = complex(x[2*t], x[2*t+1])
		}
	}
	f.plan.transform(z, work, count, false)
	for i, d := range dst {
		f.separate(d, z, count, i)
	}
}

// SequenceBatch inverts each spec[i] as Sequence does, unnormalised, and
// hands the sequence to store(i, x), for every i < len(spec): the
// sequences are transformed together, each to the same bits as alone.
func (f *RealFFT) SequenceBatch(spec [][]complex128, store func(i int, x []float64)) {
	if f.w == nil {
		x := make([]float64, f.n)
		for i, s := range spec {
			store(i, f.Sequence(x, s))
		}
		return
	}
	count, m := len(spec), f.n/2
	z, work, x := f.batch(count, m)
	for i, s := range spec {
		f.combine(z, s, count, i)
	}
	f.plan.transform(z, work, count, true)
	for i := range spec {
		for t := range m {
			v := z[t*count+i]
			x[2*t], x[2*t+1] = real(v), imag(v)
		}
		store(i, x)
	}
}
