package pipeline

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/privmap/privmap/app/interval"
	"github.com/privmap/privmap/core"
)

// runCost returns the cost of running methods on n users of preset on a
// cols×rows grid of cell km cells.
func runCost(t *testing.T, preset string, cols, rows int, cell float64, n int, methods ...core.Method) (Cost, Request) {
	t.Helper()
	a := core.Alphabet{Kind: core.KindGrid, Cols: cols, Rows: rows, CellKm: cell}
	ms, err := core.PresetMechanisms(preset, a)
	if err != nil {
		t.Fatal(err)
	}
	req := Request{Study: &core.Study{Alphabet: a, Mechanisms: ms}, Users: Users{N: n}, Methods: methods}
	return EstimateCost(req), req
}

// TestEstimateCost checks the cost model against the figures measured on
// the project's machine (docs/PERFORMANCE.md), to an order of magnitude.
func TestEstimateCost(t *testing.T) {
	for _, tc := range []struct {
		name     string
		preset   string
		cols     int
		rows     int
		cell     float64
		n        int
		methods  []core.Method
		lo, hi   time.Duration
		dominant string
	}{
		// The demo: a second or two in all.
		{"FW 24×16, Table 6, 2,000 users", "fw-t6", 24, 16, 0.5, 2000, []core.Method{core.MethodGIBU}, 0, 10 * time.Second, ""},
		// NYC (issue 31's figures): GIBU 2.1–2.4 s on two cores, the EMD
		// a tenth of a second (the model, not knowing the truth's
		// support, takes a quarter of the cells).
		{"NYC, Table 7, 200,000 users", "fw-t7", 94, 96, 0.5, 200000, []core.Method{core.MethodGIBU}, 3 * time.Second, time.Minute, ""},
		// NYC by the other estimators: [IBU]_M's planar average (4 s),
		// the inversion a few hundred products (under a second), [IBU]_R
		// each planar mechanism's own EM (16 s on two cores); corrected
		// EM two EM estimates and two bias corrections of a 9,024 × 9,024
		// matrix (69 s).
		{"NYC, [IBU]_M", "fw-t7", 94, 96, 0.5, 200000, []core.Method{core.MethodIBUM}, 3 * time.Second, time.Minute, ""},
		{"NYC, [INV]_M", "fw-t7", 94, 96, 0.5, 200000, []core.Method{core.MethodINVM}, 0, 10 * time.Second, ""},
		{"NYC, [IBU]_R", "fw-t7", 94, 96, 0.5, 200000, []core.Method{core.MethodIBUR}, 8 * time.Second, time.Minute, "ibu-r: about 1,000 steps"},
		{"NYC, corrected EM", "fw-t7", 94, 96, 0.5, 200000, []core.Method{core.MethodCEM}, 55 * time.Second, 240 * time.Second, "cem: 4 EM estimates and bias corrections (the data's, and 3 simulations choosing α)"},
		// FW Table 8 on 24×16: ten solves of about 4 s.
		{"FW 24×16, Table 8", "fw-t8", 24, 16, 0.5, 2000, []core.Method{core.MethodGIBU}, 20 * time.Second, 3 * time.Minute, "Shokri's linear program"},
		// Shokri on 6,144 cells: K³ grows 4,096 times.
		{"Shokri on 96×64", "fw-t8", 96, 64, 0.125, 2000, []core.Method{core.MethodGIBU}, 24 * time.Hour, 1e6 * time.Second, "Shokri's linear program on 6,144 symbols"},
	} {
		c, req := runCost(t, tc.preset, tc.cols, tc.rows, tc.cell, tc.n, tc.methods...)
		if c.Time < tc.lo || c.Time > tc.hi {
			t.Errorf("%s: %v, want between %v and %v (%s)", tc.name, c.Time, tc.lo, tc.hi, c)
		}
		if c.Long() != (c.Time > time.Minute) {
			t.Errorf("%s: Long %v for %v", tc.name, c.Long(), c.Time)
		}
		if tc.dominant != "" && (len(c.Parts) == 0 || !strings.HasPrefix(c.Parts[0], tc.dominant)) {
			t.Errorf("%s: parts %q, want the first to start %q", tc.name, c.Parts, tc.dominant)
		}
		a, coarse, ok := Coarser(req)
		// Halving NYC's grid brings [INV]_M under the dense LU's limit
		// of 4,096 symbols, which costs more than its GMRES: no
		// cheaper alternative there.
		cheaper := coarse.Time < c.Time || tc.name == "NYC, [INV]_M" && strings.Contains(coarse.String(), "LU factorisation")
		if !ok || a.Cols != (tc.cols+1)/2 || a.CellKm != 2*tc.cell || !cheaper {
			t.Errorf("%s: coarser %+v costs %v (ok %v), the run %v", tc.name, a, coarse, ok, c.Time)
		}
	}
	if _, _, ok := Coarser(Request{Study: &core.Study{Alphabet: core.Alphabet{Kind: core.KindLinear, Size: 10}}}); ok {
		t.Error("a coarser linear alphabet")
	}
}

