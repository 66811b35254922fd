package emd

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"

	"gonum.org/v1/gonum/floats"

	"github.com/privmap/privmap/core"
)

// lpTransport solves the transportation problem with gonum's simplex in
// standard form: an independent check for small instances. The last row
// constraint is redundant and left out.
func lpTransport(t *testing.T, a, b []float64, cost func(i, j int) float64) float64 {
	t.Helper()
	m, n := len(a), len(b)
	rows := m + n - 1
	A := mat.NewDense(rows, m*n, nil)
	rhs := make([]float64, rows)
	c := make([]float64, m*n)
	for i := range m {
		for j := range n {
			c[i*n+j] = cost(i, j)
			A.Set(i, i*n+j, 1)
			if j < n-1 {
				A.Set(m+j, i*n+j, 1)
			}
		}
		rhs[i] = a[i]
	}
	for j := range n - 1 {
		rhs[m+j] = b[j]
	}
	opt, _, err := lp.Simplex(c, A, rhs, 1e-12, nil)
	if err != nil {
		t.Fatalf("gonum simplex: %v", err)
	}
	return opt
}

func randomDist(rng *rand.Rand, k int, zeros float64) []float64 {
	p := make([]float64, k)
	s := 0.0
	for i := range p {
		if rng.Float64() >= zeros {
			p[i] = rng.ExpFloat64()
			s += p[i]
		}
	}
	if s == 0 {
		p[0], s = 1, 1
	}
	for i := range p {
		p[i] /= s
	}
	return p
}

func TestTransport(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	grid := core.Alphabet{Kind: core.KindGrid, Cols: 3, Rows: 3, CellKm: 0.5}
	dist := func(i, j int) float64 { d, _, _ := grid.Distance(i, j); return d }
	for trial := range 40 {
		p, q := randomDist(rng, 9, 0.3), randomDist(rng, 9, 0.3)
		got, err := Transport(context.Background(), p, q, dist)
		if err != nil {
			t.Fatal(err)
		}
		want := lpTransport(t, p, q, dist)
		if math.Abs(got-want) > 1e-9 {
			t.Errorf("trial %d: transport %v, gonum LP %v", trial, got, want)
		}
	}
	// On a line with |i − j| the optimum is the closed form.
	for trial := range 20 {
		p, q := randomDist(rng, 30, 0.5), randomDist(rng, 30, 0.2)
		got, err := Transport(context.Background(), p, q, func(i, j int) float64 { return math.Abs(float64(i - j)) })
		if err != nil {
			t.Fatal(err)
		}
		if want := EMDLinear(p, q); math.Abs(got-want) > 1e-12 {
			t.Errorf("line trial %d: transport %v, closed form %v", trial, got, want)
		}
	}
	// Larger problems, which take many blocks of pricing, lists of
	// candidates and fresh potentials: a line of 700 symbols against its
	// closed form, a 6×5 grid against gonum's simplex.
	for trial := range 4 {
		p, q := randomDist(rng, 700, 0.3), randomDist(rng, 700, 0)
		got, err := Transport(context.Background(), p, q, func(i, j int) float64 { return math.Abs(float64(i - j)) })
		if want := EMDLinear(p, q); err != nil || math.Abs(got-want) > 1e-9*want {
			t.Errorf("long line trial %d: transport %v (%v), closed form %v", trial, got, err, want)
		}
	}
	g65 := core.Alphabet{Kind: core.KindGrid, Cols: 6, Rows: 5, CellKm: 0.3}
	d65 := func(i, j int) float64 { d, _, _ := g65.Distance(i, j); return d }
	for trial := range 3 {
		p, q := randomDist(rng, 30, 0.3), randomDist(rng, 30, 0)
		got, err := Transport(context.Background(), p, q, d65)
		if want := lpTransport(t, p, q, d65); err != nil || math.Abs(got-want) > 1e-9 {
			t.Errorf("6×5 grid trial %d: transport %v (%v), gonum LP %v", trial, got, err, want)
		}
	}
	// Everything one cell east: one cell side.
	fw := core.Alphabet{Kind: core.KindGrid, Cols: 24, Rows: 16, CellKm: 0.5}
	p, q := make([]float64, 384), make([]float64, 384)
	p[100], q[101] = 1, 1
	m, err := Compare(context.Background(), p, q, fw)
	if err != nil || math.Abs(m.EMD-0.5) > 1e-15 || m.EMDUnit != "km" || m.TV != 1 || m.MSE != 2 || math.Abs(m.JSD-math.Ln2) > 1e-15 {
		t.Errorf("one cell east: %+v, %v", m, err)
	}
}

