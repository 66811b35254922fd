package emd

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/privmap/privmap/core"
)

// Transport returns the minimum cost of moving the mass of supply onto
// demand (equal totals) when moving one unit from i to j costs cost(i, j):
// the earth mover's distance for a ground distance. It is exact: the
// transportation problem is solved by the transportation simplex (MODI
// method, Dantzig 1951) from a least-cost starting basis, restricted to
// the symbols with positive mass, with block pricing.
//
// Hand-rolled because gonum's dense simplex (optimize/convex/lp) cannot
// take the 384×384 transportation problems of a city grid; the spanning
// tree basis makes each pivot O(m+n) besides the O(mn) pricing.
// Cancelling ctx stops the pivots with ctx's error.
func Transport(ctx context.Context, supply, demand []float64, cost func(i, j int) float64) (float64, error) {
	var src, dst []int
	var a, b []float64
	for i, v := range supply {
		if v < 0 {
			return 0, errors.New("core: transport: negative supply")
		}
		if v > 0 {
			src, a = append(src, i), append(a, v)
		}
	}
	for j, v := range demand {
		if v < 0 {
			return 0, errors.New("core: transport: negative demand")
		}
		if v > 0 {
			dst, b = append(dst, j), append(b, v)
		}
	}
	if len(a) == 0 || len(b) == 0 {
		return 0, errors.New("core: transport: no mass")
	}
	// Scale the demand to the supply's total, so that rounding in the
	// inputs cannot make the problem infeasible.
	sa, sb := sumFloat(a), sumFloat(b)
	for j := range b {
		b[j] *= sa / sb
	}
	if cells := float64(len(a)) * float64(len(b)); cells > maxTransportCells {
		return 0, &core.TooLargeError{What: "exact EMD", Need: fmt.Sprintf("a %d×%d transportation table (%.1f GB)", len(a), len(b), cells*8/1e9),
			Limit: fmt.Sprintf("%.0f cells (%.1f GB)", maxTransportCells, maxTransportCells*8/1e9)}
	}
	if err := core.CheckMemory("exact EMD", float64(len(a))*float64(len(b))*8); err != nil {
		return 0, err
	}
	t := newTableau(len(a), len(b), func(i, j int) float64 { return cost(src[i], dst[j]) })
	if err := t.start(ctx, a, b); err != nil {
		return 0, err
	}
	if err := t.solve(ctx); err != nil {
		return 0, err
	}
	return t.total(), nil
}

// maxTransportCells bounds the m×n cost table of Transport: 1.25·10⁸
// cells, 1 GB, checked before it is allocated.
const maxTransportCells = 1.25e8

func sumFloat(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s
}

// tableau is a transportation problem with m rows (sources) and n
// columns (sinks); the basis is a spanning tree of m+n−1 cells over the
// nodes 0..m−1 (rows) and m..m+n−1 (columns).
type tableau struct {
	m, n  int
	c     []float64 // m×n costs
	flow  map[int]float64
	adj   [][]int // basis tree: node → neighbour nodes
	u, v  []float64
	scale float64
	// mark and epoch label the nodes of smallerSide's searches.
	mark  []int32
	epoch int32
	cand  []int // cells entering soon (price)
	// path's and smallerSide's buffers.
	prev, seen, queue []int32
	route             []int
	sideA, sideB      []int
}

func newTableau(m, n int, cost func(i, j int) float64) *tableau {
	t := &tableau{m: m, n: n, c: make([]float64, m*n), flow: map[int]float64{}, adj: make([][]int, m+n),
		u: make([]float64, m), v: make([]float64, n)}
	for i := range m {
		for j := range n {
			c := cost(i, j)
			t.c[i*n+j] = c
			t.scale = math.Max(t.scale, math.Abs(c))
		}
	}
	return t
}

func (t *tableau) addBasic(i, j int, f float64) {
	t.flow[i*t.n+j] = f
	t.adj[i] = append(t.adj[i], t.m+j)
	t.adj[t.m+j] = append(t.adj[t.m+j], i)
}

