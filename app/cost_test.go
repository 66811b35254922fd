package app

import (
	"errors"
	"strings"
	"testing"
	"time"

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
		// NYC (issue 31's figures): GIBU 3.6 s on two cores, the EMD
		// about 2 s (the model, not knowing the truth's support, takes a
		// quarter of the cells: 5 s).
		{"NYC, Table 7, 200,000 users", "fw-t7", 94, 96, 0.5, 200000, []core.Method{core.MethodGIBU}, 3 * time.Second, time.Minute, ""},
		// NYC by the other estimators: [IBU]_M's planar average is one
		// convolution (5.5 s), the inversion a few hundred products
		// (under a second), [IBU]_R each planar mechanism's own EM (16 s
		// on two cores); corrected EM two EM estimates and two bias
		// corrections of a 9,024 × 9,024 matrix (125 s).
		{"NYC, [IBU]_M", "fw-t7", 94, 96, 0.5, 200000, []core.Method{core.MethodIBUM}, 3 * time.Second, time.Minute, ""},
		{"NYC, [INV]_M", "fw-t7", 94, 96, 0.5, 200000, []core.Method{core.MethodINVM}, 0, 10 * time.Second, ""},
		{"NYC, [IBU]_R", "fw-t7", 94, 96, 0.5, 200000, []core.Method{core.MethodIBUR}, 8 * time.Second, time.Minute, "ibu-r: about 1,000 steps"},
		{"NYC, corrected EM", "fw-t7", 94, 96, 0.5, 200000, []core.Method{core.MethodCEM}, 63 * time.Second, 250 * time.Second, "cem: two EM estimates and bias corrections"},
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
		if !ok || a.Cols != (tc.cols+1)/2 || a.CellKm != 2*tc.cell || !(coarse.Time < c.Time) {
			t.Errorf("%s: coarser %+v costs %v (ok %v), the run %v", tc.name, a, coarse.Time, ok, c.Time)
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
