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
	scaled float64   // Σ c·scale
	dots   []float64 // θ·g of each report at the point of at
	ones   int       // the set bits of all the reports
	// dense: the reports are read by byteBits (denseSets), through
	// vectors padded to whole bytes.
	dense       bool
	pad, accPad []float64
	// sumTab and addTab, when the term has tableReports reports or more:
	// its dense reads by nibble tables (tabulate).
	sumTab, addTab []float64
}

// setTerms splits mechanism m's groups into parts terms of about equal
// reports, so that the mixture runs them on every core.
func setTerms(m setReports, groups []Group, n float64, parts int) []term {
	parts = max(1, min(parts, len(groups)))
	var out []term
	for p := range parts {
		part := groups[p*len(groups)/parts : (p+1)*len(groups)/parts]
		t := &setTerm{k: m.Inputs(), n: n}
		comp := 0.0
		for _, gr := range part {
			ones := gr.Report.Bits.Ones()
			low, scale := m.setForm(ones)
			t.ones += ones
			t.low = low
			t.sets = append(t.sets, gr.Report.Bits)
			t.counts = append(t.counts, float64(gr.Count))
			t.scaled, comp = twoSum(t.scaled, float64(gr.Count)*scale, comp)
		}
		t.scaled += comp
		if float64(t.ones) > denseSets*float64(len(part))*float64(t.k) {
			t.dense = true
			t.pad, t.accPad = make([]float64, 8*((t.k+7)/8)), make([]float64, 8*((t.k+7)/8))
			if len(part) >= tableReports {
				t.tabulate()
			}
		}
		out = append(out, t)
	}
	return out
}

// byteBits[b][j] is bit j of byte b, as 0 or 1: the dense reads of a
// bit vector multiply by it rather than branch on each bit.
var byteBits = func() (t [256][8]float64) {
	for b := range t {
		for j := range 8 {
			t[b][j] = float64(b >> j & 1)
		}
	}
	return t
}()

// denseSets is the share of set bits above which a set term reads every
// bit of a report by byteBits, rather than its set bits one by one,
// whose loop the processor cannot predict: OUE's 27% at ε = 1, SS's.
const denseSets = 1.0 / 16

// setSumDense is setSum by byteBits, v padded to whole bytes.
func setSumDense(s Bits, v []float64) float64 {
	var s0, s1 float64
	for i := range len(s.data) {
		m := &byteBits[s.data[i]]
		u := v[8*i : 8*i+8]
		s0 += u[0]*m[0] + u[1]*m[1] + u[2]*m[2] + u[3]*m[3]
		s1 += u[4]*m[4] + u[5]*m[5] + u[6]*m[6] + u[7]*m[7]
	}
	return s0 + s1
}

