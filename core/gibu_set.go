package core

import (
	"math"
	"math/bits"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/privmap/privmap/internal/linalg"
)

// setTerm is the EM term of some users of one mechanism whose report's
// likelihood column is 1 on its set bits S and low elsewhere, times
// e^{scale} (a setReports: OUE, RAPPOR, subset selection), so that
//
//	θ·g = low·Σθ + (1 − low)·Σ_{x∈S} θ_x,
//
// and Σ c·g/(θ·g) is low·Σ w + (1 − low)·Σ_{S∋x} w at each x, w =
// c/(n θ·g): a step reads each report's set bits twice and holds no
// column. It replaces the columns when they would exceed the column
// budget (newModelWith): a million OUE reports on 4,096 symbols would
// take 32 GB of columns; their bit vectors take 512 MB.
type setTerm struct {
	k      int
	n      float64
	low    float64
	sets   []Bits
	counts []float64
	scales []float64
	dots   []float64 // θ·g of each report at the point of at
}

// setTerms splits mechanism m's groups into parts terms of about equal
// reports, so that the mixture runs them on every core.
func setTerms(m setReports, groups []Group, n float64, parts int) []term {
	parts = max(1, min(parts, len(groups)))
	var out []term
	for p := range parts {
		part := groups[p*len(groups)/parts : (p+1)*len(groups)/parts]
		t := &setTerm{k: m.Inputs(), n: n}
		for _, gr := range part {
			low, scale := m.setForm(gr.Report.Bits.Ones())
			t.low = low
			t.sets = append(t.sets, gr.Report.Bits)
			t.counts = append(t.counts, float64(gr.Count))
			t.scales = append(t.scales, scale)
		}
		out = append(out, t)
	}
	return out
}

// setSum returns Σ_{x∈S} v_x.
func setSum(s Bits, v []float64) float64 {
	sum := 0.0
	for i := range len(s.data) {
		for b := s.data[i]; b != 0; b &= b - 1 {
			sum += v[i*8+bits.TrailingZeros8(b)]
		}
	}
	return sum
}

// setAdd adds w to acc_x for x in S.
func setAdd(s Bits, acc []float64, w float64) {
	for i := range len(s.data) {
		for b := s.data[i]; b != 0; b &= b - 1 {
			acc[i*8+bits.TrailingZeros8(b)] += w
		}
	}
}

// addAll adds v to every entry of acc.
func addAll(acc []float64, v float64) {
	for x := range acc {
		acc[x] += v
	}
}

func (t *setTerm) add(theta, acc []float64) float64 {
	total := floats.Sum(theta)
	ll, sumW := 0.0, 0.0
	for i, s := range t.sets {
		dot := t.low*total + (1-t.low)*setSum(s, theta)
		if !(dot > 0) {
			return math.Inf(-1)
		}
		ll += t.counts[i] * (linalg.Log(dot) + t.scales[i])
		w := t.counts[i] / (t.n * dot)
		sumW += w
		setAdd(s, acc, (1-t.low)*w)
	}
	addAll(acc, t.low*sumW)
	return ll / t.n
}

func (t *setTerm) at(theta []float64) {
	total := floats.Sum(theta)
	t.dots = t.dots[:0]
	for _, s := range t.sets {
		t.dots = append(t.dots, t.low*total+(1-t.low)*setSum(s, theta))
	}
}

func (t *setTerm) curve(v, acc []float64) {
	total := floats.Sum(v)
	sumW := 0.0
	for i, s := range t.sets {
		gv := t.low*total + (1-t.low)*setSum(s, v)
		w := t.counts[i] * gv / (t.n * t.dots[i] * t.dots[i])
		sumW += w
		setAdd(s, acc, (1-t.low)*w)
	}
	addAll(acc, t.low*sumW)
}

// diagonal adds Σ c·g_x²/(n (θ·g)²): g_x² is 1 on S and low² elsewhere.
func (t *setTerm) diagonal(acc []float64) bool {
	low2 := t.low * t.low
	sumW := 0.0
	for i, s := range t.sets {
		w := t.counts[i] / (t.n * t.dots[i] * t.dots[i])
		sumW += w
		setAdd(s, acc, (1-low2)*w)
	}
	addAll(acc, low2*sumW)
	return true
}

// reports returns 0: the term holds no columns to restrict to a face.
func (t *setTerm) reports() int { return 0 }

// productWork counts two reads of every report's bytes and its set bits.
func (t *setTerm) productWork() float64 {
	w := 0.0
	for _, s := range t.sets {
		w += float64(len(s.data) + s.Ones())
	}
	return 2*w + 2*float64(t.k)
}

func (t *setTerm) faceFrom(_ []int, _ *mat.Dense, i int) int { return i }
