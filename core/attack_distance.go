package core

import (
	"context"
	"math"
	"runtime"
	"sync"

	"github.com/privmap/privmap/internal/linalg"
)

// A lattice is a metric alphabet's symbols as points: a grid's cell
// centres, or a line's symbols one step apart (one row). Its tables
// hold, for every offset (dr, dc) between two symbols, the distance and
// the unit vector from the second to the first, so that the adversary's
// expected distance and its gradient at a symbol cost three look-ups
// and three multiply-adds a symbol of the posterior.
type lattice struct {
	cols, rows int
	w, h       float64 // the distance between neighbouring columns, rows
	unit       string
	span       int       // 2·cols − 1, a table row
	dist       []float64 // dist[(dr+rows−1)·span + dc+cols−1]
	ux, uy     []float64 // the unit vector's column and row components
}

// maxLatticeTable bounds a lattice's tables: (2·rows−1)(2·cols−1)
// offsets, 24 bytes each, at most 400 MB. A grid needing more has no
// distance figures (its exact search would cost more than K² anyway).
const maxLatticeTable = 1 << 24

// newLattice returns the lattice of a's symbols and true, or false for
// an alphabet without a distance or too large for the tables.
func newLattice(a Alphabet) (*lattice, bool) {
	l := &lattice{}
	switch a.Kind {
	case KindGrid:
		l.cols, l.rows, l.unit = a.Cols, a.Rows, "km"
		l.w, l.h = a.CellSides()
	case KindLinear:
		l.cols, l.rows, l.w, l.h, l.unit = a.Size, 1, 1, 1, "step"
	default:
		return nil, false
	}
	if float64(2*l.rows-1)*float64(2*l.cols-1) > maxLatticeTable {
		return nil, false
	}
	l.span = 2*l.cols - 1
	n := (2*l.rows - 1) * l.span
	l.dist, l.ux, l.uy = make([]float64, n), make([]float64, n), make([]float64, n)
	for dr := 1 - l.rows; dr < l.rows; dr++ {
		for dc := 1 - l.cols; dc < l.cols; dc++ {
			i := (dr+l.rows-1)*l.span + dc + l.cols - 1
			x, y := float64(dc)*l.w, float64(dr)*l.h
			d := math.Hypot(x, y)
			l.dist[i] = d
			if d > 0 {
				l.ux[i], l.uy[i] = x/d, y/d
			}
		}
	}
	return l, true
}

// cells returns the number of symbols.
func (l *lattice) cells() int { return l.cols * l.rows }

// offset returns the table index of the offset from symbol y to x.
func (l *lattice) offset(x, y int) int {
	return (x/l.cols-y/l.cols+l.rows-1)*l.span + x%l.cols - y%l.cols + l.cols - 1
}

// A posterior is an output's joint weights w(x) = π_x A_xz over the
// prior's support, with what the search needs of them.
type posterior struct {
	xs    []int32   // the symbols
	w     []float64 // their weights
	off   []int     // each symbol's base in the tables: row·span + col
	total float64
	at    []float64 // at[x] = w(x), zero elsewhere: the self term
}

// A medianSearch finds the symbol g minimising C(g) = Σ_x w(x) d(x, g),
// the adversary's expected distance from one report, and certifies it.
// C extends to a convex function of a point of the plane; its minimum
// over the lattice is found by descent from the weights' mean, then
// proved by a ring of evaluated symbols around the best one: every
// symbol outside the ring is at least the ring's lower bound away, by
// convexity along the segment from the best symbol to it (ringBound).
// Evaluations are cached for one posterior (stamp).
type medianSearch struct {
	l     *lattice
	p     *posterior
	stamp []uint32
	gen   uint32
	vals  []probe
}

// A probe is C at a symbol, its gradient without the symbol's own term
// (gx along the columns, gy along the rows), and that term's weight.
type probe struct{ c, gx, gy, self float64 }

func newMedianSearch(l *lattice) *medianSearch {
	k := l.cells()
	return &medianSearch{l: l, stamp: make([]uint32, k), vals: make([]probe, k)}
}

// reset starts a search on posterior p.
func (s *medianSearch) reset(p *posterior) {
	s.p = p
	s.gen++
	if s.gen == 0 {
		clear(s.stamp)
		s.gen = 1
	}
}

// at returns the probe of the symbol in row r, column c.
func (s *medianSearch) at(r, c int) probe {
	l := s.l
	g := r*l.cols + c
	if s.stamp[g] == s.gen {
		return s.vals[g]
	}
	base := (r+l.rows-1)*l.span + c + l.cols - 1
	var pr probe
	for i, w := range s.p.w {
		k := base - s.p.off[i]
		pr.c += w * l.dist[k]
		pr.gx += w * l.ux[k]
		pr.gy += w * l.uy[k]
	}
	pr.self = s.p.at[g]
	s.stamp[g], s.vals[g] = s.gen, pr
	return pr
}

