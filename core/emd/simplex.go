package emd

import (
	"context"
	"errors"
	"math"
)

// tableau is a transportation problem with m rows (sources) and n
// columns (sinks). Its basis is a spanning tree of m+n−1 cells over the
// nodes 0..m−1 (rows) and m..m+n−1 (columns), kept as a tree rooted at
// node 0: each node's parent, depth, children and the flow of the cell
// joining it to its parent, as in the network simplex of LEMON and POT
// (Kovács 2015, §3.2), so that a pivot costs its cycle and the subtree
// it moves, not a search of the whole tree.
type tableau struct {
	m, n  int
	costs costTable
	scale float64
	basis []basic // the start's cells, planted as the tree

	parent []int32 // −1 at the root
	depth  []int32
	// Each node's children as a doubly linked list, in flat arrays
	// (−1 ends), so that a subtree is walked without a stack.
	child, next, prev []int32
	up                []float64 // flow of the cell between x and parent[x]
	pot               []float64 // u_i = pot[i], v_j = pot[m+j]: u_i + v_j = c_ij on the basis

	// Pricing (see price): each row's cheapest columns, the cells found
	// negative and not yet entered, where the scans resume, and a row's
	// costs.
	short     [][]cell
	cand      []cell
	nextShort int
	buf       []float64

	pathA, pathB []int32 // pivot's buffers
}

// cell is a cell of the table and its cost.
type cell struct {
	i, j int32
	c    float64
}

// costTable gives the costs of a transportation problem.
type costTable interface {
	// row returns row i's costs, in buf (of length n) or not.
	row(i int, buf []float64) []float64
	at(i, j int) float64
	// cheapest returns the cells of row i's l least costs.
	cheapest(i, l int, h *shortHeap, buf []float64) []cell
	// max returns an upper bound on the costs' absolute values.
	max() float64
}

// denseCosts is an m×n table of costs.
type denseCosts struct {
	c    []float64
	n    int
	most float64
}

func (d denseCosts) row(i int, _ []float64) []float64 { return d.c[i*d.n : (i+1)*d.n] }
func (d denseCosts) at(i, j int) float64              { return d.c[i*d.n+j] }
func (d denseCosts) max() float64                     { return d.most }
func (d denseCosts) cheapest(i, l int, h *shortHeap, _ []float64) []cell {
	h.reset()
	for j, c := range d.c[i*d.n : (i+1)*d.n] {
		h.push(c, int32(j), l)
	}
	return h.cells(i)
}

// basic is a cell of the start's basis and its flow.
type basic struct {
	i, j int32
	f    float64
}

// newTableau lists each row's cheapest columns (see shortlistLen) for
// supplies a and n columns.
func newTableau(ctx context.Context, a []float64, n int, costs costTable) (*tableau, error) {
	m := len(a)
	t := &tableau{m: m, n: n, costs: costs, scale: costs.max(), short: make([][]cell, m), buf: make([]float64, n)}
	mean := sumFloat(a) / float64(n)
	var h shortHeap
	for i := range m {
		if i&63 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		t.short[i] = costs.cheapest(i, min(n, shortlistLen+int(math.Ceil(a[i]/mean))), &h, t.buf)
	}
	return t, nil
}

// cost returns the cost of the cell joining nodes x and y.
func (t *tableau) cost(x, y int32) float64 {
	if int(x) < t.m {
		return t.costs.at(int(x), int(y)-t.m)
	}
	return t.costs.at(int(y), int(x)-t.m)
}

// plant roots the start's basis at node 0: parents, children, depths,
// the flows on the parent edges and the potentials.
func (t *tableau) plant() {
	nodes := t.m + t.n
	edges := make([][]int32, nodes) // node → basis indices
	for e, b := range t.basis {
		i, j := b.i, int32(t.m)+b.j
		edges[i] = append(edges[i], int32(e))
		edges[j] = append(edges[j], int32(e))
	}
	t.parent, t.depth = make([]int32, nodes), make([]int32, nodes)
	t.child, t.next, t.prev = make([]int32, nodes), make([]int32, nodes), make([]int32, nodes)
	for x := range nodes {
		t.parent[x], t.child[x] = -1, -1
	}
	t.up, t.pot = make([]float64, nodes), make([]float64, nodes)
	stack := []int32{0}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, e := range edges[x] {
			b := t.basis[e]
			y := b.i
			if y == x {
				y = int32(t.m) + b.j
			}
			if y == t.parent[x] {
				continue
			}
			t.attach(y, x)
			t.depth[y], t.up[y] = t.depth[x]+1, b.f
			t.pot[y] = t.cost(x, y) - t.pot[x]
			stack = append(stack, y)
		}
	}
	t.basis = nil
}

// attach makes x a child of p.
func (t *tableau) attach(x, p int32) {
	t.parent[x], t.prev[x], t.next[x] = p, -1, t.child[p]
	if c := t.child[p]; c >= 0 {
		t.prev[c] = x
	}
	t.child[p] = x
}

