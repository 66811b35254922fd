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

// TestTransportIncrementalPotentials checks that the potentials updated
// pivot by pivot (shiftSide) give every cell the reduced cost that
// potentials solved afresh give it.
func TestTransportIncrementalPotentials(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	p, q := randomDist(rng, 120, 0.4), randomDist(rng, 120, 0)
	var a, b []float64
	var src, dst []int
	for i, v := range p {
		if v > 0 {
			a, src = append(a, v), append(src, i)
		}
	}
	for j, v := range q {
		if v > 0 {
			b, dst = append(b, v), append(dst, j)
		}
	}
	grid := core.Alphabet{Kind: core.KindGrid, Cols: 12, Rows: 10, CellKm: 1}
	tab := newTableau(len(a), len(b), func(i, j int) float64 { d, _, _ := grid.Distance(src[i], dst[j]); return d })
	// The north-west corner rule: a poor start, so that many pivots follow.
	ra, rb := slices.Clone(a), slices.Clone(b)
	for i, j := 0, 0; i < tab.m && j < tab.n; {
		f := math.Min(ra[i], rb[j])
		tab.addBasic(i, j, f)
		ra[i] -= f
		rb[j] -= f
		if (ra[i] <= rb[j] || j == tab.n-1) && i < tab.m-1 {
			i++
		} else {
			j++
		}
	}
	if len(tab.flow) != tab.m+tab.n-1 {
		t.Fatalf("start basis of %d cells, want %d", len(tab.flow), tab.m+tab.n-1)
	}
	tab.potentials()
	next, cells := 0, tab.m*tab.n
	for pivots := 0; ; pivots++ {
		k := tab.price(&next, 64, cells, 1e-12)
		if k < 0 {
			if pivots < 20 {
				t.Fatalf("only %d pivots: too few to test", pivots)
			}
			return
		}
		tab.pivot(k/tab.n, k%tab.n)
		u, v := slices.Clone(tab.u), slices.Clone(tab.v)
		tab.potentials()
		for i := range tab.m {
			for j := range tab.n {
				inc, fresh := tab.c[i*tab.n+j]-u[i]-v[j], tab.c[i*tab.n+j]-tab.u[i]-tab.v[j]
				if math.Abs(inc-fresh) > 1e-9 {
					t.Fatalf("pivot %d, cell (%d, %d): reduced cost %v incrementally, %v afresh", pivots, i, j, inc, fresh)
				}
			}
		}
		tab.u, tab.v = u, v
	}
}