func TestTransportFWGrid(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	fw := core.Alphabet{Kind: core.KindGrid, Cols: 24, Rows: 16, CellKm: 0.5}
	p, q := randomDist(rng, 384, 0.7), randomDist(rng, 384, 0)
	m, err := Compare(context.Background(), p, q, fw)
	if err != nil {
		t.Fatal(err)
	}
	// Lower bound: the distance between the means (Jensen), upper: the
	// independent coupling.
	var mx, my, indep float64
	for i := range 384 {
		for j := range 384 {
			d, _, _ := fw.Distance(i, j)
			indep += p[i] * q[j] * d
		}
		mx += (p[i] - q[i]) * float64(i%24) * 0.5
		my += (p[i] - q[i]) * float64(i/24) * 0.5
	}
	if m.EMD < math.Hypot(mx, my)-1e-12 || m.EMD > indep {
		t.Errorf("EMD %v outside [%v, %v]", m.EMD, math.Hypot(mx, my), indep)
	}
}

func TestMetricsClosedForms(t *testing.T) {
	p := []float64{0.5, 0.5, 0}
	q := []float64{0, 0.5, 0.5}
	m, err := Compare(context.Background(), p, q, core.Alphabet{Kind: core.KindLinear, Size: 3})
	if err != nil {
		t.Fatal(err)
	}
	if m.EMD != 1 || m.TV != 0.5 || m.MSE != 0.5 || math.Abs(m.JSD-0.5*math.Ln2) > 1e-15 {
		t.Errorf("metrics %+v", m)
	}
	if m, _ := Compare(context.Background(), p, q, core.Alphabet{Kind: core.KindCategorical, Size: 3}); !math.IsNaN(m.EMD) {
		t.Errorf("categorical EMD %v", m.EMD)
	}
}

// TestMetricsFinite compares pairs of distributions with zeros,
// subnormal entries and disjoint supports: every metric is finite and
// within its bounds (JSD ≤ ln 2, TV ≤ 1, EMD ≤ the grid's diameter).
func TestMetricsFinite(t *testing.T) {
	const tiny = 5e-324 // the smallest subnormal float64
	grid := core.Alphabet{Kind: core.KindGrid, Cols: 2, Rows: 2, CellKm: 1}
	line := core.Alphabet{Kind: core.KindLinear, Size: 4}
	for _, tc := range []struct {
		name string
		p, q []float64
	}{
		{"estimate with a subnormal", []float64{0.5, 0.5, 0, 0}, []float64{0.5, 0.5 - tiny, tiny, 0}},
		{"both subnormal in a cell", []float64{0.5, 0.5 - tiny, tiny, 0}, []float64{0.5, 0.5 - tiny, 0, tiny}},
		{"disjoint supports", []float64{1, 0, 0, 0}, []float64{0, 0, 0, 1}},
		{"equal", []float64{0.25, 0.25, 0.25, 0.25}, []float64{0.25, 0.25, 0.25, 0.25}},
		{"zeros and a point mass", []float64{0, 0, 1, 0}, []float64{0.1, 0.2, 0.3, 0.4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, a := range []core.Alphabet{grid, line} {
				m, err := Compare(context.Background(), tc.p, tc.q, a)
				if err != nil {
					t.Fatal(err)
				}
				for _, v := range []float64{m.EMD, m.MSE, m.JSD, m.TV} {
					if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
						t.Fatalf("%s: metrics %+v are not all finite and ≥ 0", a.Kind, m)
					}
				}
				if m.JSD > math.Ln2+1e-15 || m.TV > 1+1e-15 || m.EMD > 3+1e-12 {
					t.Errorf("%s: metrics %+v out of bounds", a.Kind, m)
				}
			}
		})
	}
	// Disjoint supports reach JSD's maximum, ln 2.
	if got := JSD([]float64{1, 0}, []float64{0, 1}); math.Abs(got-math.Ln2) > 1e-15 {
		t.Errorf("JSD of disjoint point masses = %v, want ln 2", got)
	}
	// A subnormal against 0 contributes ½·tiny·ln 2, nothing infinite.
	if got := JSD([]float64{0}, []float64{tiny}); got != 0 && got != tiny*math.Ln2/2 {
		t.Errorf("JSD(0 ‖ %v) = %v", tiny, got)
	}
}

// TestTransportTooLarge refuses an exact EMD whose table would exceed
// maxTransportCells before allocating it; Compare then keeps the other
// metrics and says why EMD is missing.
func TestTransportTooLarge(t *testing.T) {
	const side = 11200 // side² = 1.25·10⁸ + 4·10⁵ cells: just over the limit
	p := make([]float64, side)
	q := make([]float64, side)
	for i := range p {
		p[i], q[i] = 1, 1
	}
	_, err := Transport(context.Background(), p, q, func(i, j int) float64 { return 1 })
	var large *core.TooLargeError
	if !errors.As(err, &large) || !strings.Contains(err.Error(), "11200×11200") {
		t.Fatalf("Transport on %d×%d: error %v, want a TooLargeError naming the table", side, side, err)
	}
	a := core.Alphabet{Kind: core.KindGrid, Cols: side, Rows: 1, CellKm: 1}
	m, err := Compare(context.Background(), p, q, a)
	if err != nil || !math.IsNaN(m.EMD) || m.EMDNote == "" || m.TV != 0 {
		t.Errorf("Compare: %+v, %v; want the other metrics, EMD NaN and a note", m, err)
	}
}