// best returns the symbol minimising C (the lowest on ties within a
// relative 1e−12) and C there.
func (s *medianSearch) best(startR, startC int) (int, float64) {
	l := s.l
	cr, cc := startR, startC
	for { // descend to a symbol no neighbour improves
		br, bc, bv := cr, cc, s.at(cr, cc).c
		for r := max(0, cr-1); r <= min(l.rows-1, cr+1); r++ {
			for c := max(0, cc-1); c <= min(l.cols-1, cc+1); c++ {
				if v := s.at(r, c).c; v < bv {
					br, bc, bv = r, c, v
				}
			}
		}
		if br == cr && bc == cc {
			break
		}
		cr, cc = br, bc
	}
	for r := 1; ; {
		q := s.square(cr, cc, r)
		br, bc, bv := q.r0, q.c0, math.Inf(1)
		for y := q.r0; y <= q.r1; y++ {
			for x := q.c0; x <= q.c1; x++ {
				if v := s.at(y, x).c; v < bv {
					br, bc, bv = y, x, v
				}
			}
		}
		if q.whole() {
			return br*l.cols + bc, bv
		}
		if q.onExit(br, bc) {
			cr, cc = br, bc // the best lies on the ring: look beyond it
			continue
		}
		if bv <= s.ringBound(q)+1e-12*bv {
			return br*l.cols + bc, bv
		}
		if r < 4 {
			r++
		} else {
			r *= 2
		}
	}
}

// A square is the symbols within Chebyshev distance r of a centre, cut
// by the lattice's edges; an edge is an exit when symbols lie beyond it.
type square struct {
	r0, r1, c0, c1           int
	top, bottom, left, right bool
}

func (s *medianSearch) square(cr, cc, r int) square {
	l := s.l
	return square{
		r0: max(0, cr-r), r1: min(l.rows-1, cr+r), c0: max(0, cc-r), c1: min(l.cols-1, cc+r),
		bottom: cr-r > 0, top: cr+r < l.rows-1, left: cc-r > 0, right: cc+r < l.cols-1,
	}
}

func (q square) whole() bool { return !q.top && !q.bottom && !q.left && !q.right }

func (q square) onExit(r, c int) bool {
	return q.top && r == q.r1 || q.bottom && r == q.r0 || q.left && c == q.c0 || q.right && c == q.c1
}

// ringBound returns a lower bound of C on the square's exit edges, as
// continuous segments. For a symbol p of probe P and a point y,
// convexity gives C(y) ≥ C(p) + G·(y − p) + self·|y − p|, where G is the
// gradient of the other symbols' terms and self the weight of p's own,
// whose subgradients fill a ball. On a segment between neighbours p₁
// and p₂ of length s the two tangents bound C, and the bound's least
// value is at an end or where they cross.
func (s *medianSearch) ringBound(q square) float64 {
	lb := math.Inf(1)
	edge := func(fixed int, horizontal bool, from, to int) {
		if from == to {
			r, c := fixed, from
			if !horizontal {
				r, c = from, fixed
			}
			lb = min(lb, s.at(r, c).c)
			return
		}
		step := s.l.w
		if !horizontal {
			step = s.l.h
		}
		prev := s.edgeProbe(fixed, from, horizontal)
		for i := from + 1; i <= to; i++ {
			next := s.edgeProbe(fixed, i, horizontal)
			lb = min(lb, segmentBound(prev, next, step, horizontal))
			prev = next
		}
	}
	if q.top {
		edge(q.r1, true, q.c0, q.c1)
	}
	if q.bottom {
		edge(q.r0, true, q.c0, q.c1)
	}
	if q.left {
		edge(q.c0, false, q.r0, q.r1)
	}
	if q.right {
		edge(q.c1, false, q.r0, q.r1)
	}
	return lb
}

func (s *medianSearch) edgeProbe(fixed, i int, horizontal bool) probe {
	if horizontal {
		return s.at(fixed, i)
	}
	return s.at(i, fixed)
}

// segmentBound is the least value, on the segment from p₁ to p₂ of
// length s, of the larger of their tangent bounds
// L₁(t) = C₁ + a₁t and L₂(t) = C₂ + a₂(s − t).
func segmentBound(p1, p2 probe, s float64, horizontal bool) float64 {
	g1, g2 := p1.gx, p2.gx
	if !horizontal {
		g1, g2 = p1.gy, p2.gy
	}
	a1 := g1 + p1.self  // slope of L₁ towards p₂
	a2 := -g2 + p2.self // slope of L₂ towards p₁
	l1 := func(t float64) float64 { return p1.c + a1*t }
	l2 := func(t float64) float64 { return p2.c + a2*(s-t) }
	lb := min(max(l1(0), l2(0)), max(l1(s), l2(s)))
	if a1+a2 != 0 {
		if t := (p2.c + a2*s - p1.c) / (a1 + a2); t > 0 && t < s {
			lb = min(lb, max(l1(t), l2(t)))
		}
	}
	return lb
}