// setAddDense is setAdd by byteBits, acc padded to whole bytes.
func setAddDense(s Bits, acc []float64, w float64) {
	for i := range len(s.data) {
		m := &byteBits[s.data[i]]
		a := acc[8*i : 8*i+8]
		a[0] += w * m[0]
		a[1] += w * m[1]
		a[2] += w * m[2]
		a[3] += w * m[3]
		a[4] += w * m[4]
		a[5] += w * m[5]
		a[6] += w * m[6]
		a[7] += w * m[7]
	}
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

// tableReports is the number of reports from which a dense set term
// reads them by nibble tables (tabulate): the tables' 2·16 entries a
// nibble of K, filled and emptied once a pass, then cost less than the
// four products a nibble of each report they save, and take at most
// four times the reports' bits.
const tableReports = 128

// tabulate makes the dense term read its reports by nibble tables: at
// each pass, sumTab[16i + b] = Σ_{j: bit j of b} v_{4i+j} for each
// nibble i of the vectors and each value b of it, so that Σ_{x∈S} v_x
// is one look-up a nibble of S (setSumTable), and a report's weight is
// added to addTab[16i + b] for each nibble b of S, spread over the bits
// of b once a pass (resolve). On 4,096 symbols a report is then 1,024
// look-ups instead of 4,096 products, in 256 KB of tables that stay in
// the core's cache; byte tables (256 entries a byte, 2 MB) did not, and
// were no faster. The dense reads' pass halved (OUE, 4,096 symbols).
func (t *setTerm) tabulate() {
	n := 32 * ((t.k + 7) / 8)
	t.sumTab, t.addTab = make([]float64, n), make([]float64, n)
}

// in returns v as the term reads it: padded to whole bytes when dense,
// as its nibble table when tabulated.
func (t *setTerm) in(v []float64) []float64 {
	if !t.dense {
		return v
	}
	copy(t.pad, v)
	if t.sumTab == nil {
		return t.pad
	}
	for i := range len(t.pad) / 4 {
		row, u := t.sumTab[16*i:16*i+16], t.pad[4*i:4*i+4]
		row[0] = 0
		for b := 1; b < 16; b++ {
			row[b] = row[b&(b-1)] + u[bits.TrailingZeros8(uint8(b))]
		}
	}
	return t.sumTab
}

// out returns the accumulator the term adds to: acc, or a padded one
// (or the nibble table) that done adds to acc when dense.
func (t *setTerm) out(acc []float64) []float64 {
	if !t.dense {
		return acc
	}
	clear(t.accPad)
	if t.addTab != nil {
		clear(t.addTab)
		return t.addTab
	}
	return t.accPad
}

// done adds the padded accumulator, or the nibble table spread over its
// bits, to acc when dense.
func (t *setTerm) done(acc []float64) {
	if !t.dense {
		return
	}
	if t.addTab != nil {
		resolve(t.addTab, t.accPad)
	}
	floats.Add(acc, t.accPad[:len(acc)])
}

// resolve adds tab[16i + b] to acc_{4i+j} for each bit j of b.
func resolve(tab, acc []float64) {
	for i := range len(acc) / 4 {
		row, a := tab[16*i:16*i+16], acc[4*i:4*i+4]
		for b := 1; b < 16; b++ {
			if w := row[b]; w != 0 {
				for c := uint8(b); c != 0; c &= c - 1 {
					a[bits.TrailingZeros8(c)] += w
				}
			}
		}
	}
}

// sum and spread are setSum and setAdd, dense, tabulated or not.
func (t *setTerm) sum(s Bits, v []float64) float64 {
	switch {
	case t.sumTab != nil:
		return setSumTable(s, v)
	case t.dense:
		return setSumDense(s, v)
	}
	return setSum(s, v)
}

func (t *setTerm) spread(s Bits, acc []float64, w float64) {
	switch {
	case t.addTab != nil:
		setAddTable(s, acc, w)
	case t.dense:
		setAddDense(s, acc, w)
	default:
		setAdd(s, acc, w)
	}
}

// setSumTable is setSum by a nibble table (tabulate), in four partial
// sums so that the look-ups' additions do not wait on each other.
func setSumTable(s Bits, tab []float64) float64 {
	var s0, s1, s2, s3 float64
	d := s.data
	i := 0
	for ; i+2 <= len(d); i += 2 {
		s0 += tab[i<<5|int(d[i]&15)]
		s1 += tab[i<<5|16|int(d[i]>>4)]
		s2 += tab[(i+1)<<5|int(d[i+1]&15)]
		s3 += tab[(i+1)<<5|16|int(d[i+1]>>4)]
	}
	for ; i < len(d); i++ {
		s0 += tab[i<<5|int(d[i]&15)]
		s1 += tab[i<<5|16|int(d[i]>>4)]
	}
	return (s0 + s1) + (s2 + s3)
}

// setAddTable is setAdd into a nibble table (tabulate).
func setAddTable(s Bits, tab []float64, w float64) {
	for i := range len(s.data) { // bytes, not the runes range would give
		tab[i<<5|int(s.data[i]&15)] += w
		tab[i<<5|16|int(s.data[i]>>4)] += w
	}
}

// pass adds the reports' share to acc: for report i, with g·v =
// low·Σv + (1 − low)·Σ_{x∈S} v_x, the weight w_i = weight(i, g·v), and
// low·Σ_i w_i + (1 − low)·Σ_{S∋x} w_i at each x. It stops and returns
// false when weight does (a report of probability 0).
func (t *setTerm) pass(v, acc []float64, weight func(i int, gv float64) (float64, bool)) bool {
	total := floats.Sum(v)
	vin, out := t.in(v), t.out(acc)
	sumW := 0.0
	for i, s := range t.sets {
		w, ok := weight(i, t.low*total+(1-t.low)*t.sum(s, vin))
		if !ok {
			return false
		}
		sumW += w
		t.spread(s, out, (1-t.low)*w)
	}
	t.done(acc)
	addAll(acc, t.low*sumW)
	return true
}

// add sums Σ c·ln(θ·g) apart from the constant Σ c·scale (hundreds of
// nats a report on hundreds of symbols), each with Neumaier's
// compensation: summed plainly, the rounding of a million reports'
// log-likelihoods reached 6·10⁻¹⁰ nats a report, above what polish takes
// for rounding, and the steps that would have certified the MLE were
// refused (OUE, ε = 0.5, 384 symbols: stalled at a gap of 1.3·10⁻¹⁰).
func (t *setTerm) add(theta, acc []float64) float64 {
	ll, comp := 0.0, 0.0
	ok := t.pass(theta, acc, func(i int, dot float64) (float64, bool) {
		if !(dot > 0) {
			return 0, false
		}
		ll, comp = twoSum(ll, t.counts[i]*linalg.Log(dot), comp)
		return t.counts[i] / (t.n * dot), true
	})
	if !ok {
		return math.Inf(-1)
	}
	return (ll + comp + t.scaled) / t.n
}

func (t *setTerm) at(theta []float64) {
	total := floats.Sum(theta)
	v := t.in(theta)
	t.dots = t.dots[:0]
	for _, s := range t.sets {
		t.dots = append(t.dots, t.low*total+(1-t.low)*t.sum(s, v))
	}
}

func (t *setTerm) curve(v, acc []float64) {
	t.pass(v, acc, func(i int, gv float64) (float64, bool) {
		return t.counts[i] * gv / (t.n * t.dots[i] * t.dots[i]), true
	})
}

// diagonal adds Σ c·g_x²/(n (θ·g)²): g_x² is 1 on S and low² elsewhere.
func (t *setTerm) diagonal(acc []float64) bool {
	low2 := t.low * t.low
	out := t.out(acc)
	sumW := 0.0
	for i, s := range t.sets {
		w := t.counts[i] / (t.n * t.dots[i] * t.dots[i])
		sumW += w
		t.spread(s, out, (1-low2)*w)
	}
	t.done(acc)
	addAll(acc, low2*sumW)
	return true
}

// reports returns the term's reports, the rows faceFrom writes.
func (t *setTerm) reports() int { return len(t.sets) }

// productWork counts two reads of every report's bytes and its set bits.
func (t *setTerm) productWork() float64 {
	bytes := 0
	for _, s := range t.sets {
		bytes += len(s.data)
	}
	return 2*float64(bytes+t.ones) + 2*float64(t.k)
}

// faceFrom writes each report's column on the face, √(c/n)·g_x/(θ·g)
// at the point of at, g_x = 1 on its set bits and low elsewhere, from
// column i on, and returns the next.
func (t *setTerm) faceFrom(free []int, x *mat.Dense, i int) int {
	for r, s := range t.sets {
		w := math.Sqrt(t.counts[r]/t.n) / t.dots[r]
		for b, y := range free {
			x.Set(b, i, w*(t.low+(1-t.low)*float64(s.Bit(y))))
		}
		i++
	}
	return i
}