// TestMethodCosts checks each method's cost said before a run: corrected
// EM's memory on New York's grid and its refusal, before anything is
// allocated, on a grid whose K×K matrix no machine here has.
func TestMethodCosts(t *testing.T) {
	_, req := runCost(t, "fw-t7", 94, 96, 0.5, 200000, core.MethodGIBU, core.MethodCEM)
	cs := MethodCosts(req)
	if len(cs) != 2 || cs[0].Bytes != 0 || cs[0].Refused != nil {
		t.Fatalf("GIBU on NYC: %+v", cs)
	}
	if c := cs[1]; c.Bytes < 1e9 || c.Bytes > 1.5e9 || !strings.Contains(c.String(), "GB of memory") {
		t.Errorf("corrected EM on NYC: %v bytes, %q; want 1–1.5 GB (1.18 GB measured)", c.Bytes, c.String())
	}
	_, req = runCost(t, "fw-t7", 400, 400, 0.125, 200000, core.MethodCEM)
	var large *core.TooLargeError
	if c := MethodCosts(req)[0]; !errors.As(c.Refused, &large) || !strings.Contains(c.Refused.Error(), "GIBU") {
		t.Errorf("corrected EM on 160,000 cells: refused %v, want a *core.TooLargeError naming GIBU", c.Refused)
	}
}

// TestMethodCostsMeasured checks each estimator's expected time against
// the times its record gave on the project's machine (issue 31, with its
// AVX transforms: the estimate alone, "seconds" of `privmap estimate`),
// within a factor of two of the least and the most of the runs: San Francisco's 22×15 grid at 0.5 km with FW Table 6's ten
// planar mechanisms and 100,000 users, UCI Adult's 120 symbols with the
// CEM preset and 32,561 users, and New York's 94×96 grid with FW
// Table 7 and 200,000 users.
func TestMethodCostsMeasured(t *testing.T) {
	sf := core.Alphabet{Kind: core.KindGrid, Cols: 22, Rows: 15, CellKm: 0.5}
	nyc := core.Alphabet{Kind: core.KindGrid, Cols: 94, Rows: 96, CellKm: 0.5}
	adult := core.Alphabet{Kind: core.KindCategorical, Size: 120}
	methods := []core.Method{core.MethodGIBU, core.MethodCEM, core.MethodIBUR, core.MethodIBUM, core.MethodINVM, core.MethodINVR}
	for _, tc := range []struct {
		name     string
		a        core.Alphabet
		preset   string
		n        int
		measured []float64 // seconds, in methods' order: the least and the most of the runs
	}{
		{"SF", sf, "fw-t6", 100000, []float64{0.18, 0.181, 1.40, 1.43, 0.40, 0.412, 0.076, 0.079, 0.043, 0.045, 0.072, 0.096}},
		{"Adult", adult, "cem", 32561, []float64{0.006, 0.009, 0.047, 0.091, 0.002, 0.003, 0.009, 0.012, 0.005, 0.007, 0.005, 0.011}},
		{"NYC", nyc, "fw-t7", 200000, []float64{2.14, 2.4, 110, 121, 15.9, 17.6, 4.06, 4.06, 0.118, 0.118, 0.594, 0.594}},
	} {
		ms, err := core.PresetMechanisms(tc.preset, tc.a)
		if err != nil {
			t.Fatal(err)
		}
		req := Request{Study: &core.Study{Alphabet: tc.a, Mechanisms: ms}, Users: Users{N: tc.n}, Methods: methods}
		for k, c := range MethodCosts(req) {
			lo, hi := tc.measured[2*k], tc.measured[2*k+1]
			if got := c.Time.Seconds(); got < hi/2 || got > 2*lo {
				t.Errorf("%s, %s: %.3g s said, %.3g–%.3g s measured", tc.name, c.Method, got, lo, hi)
			}
		}
	}
}