func (t *tableau) removeBasic(i, j int) {
	delete(t.flow, i*t.n+j)
	t.adj[i] = dropNode(t.adj[i], t.m+j)
	t.adj[t.m+j] = dropNode(t.adj[t.m+j], i)
}

func dropNode(s []int, x int) []int {
	for k, y := range s {
		if y == x {
			s[k] = s[len(s)-1]
			return s[:len(s)-1]
		}
	}
	return s
}

// start builds a basis by the least-cost method, then joins the pieces
// of the forest with zero-flow cells into a spanning tree. The cells are
// taken in order of cost lazily — a heap of each row's columns, and a
// heap of the rows' cheapest — so that a start costs O(mn) to set up and
// O(log) a cell taken, not a sort of all m×n cells, and it hears ctx.
func (t *tableau) start(ctx context.Context, a, b []float64) error {
	rows, top, err := t.rowHeaps(ctx)
	if err != nil {
		return err
	}
	a, b = append([]float64(nil), a...), append([]float64(nil), b...)
	colDone := make([]bool, t.n)
	f := newForest(t.m + t.n)
	// next drops row i's cheapest column, and the row once it has none.
	next := func(i int) {
		rows[i].pop()
		if len(rows[i].items) == 0 {
			top.pop()
		} else {
			top.fix(0)
		}
	}
	for steps := 0; len(top.items) > 0; steps++ {
		if steps&4095 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		i := int(top.items[0])
		j := int(rows[i].items[0])
		if colDone[j] {
			next(i)
			continue
		}
		flow := math.Min(a[i], b[j])
		t.addBasic(i, j, flow)
		f.join(i, t.m+j)
		a[i] -= flow
		b[j] -= flow
		if a[i] <= b[j] {
			rows[i].items = nil // the row is done
			top.pop()
		} else {
			colDone[j] = true
			next(i)
		}
	}
	// Join the trees of the forest: any cell between two of them will do.
	for i := 0; i < t.m && len(t.flow) < t.m+t.n-1; i++ {
		for j := 0; j < t.n && len(t.flow) < t.m+t.n-1; j++ {
			if f.join(i, t.m+j) {
				t.addBasic(i, j, 0)
			}
		}
	}
	return nil
}

// rowHeaps returns a heap of each row's columns by cost and a heap of
// the rows by their cheapest column.
func (t *tableau) rowHeaps(ctx context.Context) ([]costHeap, *costHeap, error) {
	rows := make([]costHeap, t.m)
	top := &costHeap{key: func(i int32) float64 { return rows[i].minCost() }}
	for i := range t.m {
		if i&15 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
		}
		row := t.c[i*t.n : (i+1)*t.n]
		h := costHeap{items: make([]int32, t.n), key: func(j int32) float64 { return row[j] }}
		for j := range h.items {
			h.items[j] = int32(j)
		}
		h.init()
		rows[i] = h
		top.items = append(top.items, int32(i))
	}
	top.init()
	return rows, top, nil
}

// forest is a union–find over the nodes of the basis being built.
type forest []int

func newForest(n int) forest {
	f := make(forest, n)
	for k := range f {
		f[k] = k
	}
	return f
}

func (f forest) find(x int) int {
	for f[x] != x {
		f[x] = f[f[x]]
		x = f[x]
	}
	return x
}

// join merges the trees of x and y and reports whether they were apart.
func (f forest) join(x, y int) bool {
	rx, ry := f.find(x), f.find(y)
	f[rx] = ry
	return rx != ry
}

// costHeap is a binary min-heap of indices ordered by key. Hand-rolled
// rather than container/heap, whose interface calls cost a third of the
// start on a city grid.
type costHeap struct {
	items []int32
	key   func(int32) float64
}

func (h *costHeap) minCost() float64 { return h.key(h.items[0]) }

func (h *costHeap) init() {
	for k := len(h.items)/2 - 1; k >= 0; k-- {
		h.fix(k)
	}
}

// fix moves item k down to its place.
func (h *costHeap) fix(k int) {
	n := len(h.items)
	for {
		l := 2*k + 1
		if l >= n {
			return
		}
		c := l
		if r := l + 1; r < n && h.key(h.items[r]) < h.key(h.items[l]) {
			c = r
		}
		if !(h.key(h.items[c]) < h.key(h.items[k])) {
			return
		}
		h.items[k], h.items[c] = h.items[c], h.items[k]
		k = c
	}
}