// TestTransportCancel cancels an exact EMD that would take seconds: it
// stops with the context's error.
func TestTransportCancel(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	p, q := randomDist(rng, 1500, 0), randomDist(rng, 1500, 0)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := Transport(ctx, p, q, func(i, j int) float64 { return math.Abs(float64(i%40-j%40)) + math.Abs(float64(i/40-j/40)) })
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	cancel()
	if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Transport: error %v, want context.Canceled (or nil if it finished first)", err)
	}
}

// TestTransportIncrementalPotentials checks that the potentials, depths
// and flows updated pivot by pivot give every cell the reduced cost that
// potentials solved afresh give it, that the tree stays a tree of the
// right depths, and that its flows keep meeting the margins.
func TestTransportIncrementalPotentials(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	p, q := randomDist(rng, 120, 0.4), randomDist(rng, 120, 0)
	a, src, _ := positive(p, "supply")
	b, dst, _ := positive(q, "demand")
	grid := core.Alphabet{Kind: core.KindGrid, Cols: 12, Rows: 10, CellKm: 1}
	table, _ := gridCosts(grid)(src, dst)
	tab, err := newTableau(context.Background(), a, len(b), table)
	if err != nil {
		t.Fatal(err)
	}
	// The north-west corner rule: a poor start, so that many pivots follow.
	ra, rb := slices.Clone(a), slices.Clone(b)
	for i, j := 0, 0; i < tab.m && j < tab.n; {
		f := math.Min(ra[i], rb[j])
		tab.basis = append(tab.basis, basic{int32(i), int32(j), f})
		ra[i] -= f
		rb[j] -= f
		if (ra[i] <= rb[j] || j == tab.n-1) && i < tab.m-1 {
			i++
		} else {
			j++
		}
	}
	if len(tab.basis) != tab.m+tab.n-1 {
		t.Fatalf("start basis of %d cells, want %d", len(tab.basis), tab.m+tab.n-1)
	}
	tab.plant()
	for pivots := 0; ; pivots++ {
		e, ok := tab.price(1e-12)
		if !ok {
			if pivots < 20 {
				t.Fatalf("only %d pivots: too few to test", pivots)
			}
			return
		}
		tab.pivot(e)
		checkTree(t, tab, a, b, pivots)
		pot := slices.Clone(tab.pot)
		tab.potentials()
		for i := range tab.m {
			for j := range tab.n {
				c := table.at(i, j)
				if d, _, _ := grid.Distance(src[i], dst[j]); c != d {
					t.Fatalf("cell (%d, %d) costs %v, its distance is %v", i, j, c, d)
				}
				inc := c - pot[i] - pot[tab.m+j]
				if fresh := tab.reduced(cell{int32(i), int32(j), c}); math.Abs(inc-fresh) > 1e-9 {
					t.Fatalf("pivot %d, cell (%d, %d): reduced cost %v incrementally, %v afresh", pivots, i, j, inc, fresh)
				}
			}
		}
		tab.pot = pot
	}
}

// checkTree checks the basis tree after a pivot: every node but the root
// reaches the root through parents at depths one apart, is among its
// parent's children once, and the flows are non-negative and sum to the
// margins a (rows) and b (columns).
func checkTree(t *testing.T, tab *tableau, a, b []float64, pivot int) {
	t.Helper()
	nodes := tab.m + tab.n
	margin := make([]float64, nodes)
	listed := make([]int, nodes)
	for x := range nodes {
		for c, prev := tab.child[x], int32(-1); c >= 0; prev, c = c, tab.next[c] {
			if tab.parent[c] != int32(x) || tab.prev[c] != prev {
				t.Fatalf("pivot %d: node %d listed under %d, its parent %d, prev %d want %d", pivot, c, x, tab.parent[c], tab.prev[c], prev)
			}
			listed[c]++
		}
	}
	for x := 1; x < nodes; x++ {
		p := tab.parent[x]
		if p < 0 || tab.depth[x] != tab.depth[p]+1 || listed[x] != 1 {
			t.Fatalf("pivot %d: node %d has parent %d at depths %d, %d, listed %d times", pivot, x, p, tab.depth[x], tab.depth[max(p, 0)], listed[x])
		}
		if (x < tab.m) == (int(p) < tab.m) {
			t.Fatalf("pivot %d: node %d's parent %d is on its side", pivot, x, p)
		}
		if tab.up[x] < -1e-15 {
			t.Fatalf("pivot %d: node %d's flow %v", pivot, x, tab.up[x])
		}
		margin[x] += tab.up[x]
		margin[p] += tab.up[x]
	}
	if tab.parent[0] != -1 || listed[0] != 0 {
		t.Fatalf("pivot %d: the root has parent %d", pivot, tab.parent[0])
	}
	for x := range nodes {
		want := 0.0
		if x < tab.m {
			want = a[x]
		} else {
			want = b[x-tab.m]
		}
		if math.Abs(margin[x]-want) > 1e-12 {
			t.Fatalf("pivot %d: node %d ships %v, its margin is %v", pivot, x, margin[x], want)
		}
	}
}