// TestIntervalCostsMeasured checks the cost said of an estimate with its
// 95% intervals, by the method MethodFor chooses or the one named,
// against CLI runs of estimate -ci 0.95 (the JSON line's seconds: the
// estimate and its intervals) on the project's machine: within a factor
// of two. San Francisco is Gowalla's FW box at 0.5 km (23×15 cells, FW
// Table 6, simulate -seed 1); Adult the CEM preset on the data set's
// own users; New York 0.5 km with FW Table 7's 200,000 reports. New
// York's profile was measured on 2% of its cells (290 s) and scaled.
func TestIntervalCostsMeasured(t *testing.T) {
	sf := core.Alphabet{Kind: core.KindGrid, Cols: 23, Rows: 15, CellKm: 0.5}
	nyc := core.Alphabet{Kind: core.KindGrid, Cols: 94, Rows: 96, CellKm: 0.5}
	adult := core.Alphabet{Kind: core.KindCategorical, Size: 120}
	for _, tc := range []struct {
		name   string
		a      core.Alphabet
		preset string
		n      int
		method core.Method
		ci     core.IntervalMethod
		lo, hi float64 // seconds measured, the least and the most of the runs
	}{
		{"SF 100k", sf, "fw-t6", 100000, core.MethodGIBU, core.IntervalBootstrap, 22.9, 22.9},
		{"SF 100k", sf, "fw-t6", 100000, core.MethodGIBU, interval.Auto, 9.96, 10.2},
		{"SF 100k", sf, "fw-t6", 100000, core.MethodGIBU, core.IntervalProfile, 14.1, 18.8},
		{"SF 20k", sf, "fw-t6", 20000, core.MethodGIBU, core.IntervalBootstrap, 26.2, 26.2},
		{"SF 20k", sf, "fw-t6", 20000, core.MethodGIBU, interval.Auto, 7.4, 7.4},
		{"SF 20k", sf, "fw-t6", 20000, core.MethodGIBU, core.IntervalProfile, 9.7, 11.9},
		{"SF 100k", sf, "fw-t6", 100000, core.MethodIBUM, interval.Auto, 6.9, 6.9},
		{"Adult", adult, "cem", 32561, core.MethodGIBU, interval.Auto, 0.2, 0.2},
		{"Adult", adult, "cem", 32561, core.MethodIBUM, interval.Auto, 0.62, 0.62},
		{"Adult", adult, "cem", 32561, core.MethodCEM, interval.Auto, 0.51, 0.51},
		{"SF 20k", sf, "fw-t6", 20000, core.MethodCEM, interval.Auto, 29.4, 29.4},
		{"SF 100k", sf, "fw-t6", 100000, core.MethodCEM, interval.Auto, 32.9, 32.9},
		{"NYC", nyc, "fw-t7", 200000, core.MethodGIBU, interval.Auto, 23.6, 25.5},
		{"NYC", nyc, "fw-t7", 200000, core.MethodGIBU, core.IntervalBootstrap, 207, 224},
		{"NYC", nyc, "fw-t7", 200000, core.MethodGIBU, core.IntervalProfile, 14500, 14500},
	} {
		ms, err := core.PresetMechanisms(tc.preset, tc.a)
		if err != nil {
			t.Fatal(err)
		}
		req := Request{Study: &core.Study{Alphabet: tc.a, Mechanisms: ms}, Users: Users{N: tc.n}, Methods: []core.Method{tc.method},
			CI: interval.CI{Level: 0.95, Method: tc.ci}}
		c := MethodCosts(req)[0]
		if got := c.Time.Seconds(); got < tc.hi/2 || got > 2*tc.lo {
			t.Errorf("%s, %s with %s intervals: %.3g s said, %.3g–%.3g s measured", tc.name, tc.method, tc.ci, got, tc.lo, tc.hi)
		}
		if whole := EstimateCost(req); whole.Time < c.Time {
			t.Errorf("%s, %s: the run's cost %v is below its estimate's with intervals, %v", tc.name, tc.method, whole.Time, c.Time)
		}
	}
}