// priorError returns min_g Σ_x π_x d(x, g).
func (l *lattice) priorError(pi []float64) float64 {
	p := l.newPosterior(support(pi))
	for i, x := range p.xs {
		p.w[i] = pi[x]
		p.at[x] = pi[x]
		p.total += pi[x]
	}
	s := newMedianSearch(l)
	s.reset(p)
	_, v := s.best(p.mean(l))
	return v
}

func (l *lattice) newPosterior(xs []int32) *posterior {
	p := &posterior{xs: xs, w: make([]float64, len(xs)), off: make([]int, len(xs)), at: make([]float64, l.cells())}
	for i, x := range xs {
		p.off[i] = int(x)/l.cols*l.span + int(x)%l.cols
	}
	return p
}

// mean returns the row and column nearest the weights' mean.
func (p *posterior) mean(l *lattice) (int, int) {
	var r, c float64
	for i, x := range p.xs {
		r += p.w[i] * float64(int(x)/l.cols)
		c += p.w[i] * float64(int(x)%l.cols)
	}
	return min(l.rows-1, max(0, int(math.Round(r/p.total)))), min(l.cols-1, max(0, int(math.Round(c/p.total))))
}

// outputBlock is the outputs one worker of expectedError takes at once.
const outputBlock = 32

// expectedError returns E = Σ_z min_g Σ_x π_x A_xz d(x, g) and, for each
// radius, the probability that the minimising guess lies within it of
// the person's symbol. Each output's weights are read by columns
// (channelColumn); outputs are spread over the cores, and their terms
// added in output order.
func (l *lattice) expectedError(ctx context.Context, c Channel, pi []float64, radii []float64, progress func(float64)) (float64, []float64, error) {
	xs := support(pi)
	nz := c.Outputs()
	errs := make([]float64, nz)
	within := make([][]float64, len(radii))
	for i := range within {
		within[i] = make([]float64, nz)
	}
	blocks := (nz + outputBlock - 1) / outputBlock
	pool := make(chan *medianSearch, runtime.GOMAXPROCS(0))
	var (
		mu   sync.Mutex
		done int
	)
	linalg.Each(blocks, func(b int) {
		if ctx.Err() != nil {
			return
		}
		var s *medianSearch
		select {
		case s = <-pool:
		default:
			s = newMedianSearch(l)
			s.reset(l.newPosterior(xs))
		}
		p := s.p
		for z := b * outputBlock; z < min(nz, (b+1)*outputBlock); z++ {
			channelColumn(c, z, xs, p.w)
			p.total = 0
			for i, x := range xs {
				p.w[i] *= pi[x]
				p.at[x] = p.w[i]
				p.total += p.w[i]
			}
			if p.total == 0 {
				continue
			}
			s.reset(p)
			g, v := s.best(p.mean(l))
			errs[z] = v
			for j, r := range radii {
				within[j][z] = p.near(l, g, r)
			}
		}
		pool <- s
		mu.Lock()
		done++
		progress(float64(done) / float64(blocks))
		mu.Unlock()
	})
	if err := ctx.Err(); err != nil {
		return 0, nil, err
	}
	shares := make([]float64, len(radii))
	for j := range radii {
		shares[j] = compensatedSum(within[j])
	}
	return compensatedSum(errs), shares, nil
}

// near returns the weight of the symbols within r of g (r a hair
// wider, so that a distance equal to r counts).
func (p *posterior) near(l *lattice, g int, r float64) float64 {
	lim := r * (1 + 1e-12)
	s := 0.0
	for i, x := range p.xs {
		if l.dist[l.offset(int(x), g)] <= lim {
			s += p.w[i]
		}
	}
	return s
}

// channelColumn sets dst[i] = A(xs[i], z): k-RR's from its two values,
// else by Prob.
func channelColumn(c Channel, z int, xs []int32, dst []float64) {
	if t, ok := c.(twoValuedChannel); ok {
		tv := t.channel()
		for i, x := range xs {
			dst[i] = tv.off
			if int(x) == z {
				dst[i] += tv.diff
			}
		}
		return
	}
	for i, x := range xs {
		dst[i] = c.Prob(int(x), z)
	}
}

// compensatedSum adds v in order with Neumaier's compensation.
func compensatedSum(v []float64) float64 {
	var s, comp float64
	for _, x := range v {
		s, comp = twoSum(s, x, comp)
	}
	return s + comp
}