// detach takes x out of its parent's children.
func (t *tableau) detach(x int32) {
	if p := t.prev[x]; p >= 0 {
		t.next[p] = t.next[x]
	} else {
		t.child[t.parent[x]] = t.next[x]
	}
	if n := t.next[x]; n >= 0 {
		t.prev[n] = t.prev[x]
	}
}

// walk calls visit on the nodes of x's subtree, x first and each
// node after its parent.
func (t *tableau) walk(x int32, visit func(y int32)) {
	for y := x; ; {
		visit(y)
		if c := t.child[y]; c >= 0 {
			y = c
			continue
		}
		for y != x && t.next[y] < 0 {
			y = t.parent[y]
		}
		if y == x {
			return
		}
		y = t.next[y]
	}
}

// potentials solves u_i + v_j = c_ij over the basis tree afresh, u_0 = 0,
// against the drift of the pivots' incremental updates.
func (t *tableau) potentials() {
	t.pot[0] = 0
	t.walk(0, func(y int32) {
		if p := t.parent[y]; p >= 0 {
			t.pot[y] = t.cost(p, y) - t.pot[p]
		}
	})
}

// reduced returns the reduced cost of cell c.
func (t *tableau) reduced(c cell) float64 {
	return c.c - t.pot[c.i] - t.pot[t.m+int(c.j)]
}

// shortlistLen is the least number of each row's cheapest columns
// priced first. On grids the optimal transport moves mass to nearby
// cells, so a dozen hold nearly every entering cell; a row of much mass
// spreads over about a_i/b̄ columns (b̄ the mean demand), and its list
// is that much longer. 12 and 1·a_i/b̄ were fastest on New York's
// 0.5 km grid among 8–32 and ½–2·a_i/b̄.
const shortlistLen = 12

// shortHeap is a max-heap of costs and their columns.
type shortHeap []struct {
	c float64
	j int32
}

func (h *shortHeap) reset() { *h = (*h)[:0] }

// push offers column j of cost c to a heap of at most l: the l least
// costs offered are kept.
func (h *shortHeap) push(c float64, j int32, l int) {
	switch {
	case len(*h) < l:
		*h = append(*h, struct {
			c float64
			j int32
		}{c, j})
		if len(*h) == l {
			for k := l/2 - 1; k >= 0; k-- {
				h.down(k)
			}
		}
	case c < (*h)[0].c:
		(*h)[0].c, (*h)[0].j = c, j
		h.down(0)
	}
}

// full reports whether the heap holds l costs, and the largest.
func (h shortHeap) full(l int) (float64, bool) {
	if len(h) < l {
		return 0, false
	}
	return h[0].c, true
}

// cells returns the heap's columns as row i's cells.
func (h shortHeap) cells(i int) []cell {
	out := make([]cell, len(h))
	for k, e := range h {
		out[k] = cell{int32(i), e.j, e.c}
	}
	return out
}

func (h shortHeap) down(k int) {
	n := len(h)
	for {
		l := 2*k + 1
		if l >= n {
			return
		}
		c := l
		if r := l + 1; r < n && h[r].c > h[l].c {
			c = r
		}
		if !(h[c].c > h[k].c) {
			return
		}
		h[k], h[c] = h[c], h[k]
		k = c
	}
}

// solve pivots until no cell has a negative reduced cost.
func (t *tableau) solve(ctx context.Context) error {
	tol := 1e-12 * math.Max(t.scale, 1)
	for iter := 0; iter < 50*(t.m+t.n)*(t.m+t.n); iter++ {
		if iter&255 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if iter%1024 == 1023 {
			t.potentials()
		}
		c, ok := t.price(tol)
		if !ok {
			return nil
		}
		t.pivot(c)
	}
	return errors.New("core: transport: the simplex did not terminate")
}

// price returns a cell of reduced cost below −tol, or false when none
// is left. The most negative of the cells found before (multiple
// partial pricing) enters while any is still negative; else the rows'
// shortlists are scanned, a block at a time from where the last scan
// stopped (block search, Grigoriadis 1986, as in LEMON and POT), and
// only when a whole round of them finds none are all m·n cells scanned
// (the shortlist method, Gottschlich & Schuhmacher 2014), the negative
// ones joining their rows' shortlists. Optimality is declared only after
// a scan of every cell finds none, so the result is as exact as with
// full pricing.
func (t *tableau) price(tol float64) (cell, bool) {
	best, bk, keep := -tol, -1, t.cand[:0]
	for _, c := range t.cand {
		if r := t.reduced(c); r < -tol {
			if r < best {
				best, bk = r, len(keep)
			}
			keep = append(keep, c)
		}
	}
	t.cand = keep
	if bk < 0 {
		bk = t.scanShort(tol)
	}
	if bk < 0 {
		// A full scan on potentials solved afresh, so that when it finds
		// no negative cell the basis is optimal.
		t.potentials()
		bk = t.scanAll(tol)
	}
	if bk < 0 {
		return cell{}, false
	}
	return t.cand[bk], true
}

