package core

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// personalChannel is the channel Q^(i) = Q_cmn ∘ Q_pre^(i) of one PUM
// user with a uRR base: K true inputs, the K+κ extended outputs.
type personalChannel struct {
	p        *PUM
	personal []int
}

func (c personalChannel) Inputs() int  { return c.p.K }
func (c personalChannel) Outputs() int { return c.p.Inputs() }
func (c personalChannel) Prob(x, z int) float64 {
	return c.p.Common().(Channel).Prob(c.p.Premap(x, c.personal), z)
}

// personalBits is the same for a uRAP base.
type personalBits struct {
	p        *PUM
	personal []int
}

func (c personalBits) Inputs() int { return c.p.K }
func (c personalBits) Bits() int   { return c.p.Inputs() }
func (c personalBits) BitProb(x, j int) float64 {
	return c.p.Common().(BitChannel).BitProb(c.p.Premap(x, c.personal), j)
}

func TestPUMPremap(t *testing.T) {
	p, err := NewPUM(6, 1, []int{1}, []string{"home", "work"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if h, ok := p.Tag("work"); !ok || h != 7 {
		t.Errorf("Tag(work) = %d, %v; want 7", h, ok)
	}
	if _, ok := p.Tag("gym"); ok {
		t.Error("Tag(gym) found")
	}
	tests := []struct {
		x        int
		personal []int
		want     int
	}{
		{3, []int{3, 5}, 6},  // home
		{5, []int{3, 5}, 7},  // work
		{4, []int{3, 5}, 4},  // neither
		{2, []int{-1, 2}, 7}, // no home
		{2, []int{2, 2}, 6},  // home = work: the first tag
		{1, []int{1, 5}, 1},  // common sensitive: already protected, kept
	}
	for _, tc := range tests {
		if got := p.Premap(tc.x, tc.personal); got != tc.want {
			t.Errorf("Premap(%d, %v) = %d, want %d", tc.x, tc.personal, got, tc.want)
		}
	}
	if DataSymbols(p) != 6 || p.Inputs() != 8 {
		t.Errorf("data symbols %d, inputs %d; want 6, 8", DataSymbols(p), p.Inputs())
	}
}

// TestPUMAudit checks ULDP §5's guarantee on the channels themselves: the
// common mechanism is (X_S ∪ Z, Y_P ∪ Z, ε)-ULDP on the extended
// alphabet, and each user's composed channel Q_cmn ∘ Q_pre^(i) is
// ε-LDP on the protected outputs, never reports her personal datum as
// itself, and has exactly one input for every other invertible output.
func TestPUMAudit(t *testing.T) {
	const k, eps = 7, 1.3
	for _, base := range []MechanismKind{BaseURR, BaseURAP} {
		for _, sens := range [][]int{nil, {0, 4}} {
			p, err := NewPUM(k, eps, sens, []string{"home", "work"}, base)
			if err != nil {
				t.Fatal(err)
			}
			au := mustAudit(t, p, Alphabet{Kind: KindGrid, Cols: 7, Rows: 1, CellKm: 1})
			if !au.Protected || math.Abs(au.LDP-eps) > 1e-9 || au.Invertible != -1 || !math.IsNaN(au.GeoInd) {
				t.Errorf("%s S=%v: audit %+v, want ε %v over protected outputs, invertible, no metric", base, sens, au, eps)
			}
			personal := []int{5, 2} // home 5, work 2
			protected := func(z int) bool { return z >= k || z == 0 && sens != nil || z == 4 && sens != nil }
			switch base {
			case BaseURR:
				c := personalChannel{p, personal}
				checkRowsSumTo1(t, string(base), c)
				if got := WorstLDP(c, protected); math.Abs(got-eps) > 1e-9 {
					t.Errorf("%s S=%v: composed ε = %v, want %v", base, sens, got, eps)
				}
				for x := range k {
					if c.Prob(x, 5) > 0 && x != 5 || c.Prob(x, 2) > 0 && x != 2 {
						t.Errorf("%s: output 2 or 5 possible under input %d", base, x)
					}
				}
				if c.Prob(5, 5) != 0 || c.Prob(2, 2) != 0 {
					t.Errorf("%s: a personal datum is reported as itself", base)
				}
				if z := InvertibleInputs(c, func(z int) bool { return !protected(z) && z != 5 && z != 2 }); z >= 0 {
					t.Errorf("%s S=%v: invertible output %d has several inputs", base, sens, z)
				}
			case BaseURAP:
				c := personalBits{p, personal}
				var zeros []int
				for j := range k {
					if !protected(j) {
						zeros = append(zeros, j)
					}
				}
				if got := mustBitLDP(t, c, zeros); math.Abs(got-eps) > 1e-9 {
					t.Errorf("%s S=%v: composed ε = %v, want %v", base, sens, got, eps)
				}
				if c.BitProb(5, 5) != 0 || c.BitProb(2, 2) != 0 {
					t.Errorf("%s: a personal datum sets its own bit", base)
				}
			}
		}
	}
}

func checkRowsSumTo1(t *testing.T, name string, c Channel) {
	t.Helper()
	for x := range c.Inputs() {
		sum := 0.0
		for z := range c.Outputs() {
			sum += c.Prob(x, z)
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Errorf("%s: row %d sums to %.17g", name, x, sum)
		}
	}
}

// TestPUMSimulate sanitises real data with personal cells through
// SimulateData and tests the reports of each kind of user against the
// common channel's row of their pre-mapped datum (χ², false-failure
// probability 1e−6 per test).
func TestPUMSimulate(t *testing.T) {
	p, err := NewPUM(5, 1, []int{0}, []string{"home"}, BaseURR)
	if err != nil {
		t.Fatal(err)
	}
	// Users 0..n−1 all check in at 3; even users live at 3, odd at 1.
	const n = 100000
	data, homes := make([]int, n), make([]int, n)
	for i := range data {
		data[i], homes[i] = 3, 1+2*(1-i%2)
	}
	counts := [2][]int{make([]int, 6), make([]int, 6)}
	rng := rand.New(rand.NewPCG(5, 5))
	err = SimulateData(context.Background(), rng, []Mechanism{p}, []int{n}, data, map[string][]int{"home": homes},
		func(user, _ int, r Report) error { counts[user%2][r.Symbol]++; return nil }, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := p.Common().(Channel)
	for parity, x := range []int{5, 3} { // even users send ⊥home = 5, odd ones 3
		probs := make([]float64, 6)
		for z := range probs {
			probs[z] = c.Prob(x, z)
		}
		chiSquare(t, "pum", counts[parity], probs)
	}
	// Draws from a distribution have no personal cells.
	err = Simulate(context.Background(), rng, []Mechanism{p}, []int{10}, []float64{.2, .2, .2, .2, .2}, func(int, int, Report) error { return nil }, nil)
	if err == nil {
		t.Error("PUM simulated on draws from a distribution")
	}
	err = SimulateData(context.Background(), rng, []Mechanism{p}, []int{n}, data, map[string][]int{"work": homes}, func(int, int, Report) error { return nil }, nil)
	if err == nil {
		t.Error("PUM simulated without its tag's personal cells")
	}
}

func TestPUMReports(t *testing.T) {
	s := &Study{Alphabet: Alphabet{Kind: KindCategorical, Size: 4}, Mechanisms: []MechanismSpec{
		{ID: "a", Kind: KindPUM, Epsilon: 1, Tags: []string{"home"}},
		{ID: "b", Kind: KindPUM, Epsilon: 1, Tags: []string{"home", "work"}, Base: BaseURAP},
	}}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	a, err := NewMechanism(s.Mechanisms[0], s.Alphabet)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := ParseReport(a, "4"); err != nil || r.Symbol != 4 {
		t.Errorf("pum/urr report 4 (⊥home) = %v, %v", r, err)
	}
	if _, err := ParseReport(a, "5"); err == nil {
		t.Error("pum/urr report 5 accepted on 4 symbols and one tag")
	}
	b, err := NewMechanism(s.Mechanisms[1], s.Alphabet)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseReport(b, "000001"); err != nil {
		t.Errorf("pum/urappor 6-bit report: %v", err)
	}
	if _, err := ParseReport(b, "0000"); err == nil {
		t.Error("pum/urappor 4-bit report accepted")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	if r := Draw(b, rng, 5); r.Bits.Len() != 6 {
		t.Errorf("pum/urappor draw %v", r)
	}
}

// TestReconstructPUM estimates PUM reports with uldp: the estimate lives
// on the data's K symbols and its log-likelihood, undefined for reports
// that depend on each user's personal cells, is NaN; other methods refuse
// the reports.
func TestReconstructPUM(t *testing.T) {
	spec := MechanismSpec{ID: "p", Kind: KindPUM, Epsilon: 2, Sensitive: []int{0}, Tags: []string{"home"}}
	s := &Study{Alphabet: Alphabet{Kind: KindLinear, Size: 5}, Mechanisms: []MechanismSpec{spec}}
	p, err := NewMechanism(spec, s.Alphabet)
	if err != nil {
		t.Fatal(err)
	}
	const n = 2000
	data, homes := make([]int, n), make([]int, n)
	for i := range data {
		data[i], homes[i] = i%5, (i+1)%5
	}
	s.Personal = map[string][]int{"home": homes}
	var mech []int
	var reps []Report
	err = SimulateData(context.Background(), rand.New(rand.NewPCG(1, 2)), []Mechanism{p}, []int{n}, data, s.Personal,
		func(_, j int, r Report) error { mech, reps = append(mech, j), append(reps, r); return nil }, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := GroupReports(1, mech, reps)
	est, err := Reconstruct(context.Background(), MethodULDP, s, []Mechanism{p}, g, EstimateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(est.Theta) != 5 || !math.IsNaN(est.LogLik) {
		t.Errorf("uldp on pum: %d symbols, log-likelihood %v; want 5 and NaN", len(est.Theta), est.LogLik)
	}
	if _, err := Reconstruct(context.Background(), MethodINVM, s, []Mechanism{p}, g, EstimateOptions{}); err == nil {
		t.Error("inv-m took pum reports")
	}
}
