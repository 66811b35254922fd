package core

import (
	"math"

	"gonum.org/v1/gonum/floats"

	"gonum.org/v1/gonum/mat"

	"github.com/privmap/privmap/internal/linalg"
)

// hashTerm is the EM term of some users of one local-hashing mechanism
// (LH), their reports grouped by seed. A report (s, v)'s likelihood
// column is g_x = low + (1 − low)·[H_s(x) = v], low = e^{−ε}, so
//
//	θ·g = low·Σθ + (1 − low)·M_s(v),  M_s(v) = Σ_{x: H_s(x) = v} θ_x,
//
// and a seed's share of Σ c·g/(θ·g) is low·Σ_v w_v + (1 − low)·w_{H_s(x)}
// at each x, w_v = c_v/(n θ·g): one pass of the seed's K hashes gives
// the masses M_s, another the share, whatever the number of its reports.
// A step costs O(K) a seed and O(1) a report, and no likelihood column
// is held. It serves users whose seeds repeat (seedsRepeat); reports of
// distinct seeds, as OLH's users draw them, are read by their preimages
// in a setTerm (hashSets), 8 times smaller than a seed's hashes. The
// hashes of the seeds are kept while they fit hashCacheBytes, else
// computed again each pass.
type hashTerm[T hashValue] struct {
	m   hasher
	k   int
	n   float64 // all users, of every mechanism
	low float64
	// seeds[i]'s reports are values[start[i]:start[i+1]], with counts.
	seeds  []uint32
	start  []int
	values []int
	counts []float64
	cache  []T // seeds × K hashes, or nil
	// buffers: a seed's hashes, masses over the g values, weights.
	h       []T
	mass, w []float64
	dots    []float64 // θ·g of each report at the point of at
}

// A hashValue holds a hash value: a byte while g ≤ 256 (ε up to 5.5 for
// OLH), else two.
type hashValue interface{ ~uint8 | ~uint16 }

// hashCacheBytes bounds the hashes the hashTerms of one mechanism keep,
// 4 GiB (a million seeds on 4,096 symbols in bytes), and at most a
// quarter of the memory the process can still obtain: beyond, the
// hashes are computed again at each pass, the same values more slowly.
const hashCacheBytes = 1 << 32

// hashTerms splits the groups of a local-hashing mechanism m, sorted by
// seed, into parts terms of about equal seeds, so that the mixture runs
// them on every core; the split depends on the groups alone, so the
// estimate does not depend on the machine.
func hashTerms(m hasher, groups []Group, n float64, parts int) []term {
	var seeds []int // indices in groups where a seed starts
	for i, gr := range groups {
		if i == 0 || gr.Report.Seed != groups[i-1].Report.Seed {
			seeds = append(seeds, i)
		}
	}
	parts = max(1, min(parts, len(seeds)))
	size := 2.0
	if m.values() <= 256 {
		size = 1
	}
	bytes := size * float64(len(seeds)) * float64(m.Inputs())
	cache := bytes <= hashCacheBytes && bytes <= availableMemory()/4
	var out []term
	for p := range parts {
		lo, hi := seeds[p*len(seeds)/parts], len(groups)
		if q := (p + 1) * len(seeds) / parts; q < len(seeds) {
			hi = seeds[q]
		}
		if size == 1 {
			out = append(out, newHashTerm[uint8](m, groups[lo:hi], n, cache))
		} else {
			out = append(out, newHashTerm[uint16](m, groups[lo:hi], n, cache))
		}
	}
	return out
}

// hashSets reads local hashing's reports as sets: a report (s, v)'s
// likelihood column is kept·(low + (1 − low)·[H_s(x) = v]), so it is a
// setReports whose report is the preimage S = {x : H_s(x) = v}, with
// low = e^{−ε} and scale ln kept whatever |S|. The preimages take K/8
// bytes a report, where hashTerm keeps K bytes a seed and reads them
// twice a pass: with seeds nearly all distinct (32-bit seeds drawn by
// each user), setTerm's nibble tables read a report in K/4 look-ups, and
// OLH at ε = 4 sets 1/56 of the bits, read one by one.
type hashSets struct{ hasher }