// TestGridCosts checks the grid's lazily computed costs against
// Alphabet.Distance bit for bit, and each row's shortlist against the
// least costs of the row sorted: the pruned search of the nearby rows
// keeps the same multiset of costs as a scan of the whole row.
func TestGridCosts(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	grid := core.Alphabet{Kind: core.KindGrid, Cols: 13, Rows: 9, CellKm: 0.7}
	var src, dst []int
	for x := range grid.Len() {
		if rng.Float64() < 0.4 {
			src = append(src, x)
		}
		if rng.Float64() < 0.5 {
			dst = append(dst, x)
		}
	}
	table, err := gridCosts(grid)(src, dst)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]float64, len(dst))
	var h shortHeap
	for i, x := range src {
		row := table.row(i, buf)
		for j, y := range dst {
			d, _, _ := grid.Distance(x, y)
			if row[j] != d || table.at(i, j) != d {
				t.Fatalf("cell (%d, %d): row %v, at %v, distance %v", x, y, row[j], table.at(i, j), d)
			}
		}
		want := slices.Sorted(slices.Values(row))
		for _, l := range []int{1, 5, 12, len(dst)} {
			var got []float64
			for _, c := range table.cheapest(i, l, &h, buf) {
				if d, _, _ := grid.Distance(x, dst[c.j]); c.c != d || int(c.i) != i {
					t.Fatalf("row %d: shortlist cell %+v, distance %v", i, c, d)
				}
				got = append(got, c.c)
			}
			slices.Sort(got)
			if !slices.Equal(got, want[:l]) {
				t.Fatalf("row %d, l = %d: shortlist costs %v, least costs %v", i, l, got, want[:l])
			}
		}
	}
	if d, _, _ := grid.Distance(0, grid.Len()-1); table.max() != d {
		t.Errorf("max %v, the grid's diagonal %v", table.max(), d)
	}
}

// TestTransportCertificate solves transportation problems on a 30×30
// grid (truths of a third of the cells against full estimates, as the
// NYC comparisons are) and checks the optimum by LP duality: the flows
// meet the margins, no cell has a reduced cost below −1e−12·max cost
// (dual feasibility), and the primal cost Σ f·c equals the dual value
// Σ a_i u_i + Σ b_j v_j to 1e−12.
func TestTransportCertificate(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	grid := core.Alphabet{Kind: core.KindGrid, Cols: 30, Rows: 30, CellKm: 0.5}
	for trial := range 3 {
		p, q := randomDist(rng, 900, 0.7), randomDist(rng, 900, 0)
		a, src, _ := positive(p, "supply")
		b, dst, _ := positive(q, "demand")
		floats.Scale(floats.Sum(a)/floats.Sum(b), b)
		table, _ := gridCosts(grid)(src, dst)
		tab, err := newTableau(context.Background(), a, len(b), table)
		if err != nil {
			t.Fatal(err)
		}
		if err := tab.start(context.Background(), a, b); err != nil {
			t.Fatal(err)
		}
		if err := tab.solve(context.Background()); err != nil {
			t.Fatal(err)
		}
		checkTree(t, tab, a, b, -1)
		tab.potentials()
		dual := 0.0
		for i := range tab.m {
			dual += a[i] * tab.pot[i]
			for j := range tab.n {
				if r := table.at(i, j) - tab.pot[i] - tab.pot[tab.m+j]; r < -1e-12*table.max() {
					t.Fatalf("trial %d: cell (%d, %d) has reduced cost %v", trial, i, j, r)
				}
			}
		}
		for j := range tab.n {
			dual += b[j] * tab.pot[tab.m+j]
		}
		primal, err := Transport(context.Background(), p, q, func(i, j int) float64 { d, _, _ := grid.Distance(i, j); return d })
		if err != nil || math.Abs(tab.total()-dual) > 1e-12 || math.Abs(primal-dual) > 1e-12 {
			t.Errorf("trial %d (%d×%d): primal %v (dense table %v, %v), dual %v", trial, tab.m, tab.n, tab.total(), primal, err, dual)
		}
	}
}
