package core

import (
	"fmt"
	"math"
	"testing"
)

// exactGroups returns groups whose report frequencies are exactly n·P(z)
// for the symbol channel c and distribution p (n chosen so that they are
// whole numbers to rounding far below the tolerance).
func exactGroups(c Channel, p []float64, mech, mechs int, n float64) *Groups {
	g := newGroups(mechs)
	index := map[Group]int{}
	for z := range c.Outputs() {
		q := 0.0
		for x, px := range p {
			q += px * c.Prob(x, z)
		}
		if cnt := int(math.Round(q * n)); cnt > 0 {
			g.add(index, mech, SymbolReport(z), cnt)
		}
	}
	return g
}

func TestULDPEstimateURR(t *testing.T) {
	p := []float64{0.1, 0.05, 0.3, 0.25, 0.2, 0.1}
	u, _ := NewURR(6, 1.2, []int{0, 1})
	g := exactGroups(u, p, 0, 1, 1e9)
	got, err := ULDPEstimate([]Mechanism{u}, g, nil, ULDPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !near(got, p, 1e-8) {
		t.Errorf("uRR empirical estimate %v, want %v", got, p)
	}
}

func TestULDPEstimateURAP(t *testing.T) {
	// Every 4-bit output with exactly its expected count.
	p := []float64{0.4, 0.1, 0.3, 0.2}
	u, _ := NewURAP(4, 2, []int{1, 3})
	g := newGroups(1)
	index := map[Group]int{}
	for _, v := range allBits(4) {
		q := 0.0
		for x, px := range p {
			q += px * bitProb(u, x, v)
		}
		if c := int(math.Round(q * 1e9)); c > 0 {
			g.add(index, 0, BitsReport(v), c)
		}
	}
	got, err := ULDPEstimate([]Mechanism{u}, g, nil, ULDPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !near(got, p, 1e-8) {
		t.Errorf("uRAP empirical estimate %v, want %v", got, p)
	}
}

// TestULDPEstimatePUM returns each tag's mass to the cells by the
// background: with uRR on the extended alphabet and exact frequencies the
// estimate is r(x) + r(⊥)·π(x).
func TestULDPEstimatePUM(t *testing.T) {
	pum, _ := NewPUM(4, 1, []int{0}, []string{"home"}, BaseURR)
	ext := []float64{0.1, 0.2, 0.3, 0.1, 0.3} // r over X ∪ {⊥home}
	g := exactGroups(pum.Common().(Channel), ext, 0, 1, 1e9)
	s := &Study{Alphabet: Alphabet{Kind: KindCategorical, Size: 4}, Data: []int{1, 2, 3, 3}, Personal: map[string][]int{"home": {1, 3, 3, -1}}}
	got, err := ULDPEstimate([]Mechanism{pum}, g, s, ULDPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Background from the study's homes: cell 1 once, cell 3 twice.
	want := []float64{0.1, 0.2 + 0.3/3, 0.3, 0.1 + 0.3*2/3}
	if !near(got, want, 1e-8) {
		t.Errorf("PUM estimate %v, want %v", got, want)
	}
	got, err = ULDPEstimate([]Mechanism{pum}, g, s, ULDPOptions{Background: map[string][]float64{"home": {0, 0, 1, 0}}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{0.1, 0.2, 0.6, 0.1}; !near(got, want, 1e-8) {
		t.Errorf("PUM estimate with a given background %v, want %v", got, want)
	}
	if _, err := Reconstruct(bg, MethodGIBU, s, []Mechanism{pum}, g, EstimateOptions{}); err == nil {
		t.Error("GIBU on PUM reports accepted")
	}
}

// TestULDPSignificance: with few users the Bonferroni threshold zeroes
// the small estimates; with exact frequencies of many users it keeps all.
func TestULDPSignificance(t *testing.T) {
	p := []float64{0.02, 0.03, 0.45, 0.5}
	u, _ := NewURR(4, 1, []int{0, 1})
	for _, tc := range []struct {
		n     float64
		zeros int
	}{{1e9, 0}, {200, 2}} {
		t.Run(fmt.Sprintf("n=%g", tc.n), func(t *testing.T) {
			g := exactGroups(u, p, 0, 1, tc.n)
			got, err := ULDPEstimate([]Mechanism{u}, g, nil, ULDPOptions{Significance: 0.05})
			if err != nil {
				t.Fatal(err)
			}
			zeros := 0
			for _, v := range got {
				if v == 0 {
					zeros++
				}
			}
			if zeros != tc.zeros {
				t.Errorf("n = %g: estimate %v has %d zeros, want %d", tc.n, got, zeros, tc.zeros)
			}
		})
	}
}