func (h hashSets) setForm(int) (low, scale float64) { return h.low(), h.logKept() }

// seedsRepeat reports whether groups, sorted by seed, hold on average
// two distinct reports or more a seed, when hashTerm's pass over a
// seed's hashes serves several of them: by preimages each would cost
// K/4 look-ups (a report's copies are one group either way).
func seedsRepeat(groups []Group) bool {
	seeds := 0
	for i, gr := range groups {
		if i == 0 || gr.Report.Seed != groups[i-1].Report.Seed {
			seeds++
		}
	}
	return len(groups) >= 2*seeds
}

// preimages returns groups with each report's preimage under its hash
// (hashSets) as its bits.
func preimages(m hasher, groups []Group) []Group {
	k := m.Inputs()
	out := make([]Group, len(groups))
	b := make([]byte, (k+7)/8)
	for i, gr := range groups {
		clear(b)
		for x := range k {
			if m.hash(gr.Report.Seed, x) == gr.Report.Symbol {
				b[x/8] |= 1 << (x % 8)
			}
		}
		out[i] = gr
		out[i].Report.Bits = Bits{n: k, data: string(b)}
	}
	return out
}

// streamParts is the number of terms hashTerms and setTerms split a
// mechanism's users into.
const streamParts = 8

func newHashTerm[T hashValue](m hasher, groups []Group, n float64, cache bool) *hashTerm[T] {
	k, g := m.Inputs(), m.values()
	t := &hashTerm[T]{m: m, k: k, n: n, low: m.low(), h: make([]T, k), mass: make([]float64, 4*g), w: make([]float64, g)}
	for i, gr := range groups {
		if i == 0 || gr.Report.Seed != groups[i-1].Report.Seed {
			t.seeds = append(t.seeds, gr.Report.Seed)
			t.start = append(t.start, len(t.values))
		}
		t.values = append(t.values, gr.Report.Symbol)
		t.counts = append(t.counts, float64(gr.Count))
	}
	t.start = append(t.start, len(t.values))
	if cache {
		t.cache = make([]T, len(t.seeds)*k)
		for i := range t.seeds {
			t.fill(t.cache[i*k:(i+1)*k], i)
		}
	}
	return t
}

// fill sets h to the hashes of seed i.
func (t *hashTerm[T]) fill(h []T, i int) {
	s := t.seeds[i]
	for x := range h {
		h[x] = T(t.m.hash(s, x))
	}
}

// hashes returns the hashes of seed i.
func (t *hashTerm[T]) hashes(i int) []T {
	if t.cache != nil {
		return t.cache[i*t.k : (i+1)*t.k]
	}
	t.fill(t.h, i)
	return t.h
}

// masses sets t.mass to the sums of v over each hash value of h, in
// four interleaved partial sums so that runs of one value do not wait
// on each other's additions (the g values are few: 4 at ε = 1).
func (t *hashTerm[T]) masses(h []T, v []float64) {
	g := len(t.w)
	m := t.mass[:4*g]
	clear(m)
	m0, m1, m2, m3 := m[:g], m[g:2*g], m[2*g:3*g], m[3*g:]
	x := 0
	for ; x+4 <= len(v); x += 4 {
		m0[h[x]] += v[x]
		m1[h[x+1]] += v[x+1]
		m2[h[x+2]] += v[x+2]
		m3[h[x+3]] += v[x+3]
	}
	for ; x < len(v); x++ {
		m0[h[x]] += v[x]
	}
	for i := range m0 {
		m0[i] += m1[i] + m2[i] + m3[i]
	}
}

// spread adds base + scale·w[h[x]] to acc[x], a seed's share, and
// clears the weights w set on its reports' values.
func (t *hashTerm[T]) spread(h []T, acc []float64, base, scale float64, vals []int) {
	w := t.w
	if len(w) <= len(h)/4 {
		// Few values: the share of each at once, one load a symbol.
		for v, wv := range w {
			w[v] = base + scale*wv
		}
		for x, hv := range h {
			acc[x] += w[hv]
		}
		clear(w)
		return
	}
	for x, hv := range h {
		acc[x] += base + scale*w[hv]
	}
	for _, v := range vals {
		w[v] = 0
	}
}

