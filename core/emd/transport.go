package emd

import (
	"cmp"
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
// transportation problem is solved by the network simplex on the
// symbols with positive mass (see tableau), from a least-cost start.
// Its m×n costs are computed once into a table, checked against the
// memory first.
//
// Hand-rolled because gonum's dense simplex (optimize/convex/lp) cannot
// take the 384×384 transportation problems of a city grid, and no Go
// library solves transportation problems. Cancelling ctx stops it with
// ctx's error.
func Transport(ctx context.Context, supply, demand []float64, cost func(i, j int) float64) (float64, error) {
	return transport(ctx, supply, demand, func(src, dst []int) (costTable, error) {
		if err := core.CheckMemory("exact EMD", float64(len(src))*float64(len(dst))*8); err != nil {
			return nil, err
		}
		d := denseCosts{c: make([]float64, len(src)*len(dst)), n: len(dst)}
		for k, i := range src {
			row := d.c[k*d.n : (k+1)*d.n]
			for l, j := range dst {
				row[l] = cost(i, j)
				d.most = max(d.most, math.Abs(row[l]))
			}
		}
		return d, nil
	})
}

// gridCosts returns the costs on grid a, computed when asked from the
// cells' rows and columns: hypot(Δrow·height, Δcol·width) of the true
// cell sides (core.Alphabet.CellSides), read from a table
// of the grid's offsets, equal to a.Distance bit for bit. No m×n table
// is stored (the "cost matrix computed lazily").
func gridCosts(a core.Alphabet) func(src, dst []int) (costTable, error) {
	return func(src, dst []int) (costTable, error) {
		g := gridTable{cols: a.Cols, off: make([]float64, a.Rows*a.Cols), src: make([]int32, 2*len(src)), dst: make([]int32, 2*len(dst)), col: make([]int32, len(dst))}
		w, h := a.CellSides()
		for dr := range a.Rows {
			for dc := range a.Cols {
				g.off[dr*a.Cols+dc] = math.Hypot(float64(dr)*h, float64(dc)*w)
			}
		}
		for k, i := range src {
			g.src[2*k], g.src[2*k+1] = int32(i/a.Cols), int32(i%a.Cols)
		}
		for k, j := range dst {
			if r := int32(j / a.Cols); len(g.runs) == 0 || g.runs[len(g.runs)-1].row != r {
				g.runs = append(g.runs, run{row: r, start: int32(k)})
			}
			g.col[k] = int32(j % a.Cols)
			g.dst[2*k], g.dst[2*k+1] = int32(j/a.Cols), int32(j%a.Cols)
		}
		g.runs = append(g.runs, run{row: -1, start: int32(len(dst))})
		return g, nil
	}
}

// gridTable is the costs between grid cells: src and dst hold the
// sources' and sinks' (row, column) pairs; the sinks, in increasing
// order, are also runs of one row each, col their columns, for row's
// loop; off is the distance of each offset (|Δrow|·cols + |Δcol|).
type gridTable struct {
	cols     int
	off      []float64
	src, dst []int32
	runs     []run // and an end marker
	col      []int32
}

// run is the sinks from start on, up to the next run's, all on one row.
type run struct{ row, start int32 }

func (g gridTable) row(i int, buf []float64) []float64 {
	r, c := g.src[2*i], g.src[2*i+1]
	for k, u := range g.runs[:len(g.runs)-1] {
		off := g.off[int(abs32(u.row-r))*g.cols:]
		end := g.runs[k+1].start
		for l, dc := range g.col[u.start:end] {
			buf[int(u.start)+l] = off[abs32(dc-c)]
		}
	}
	return buf
}

func (g gridTable) max() float64 { return g.off[len(g.off)-1] }

// cheapest takes the runs outwards from row i's, nearest first, and
// stops on each side at the first run whose row alone is farther than
// the l-th least cost so far: O(cells of the nearby rows), not O(n).
func (g gridTable) cheapest(i, l int, h *shortHeap, _ []float64) []cell {
	h.reset()
	r, c := g.src[2*i], g.src[2*i+1]
	runs := g.runs[:len(g.runs)-1]
	up, _ := slices.BinarySearchFunc(runs, r, func(u run, r int32) int { return cmp.Compare(u.row, r) })
	down := up - 1 // runs[up:] are at or below row r, runs[:up] above
	for up < len(runs) || down >= 0 {
		// The nearer of the next run on each side.
		k := up
		if up == len(runs) || (down >= 0 && r-runs[down].row < runs[up].row-r) {
			k, down = down, down-1
		} else {
			up++
		}
		u := runs[k]
		off := g.off[int(abs32(u.row-r))*g.cols:]
		if most, full := h.full(l); full && off[0] >= most {
			break // every run left is at least as far
		}
		for j := u.start; j < g.runs[k+1].start; j++ {
			h.push(off[abs32(g.col[j]-c)], j, l)
		}
	}
	return h.cells(i)
}

func (g gridTable) at(i, j int) float64 {
	dr, dc := g.dst[2*j]-g.src[2*i], g.dst[2*j+1]-g.src[2*i+1]
	return g.off[int(abs32(dr))*g.cols+int(abs32(dc))]
}

func abs32(x int32) int32 {
	if x < 0 {
		return -x
	}
	return x
}

// transport is Transport with the costs between the symbols that send
// and receive mass given by costs.
func transport(ctx context.Context, supply, demand []float64, costs func(src, dst []int) (costTable, error)) (float64, error) {
	a, src, err := positive(supply, "supply")
	if err != nil {
		return 0, err
	}
	b, dst, err := positive(demand, "demand")
	if err != nil {
		return 0, err
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
		return 0, &core.TooLargeError{What: "exact EMD", Need: fmt.Sprintf("a %d×%d transportation problem (%.2g cells)", len(a), len(b), cells),
			Limit: fmt.Sprintf("%.3g cells", maxTransportCells)}
	}
	table, err := costs(src, dst)
	if err != nil {
		return 0, err
	}
	t, err := newTableau(ctx, a, len(b), table)
	if err != nil {
		return 0, err
	}
	if err := t.start(ctx, a, b); err != nil {
		return 0, err
	}
	if err := t.solve(ctx); err != nil {
		return 0, err
	}
	return t.total(), nil
}

// positive returns the entries of v above zero and their symbols, or an
// error naming what (supply, demand) when one is negative.
func positive(v []float64, what string) ([]float64, []int, error) {
	var mass []float64
	var at []int
	for i, x := range v {
		if x < 0 {
			return nil, nil, errors.New("core: transport: negative " + what)
		}
		if x > 0 {
			mass, at = append(mass, x), append(at, i)
		}
	}
	return mass, at, nil
}

// maxTransportCells bounds the m×n cells of a transportation problem,
// 1.25·10⁸: Transport's cost table (1 GB) and the time of a round of
// full pricing (about 0.4 s on a grid), checked before it starts.
const maxTransportCells = 1.25e8

func sumFloat(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s
}

// start builds a basis by the least-cost method, then joins the pieces
// of the forest with zero-flow cells into a spanning tree. The cells of
// the rows' shortlists are taken in order of cost; the rows they leave
// with supply (few, or none) take their columns in order of cost
// lazily — a heap of each row's columns, and a heap of the rows'
// cheapest — so that a start costs O(m·list·log) and O(log) a cell
// taken, not a sort of all m×n cells, and it hears ctx.
func (t *tableau) start(ctx context.Context, a, b []float64) error {
	s := &starter{t: t, a: slices.Clone(a), b: slices.Clone(b), rowDone: make([]bool, t.m), colDone: make([]bool, t.n), f: newForest(t.m + t.n)}
	s.shortlists()
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := s.rest(ctx); err != nil {
		return err
	}
	// Join the trees of the forest through row 0 and column 0.
	for j := range t.n {
		if s.f.join(0, t.m+j) {
			t.basis = append(t.basis, basic{0, int32(j), 0})
		}
	}
	for i := range t.m {
		if s.f.join(i, t.m) {
			t.basis = append(t.basis, basic{int32(i), 0, 0})
		}
	}
	t.plant()
	return nil
}

// starter is start's state: the supplies and demands left, the rows and
// columns done, and the forest of the cells taken.
type starter struct {
	t                *tableau
	a, b             []float64
	rowDone, colDone []bool
	f                forest
}

// take ships what it can on cell (i, j), closing its row or its column.
func (s *starter) take(i, j int) {
	flow := math.Min(s.a[i], s.b[j])
	s.t.basis = append(s.t.basis, basic{int32(i), int32(j), flow})
	s.f.join(i, s.t.m+j)
	s.a[i] -= flow
	s.b[j] -= flow
	if s.a[i] <= s.b[j] {
		s.rowDone[i] = true
	} else {
		s.colDone[j] = true
	}
}

// shortlists takes the shortlists' cells in order of cost.
func (s *starter) shortlists() {
	var short []cell
	for _, list := range s.t.short {
		short = append(short, list...)
	}
	slices.SortFunc(short, func(x, y cell) int {
		return cmp.Or(cmp.Compare(x.c, y.c), cmp.Compare(x.i, y.i), cmp.Compare(x.j, y.j))
	})
	for _, c := range short {
		if i, j := int(c.i), int(c.j); !s.rowDone[i] && !s.colDone[j] {
			s.take(i, j)
		}
	}
}

// rest takes the cells of the rows left with supply in order of cost.
func (s *starter) rest(ctx context.Context) error {
	var open []int
	for i, done := range s.rowDone {
		if !done {
			open = append(open, i)
		}
	}
	rows, top, err := s.t.rowHeaps(ctx, open, s.colDone)
	if err != nil {
		return err
	}
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
		if s.colDone[j] {
			next(i)
			continue
		}
		if s.take(i, j); s.rowDone[i] {
			top.pop()
		} else {
			next(i)
		}
	}
	return nil
}

// rowHeaps returns a heap of each of rows' open columns by cost
// (indexed by row, empty for the others) and a heap of those rows by
// their cheapest.
func (t *tableau) rowHeaps(ctx context.Context, rows []int, colDone []bool) ([]costHeap, *costHeap, error) {
	heaps := make([]costHeap, t.m)
	top := &costHeap{key: func(i int32) float64 { return heaps[i].minCost() }}
	for k, i := range rows {
		if k&15 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
		}
		row := slices.Clone(t.costs.row(i, t.buf))
		h := costHeap{key: func(j int32) float64 { return row[j] }}
		for j, done := range colDone {
			if !done {
				h.items = append(h.items, int32(j))
			}
		}
		if len(h.items) == 0 {
			continue
		}
		h.init()
		heaps[i] = h
		top.items = append(top.items, int32(i))
	}
	top.init()
	return heaps, top, nil
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
