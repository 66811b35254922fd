package core

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
)

// Transport returns the minimum cost of moving the mass of supply onto
// demand (equal totals) when moving one unit from i to j costs cost(i, j):
// the earth mover's distance for a ground distance. It is exact: the
// transportation problem is solved by the transportation simplex (MODI
// method, Dantzig 1951) from a least-cost starting basis, restricted to
// the symbols with positive mass, with Dantzig's pricing.
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
		return 0, &TooLargeError{What: "exact EMD", Need: fmt.Sprintf("a %d×%d transportation table (%.1f GB)", len(a), len(b), cells*8/1e9),
			Limit: fmt.Sprintf("%.0f cells (%.1f GB)", maxTransportCells, maxTransportCells*8/1e9)}
	}
	t := newTableau(len(a), len(b), func(i, j int) float64 { return cost(src[i], dst[j]) })
	t.start(a, b) // the least-cost start sorts the m×n cells: not cancellable inside
	if err := t.solve(ctx); err != nil {
		return 0, err
	}
	return t.total(), nil
}

// maxTransportCells bounds the m×n cost table of Transport: 1.25·10⁸
// cells, 1 GB, checked before it is allocated.
const maxTransportCells = 1.25e8

// A TooLargeError refuses work whose memory would exceed a limit, before
// anything is allocated.
type TooLargeError struct {
	What, Need, Limit string
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("core: %s needs %s, more than the limit of %s", e.What, e.Need, e.Limit)
}

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

// start builds a basis by the least-cost method, then joins the pieces of
// the forest with zero-flow cells into a spanning tree.
func (t *tableau) start(a, b []float64) {
	cells := make([]int, t.m*t.n)
	for k := range cells {
		cells[k] = k
	}
	sort.Slice(cells, func(x, y int) bool { return t.c[cells[x]] < t.c[cells[y]] })
	a, b = append([]float64(nil), a...), append([]float64(nil), b...)
	rowDone, colDone := make([]bool, t.m), make([]bool, t.n)
	parent := make([]int, t.m+t.n)
	for k := range parent {
		parent[k] = k
	}
	find := func(x int) int {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	for _, k := range cells {
		i, j := k/t.n, k%t.n
		if rowDone[i] || colDone[j] {
			continue
		}
		f := math.Min(a[i], b[j])
		t.addBasic(i, j, f)
		parent[find(i)] = find(t.m + j)
		a[i] -= f
		b[j] -= f
		if a[i] <= b[j] {
			rowDone[i] = true
		} else {
			colDone[j] = true
		}
	}
	for _, k := range cells {
		if len(t.flow) == t.m+t.n-1 {
			break
		}
		i, j := k/t.n, k%t.n
		if ri, rj := find(i), find(t.m+j); ri != rj {
			t.addBasic(i, j, 0)
			parent[ri] = rj
		}
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

// path returns the nodes of the tree path from node from to node to.
func (t *tableau) path(from, to int) []int {
	prev := make([]int, t.m+t.n)
	for k := range prev {
		prev[k] = -1
	}
	prev[from] = from
	queue := []int{from}
	for len(queue) > 0 && prev[to] < 0 {
		x := queue[0]
		queue = queue[1:]
		for _, y := range t.adj[x] {
			if prev[y] < 0 {
				prev[y] = x
				queue = append(queue, y)
			}
		}
	}
	var p []int
	for x := to; x != from; x = prev[x] {
		p = append(p, x)
	}
	return append(p, from)
}

// solve pivots until no cell has a negative reduced cost.
func (t *tableau) solve(ctx context.Context) error {
	tol := 1e-12 * math.Max(t.scale, 1)
	for iter := 0; iter < 50*(t.m+t.n)*(t.m+t.n); iter++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		t.potentials()
		best, bi, bj := -tol, -1, -1
		for i := range t.m {
			row := t.c[i*t.n : (i+1)*t.n]
			for j, c := range row {
				if r := c - t.u[i] - t.v[j]; r < best {
					best, bi, bj = r, i, j
				}
			}
		}
		if bi < 0 {
			return nil
		}
		t.pivot(bi, bj)
	}
	return errors.New("core: transport: the simplex did not terminate")
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
	t.removeBasic(cells[leave].i, cells[leave].j)
	t.addBasic(i, j, theta)
}

// total returns Σ flow·cost.
func (t *tableau) total() float64 {
	s := 0.0
	for k, c := range t.c { // in cell order, so that the sum is reproducible
		if f, ok := t.flow[k]; ok {
			s += f * c
		}
	}
	return s
}