func (h *costHeap) pop() {
	n := len(h.items) - 1
	h.items[0] = h.items[n]
	h.items = h.items[:n]
	if n > 0 {
		h.fix(0)
	}
}

// potentials solves u_i + v_j = c_ij over the basis tree, u_0 = 0.
func (t *tableau) potentials() {
	seen := make([]bool, t.m+t.n)
	stack := []int{0}
	seen[0] = true
	t.u[0] = 0
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, y := range t.adj[x] {
			if seen[y] {
				continue
			}
			seen[y] = true
			if x < t.m { // y is a column
				t.v[y-t.m] = t.c[x*t.n+y-t.m] - t.u[x]
			} else {
				t.u[y] = t.c[y*t.n+x-t.m] - t.v[x-t.m]
			}
			stack = append(stack, y)
		}
	}
}

// path returns the nodes of the tree path from node from to node to, by
// a breadth-first search on buffers kept between pivots.
func (t *tableau) path(from, to int) []int {
	if len(t.prev) != t.m+t.n {
		t.prev, t.seen = make([]int32, t.m+t.n), make([]int32, t.m+t.n)
	}
	t.epoch++
	e := t.epoch
	t.seen[from], t.prev[from] = e, int32(from)
	queue := append(t.queue[:0], int32(from))
	for k := 0; k < len(queue) && t.seen[to] != e; k++ {
		x := queue[k]
		for _, y := range t.adj[x] {
			if t.seen[y] != e {
				t.seen[y], t.prev[y] = e, x
				queue = append(queue, int32(y))
			}
		}
	}
	t.queue = queue
	p := t.route[:0]
	for x := to; x != from; x = int(t.prev[x]) {
		p = append(p, x)
	}
	t.route = append(p, from)
	return t.route
}

// solve pivots until no cell has a negative reduced cost. Pricing is by
// blocks (Grigoriadis 1986, as in LEMON's and POT's network simplex):
// the cells are scanned from where the last scan stopped, a block of
// about √(mn) at a time, and the most negative reduced cost of the first
// block holding one enters. Optimality is declared only after a scan of
// every cell finds none below −tol, as with Dantzig's full pricing, so
// the result is as exact; a pivot costs O(block + m + n), not O(mn).
func (t *tableau) solve(ctx context.Context) error {
	tol := 1e-12 * math.Max(t.scale, 1)
	cells := t.m * t.n
	block := max(64, int(math.Sqrt(float64(cells))))
	next := 0
	t.potentials()
	for iter := 0; iter < 50*(t.m+t.n)*(t.m+t.n); iter++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if iter%1024 == 1023 {
			t.potentials() // against drift of the incremental updates
		}
		bk := t.price(&next, block, cells, tol)
		if bk < 0 {
			// Confirm optimality on potentials solved afresh.
			t.potentials()
			if bk = t.price(&next, block, cells, tol); bk < 0 {
				return nil
			}
		}
		t.pivot(bk/t.n, bk%t.n)
	}
	return errors.New("core: transport: the simplex did not terminate")
}

// price returns a cell of reduced cost below −tol, or −1 when none is
// left. It keeps a list of candidates (multiple partial pricing): the
// most negative of the list still below −tol enters; when none is, the
// cells are scanned from *next, a block at a time, collecting every
// negative one, until enough are found or a whole round found none.
func (t *tableau) price(next *int, block, cells int, tol float64) int {
	const enough = 128
	best, bk, keep := -tol, -1, t.cand[:0]
	for _, k := range t.cand {
		if r := t.c[k] - t.u[k/t.n] - t.v[k%t.n]; r < -tol {
			keep = append(keep, k)
			if r < best {
				best, bk = r, k
			}
		}
	}
	t.cand = keep
	if bk >= 0 {
		return bk
	}
	for scanned := 0; scanned < cells && len(t.cand) < enough; {
		end := min(*next+block, cells)
		i, j := *next/t.n, *next%t.n
		ui := t.u[i]
		for k := *next; k < end; k++ {
			if r := t.c[k] - ui - t.v[j]; r < -tol {
				t.cand = append(t.cand, k)
				if r < best {
					best, bk = r, k
				}
			}
			if j++; j == t.n {
				j = 0
				if i++; i < t.m {
					ui = t.u[i]
				}
			}
		}
		scanned += end - *next
		*next = end
		if *next == cells {
			*next = 0
		}
	}
	return bk
}