// shortBlock is the number of shortlist cells a block of scanShort
// holds: 4096 was the fastest of 64–16,384 on New York's estimates.
const shortBlock = 4096

// scanShort scans the shortlists by blocks of rows until a block holds
// negative cells, or for one round; it adds them to the candidates and
// returns the most negative's index there, or −1.
func (t *tableau) scanShort(tol float64) int {
	best, bk := -tol, -1
	for rows := 0; rows < t.m && len(t.cand) == 0; {
		for seen := 0; seen < shortBlock && rows < t.m; rows++ {
			i := t.nextShort
			ui := t.pot[i]
			seen += len(t.short[i])
			for _, c := range t.short[i] {
				if r := c.c - ui - t.pot[t.m+int(c.j)]; r < -tol {
					if r < best {
						best, bk = r, len(t.cand)
					}
					t.cand = append(t.cand, c)
				}
			}
			if t.nextShort++; t.nextShort == t.m {
				t.nextShort = 0
			}
		}
	}
	return bk
}

// scanAll scans every cell, a row at a time, adds the negative ones to
// the candidates and to their rows' shortlists, and returns the most
// negative's index among the candidates, or −1.
func (t *tableau) scanAll(tol float64) int {
	best, bk := -tol, -1
	v := t.pot[t.m:]
	for i := range t.m {
		ui := t.pot[i]
		for j, c := range t.costs.row(i, t.buf) {
			if r := c - ui - v[j]; r < -tol {
				if r < best {
					best, bk = r, len(t.cand)
				}
				e := cell{int32(i), int32(j), c}
				t.cand = append(t.cand, e)
				t.short[i] = append(t.short[i], e) // priced first from now on
			}
		}
	}
	return bk
}

// cycle finds the tree paths from row a and column b up to where they
// meet, moves θ around the cycle they close with cell (a, b) and returns
// θ, the leaving cell's lower node, and whether it is on a's path.
func (t *tableau) cycle(a, b int32) (theta float64, leave int32, onA bool) {
	pa, pb := t.pathA[:0], t.pathB[:0]
	for x, y := a, b; x != y; {
		if t.depth[x] >= t.depth[y] {
			pa, x = append(pa, x), t.parent[x]
		} else {
			pb, y = append(pb, y), t.parent[y]
		}
	}
	t.pathA, t.pathB = pa, pb
	m := int32(t.m)
	theta, leave = math.Inf(1), -1
	for _, x := range pa { // crossed upwards: a row's cell row → column
		if x < m && t.up[x] < theta {
			theta, leave, onA = t.up[x], x, true
		}
	}
	for _, y := range pb { // crossed downwards: a column's cell row → column
		if y >= m && t.up[y] < theta {
			theta, leave, onA = t.up[y], y, false
		}
	}
	for _, x := range pa {
		t.up[x] += theta * sign(x >= m)
	}
	for _, y := range pb {
		t.up[y] += theta * sign(y < m)
	}
	return theta, leave, onA
}

// sign returns 1 if gain, else −1.
func sign(gain bool) float64 {
	if gain {
		return 1
	}
	return -1
}

// pivot brings cell (i, j) into the basis along its cycle: the cell,
// then the tree paths from row i and from column j up to where they
// meet. Walking the cycle from row i up, across and down to column j,
// a cell crossed from its row to its column loses the flow θ and one
// crossed from its column to its row gains it; θ is the least flow of
// the losing cells, and the first of them to reach it leaves. The
// subtree the leaving cell cut off is re-hung from the entering cell,
// and its depths and potentials are updated: O(cycle + subtree).
func (t *tableau) pivot(e cell) {
	m := int32(t.m)
	a, b := e.i, int32(t.m)+e.j
	r := t.reduced(e)
	theta, leave, onA := t.cycle(a, b)
	q, other := b, a // q: the entering cell's end below the leaving cell
	if onA {
		q, other = a, b
	}
	// Re-hang the path q … leave: reverse its parents and flows.
	prev, prevUp, cur := other, theta, q
	for {
		next, nextUp := t.parent[cur], t.up[cur]
		t.detach(cur)
		t.attach(cur, prev)
		t.up[cur] = prevUp
		if cur == leave {
			break
		}
		prev, prevUp, cur = cur, nextUp, next
	}
	// The moved subtree's rows rise by r and its columns fall by r when
	// it holds row i, the reverse when it holds column j, so that
	// u_i + v_j = c_ij on the entering cell and on the subtree's cells.
	s := r
	if !onA {
		s = -r
	}
	t.walk(q, func(y int32) {
		t.depth[y] = t.depth[t.parent[y]] + 1
		if y < m {
			t.pot[y] += s
		} else {
			t.pot[y] -= s
		}
	})
}

// total returns Σ flow·cost over the basis, summed in node order so that
// the sum is reproducible.
func (t *tableau) total() float64 {
	s := 0.0
	for x := 1; x < t.m+t.n; x++ {
		s += t.up[x] * t.cost(int32(x), t.parent[x])
	}
	return s
}