// pass adds each seed's share to acc: for its report r of value val,
// with g·v = low·Σv + (1 − low)·M_s(val), the weight w_r = weight(r,
// g·v), and low·Σ_r w_r + (1 − low)·w at each x of the value of w. It
// stops and returns false when weight does (a report of probability 0).
func (t *hashTerm[T]) pass(v, acc []float64, weight func(r int, gv float64) (float64, bool)) bool {
	total := floats.Sum(v)
	for i := range t.seeds {
		h := t.hashes(i)
		t.masses(h, v)
		vals := t.values[t.start[i]:t.start[i+1]]
		sumW := 0.0
		for j, val := range vals {
			w, ok := weight(t.start[i]+j, t.low*total+(1-t.low)*t.mass[val])
			if !ok {
				clear(t.w)
				return false
			}
			t.w[val] = w
			sumW += w
		}
		t.spread(h, acc, t.low*sumW, 1-t.low, vals)
	}
	return true
}

// add adds (1/n) Σ c·g/(θ·g) to acc and returns (1/n) Σ c·ln P(report),
// its sum Σ c·ln(θ·g) apart from the constant ln kept · Σ c (see
// setTerm.add).
func (t *hashTerm[T]) add(theta, acc []float64) float64 {
	ll, comp, users := 0.0, 0.0, 0.0
	ok := t.pass(theta, acc, func(r int, dot float64) (float64, bool) {
		if !(dot > 0) {
			return 0, false
		}
		ll, comp = twoSum(ll, t.counts[r]*linalg.Log(dot), comp)
		users += t.counts[r]
		return t.counts[r] / (t.n * dot), true
	})
	if !ok {
		return math.Inf(-1)
	}
	return (ll + comp + t.m.logKept()*users) / t.n
}

// at keeps θ·g of every report at θ for curve and diagonal.
func (t *hashTerm[T]) at(theta []float64) {
	t.dots = t.dots[:0]
	total := floats.Sum(theta)
	for i := range t.seeds {
		h := t.hashes(i)
		t.masses(h, theta)
		for _, v := range t.values[t.start[i]:t.start[i+1]] {
			t.dots = append(t.dots, t.low*total+(1-t.low)*t.mass[v])
		}
	}
}

// curve adds (1/n) Σ c·g (g·v)/(θ·g)² to acc.
func (t *hashTerm[T]) curve(v, acc []float64) {
	t.pass(v, acc, func(r int, gv float64) (float64, bool) {
		return t.counts[r] * gv / (t.n * t.dots[r] * t.dots[r]), true
	})
}

// diagonal adds (1/n) Σ c·g_x²/(θ·g)² to acc: g_x² is 1 or low².
func (t *hashTerm[T]) diagonal(acc []float64) bool {
	low2 := t.low * t.low
	for i := range t.seeds {
		h := t.hashes(i)
		vals := t.values[t.start[i]:t.start[i+1]]
		sumW := 0.0
		for j, val := range vals {
			r := t.start[i] + j
			t.w[val] = t.counts[r] / (t.n * t.dots[r] * t.dots[r])
			sumW += t.w[val]
		}
		t.spread(h, acc, low2*sumW, 1-low2, vals)
	}
	return true
}

// reports returns the term's reports, the rows faceFrom writes.
func (t *hashTerm[T]) reports() int { return len(t.values) }

// productWork counts a product's two passes over each seed's hashes.
func (t *hashTerm[T]) productWork() float64 { return 4 * float64(len(t.seeds)*t.k) }

// faceFrom writes each report's column on the face, √(c/n)·g_x/(θ·g)
// at the point of at, g_x = 1 where the seed hashes x to the report's
// value and low elsewhere, from column i on, and returns the next.
func (t *hashTerm[T]) faceFrom(free []int, x *mat.Dense, i int) int {
	for s := range t.seeds {
		h := t.hashes(s)
		for r := t.start[s]; r < t.start[s+1]; r++ {
			w := math.Sqrt(t.counts[r]/t.n) / t.dots[r]
			for b, y := range free {
				g := t.low
				if int(h[y]) == t.values[r] {
					g = 1
				}
				x.Set(b, i, w*g)
			}
			i++
		}
	}
	return i
}