// pivot brings cell (i, j) into the basis along its cycle.
func (t *tableau) pivot(i, j int) {
	// The cycle: (i, j), then the tree path from column j back to row i.
	p := t.path(t.m+j, i) // p[0] = i, …, p[len−1] = m+j
	// Cells along the path from m+j to i alternate −, +, −, …
	type cell struct{ i, j int }
	cells := make([]cell, 0, len(p)-1)
	for k := len(p) - 1; k > 0; k-- {
		x, y := p[k], p[k-1]
		if x >= t.m {
			cells = append(cells, cell{y, x - t.m})
		} else {
			cells = append(cells, cell{x, y - t.m})
		}
	}
	theta, leave := math.Inf(1), -1
	for k := 0; k < len(cells); k += 2 {
		if f := t.flow[cells[k].i*t.n+cells[k].j]; f < theta {
			theta, leave = f, k
		}
	}
	for k, c := range cells {
		key := c.i*t.n + c.j
		if k%2 == 0 {
			t.flow[key] -= theta
		} else {
			t.flow[key] += theta
		}
	}
	li, lj := cells[leave].i, cells[leave].j
	t.removeBasic(li, lj)
	t.shiftSide(li, t.m+lj, i, j)
	t.addBasic(i, j, theta)
}

// shiftSide restores u_i + v_j = c_ij on the basis once cell (i, j)
// enters where the cell between nodes a and b left. Removing it cut the
// tree in two; the potentials of one side change by the reduced cost of
// (i, j), which side being free (potentials are defined up to a
// constant), so the smaller is found by searching from a and b in turn
// and shifted: O(smaller side), not O(m + n).
func (t *tableau) shiftSide(a, b, i, j int) {
	r := t.c[i*t.n+j] - t.u[i] - t.v[j]
	side := t.smallerSide(a, b)
	// If row i is on the shifted side, u_i must rise by r: rows of the
	// side rise by r and columns fall by r; else the reverse.
	sign := -1.0
	for _, x := range side {
		if x == i {
			sign = 1
			break
		}
	}
	for _, x := range side {
		if x < t.m {
			t.u[x] += sign * r
		} else {
			t.v[x-t.m] -= sign * r
		}
	}
}

// smallerSide returns the nodes of the smaller of the two trees of the
// forest holding a and b, searching both alternately.
func (t *tableau) smallerSide(a, b int) []int {
	if t.mark == nil {
		t.mark = make([]int32, t.m+t.n)
	}
	t.epoch += 2
	ea, eb := t.epoch, t.epoch+1 // marks of a's and b's side
	sa, sb := append(t.sideA[:0], a), append(t.sideB[:0], b)
	defer func() { t.sideA, t.sideB = sa[:0], sb[:0] }()
	t.mark[a], t.mark[b] = ea, eb
	for ka, kb := 0, 0; ; {
		if ka == len(sa) {
			return sa
		}
		if kb == len(sb) {
			return sb
		}
		x := sa[ka]
		ka++
		for _, y := range t.adj[x] {
			if t.mark[y] != ea {
				t.mark[y] = ea
				sa = append(sa, y)
			}
		}
		x = sb[kb]
		kb++
		for _, y := range t.adj[x] {
			if t.mark[y] != eb {
				t.mark[y] = eb
				sb = append(sb, y)
			}
		}
	}
}

// total returns Σ flow·cost, summed over the basic cells in cell order
// so that the sum is reproducible.
func (t *tableau) total() float64 {
	keys := make([]int, 0, len(t.flow))
	for k := range t.flow {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	s := 0.0
	for _, k := range keys {
		s += t.flow[k] * t.c[k]
	}
	return s
}
