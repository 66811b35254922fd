package core

import (
	"context"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// falseFailure is the probability that a statistical test of this package
// fails although the code is right.
const falseFailure = 1e-6

// chiSquare checks observed counts against probabilities with Pearson's
// test at level falseFailure. Bins of probability 0 must stay empty. Bins
// expecting fewer than 5 draws are pooled into one (merged with the
// smallest other bin if the pool still expects fewer than 5), as the
// χ² approximation needs (Cochran 1954).
func chiSquare(t *testing.T, name string, counts []int, probs []float64) {
	t.Helper()
	n := 0
	for _, c := range counts {
		n += c
	}
	var obs, exp []float64
	poolObs, poolExp := 0.0, 0.0
	for i, p := range probs {
		if p == 0 {
			if counts[i] != 0 {
				t.Errorf("%s: %d draws of impossible output %d", name, counts[i], i)
			}
			continue
		}
		if e := p * float64(n); e < 5 {
			poolObs += float64(counts[i])
			poolExp += e
		} else {
			obs, exp = append(obs, float64(counts[i])), append(exp, e)
		}
	}
	if poolExp > 0 {
		if poolExp < 5 && len(exp) > 0 {
			j := slices.Index(exp, slices.Min(exp))
			obs[j] += poolObs
			exp[j] += poolExp
		} else {
			obs, exp = append(obs, poolObs), append(exp, poolExp)
		}
	}
	stat, df := 0.0, len(exp)-1
	for i := range exp {
		stat += (obs[i] - exp[i]) * (obs[i] - exp[i]) / exp[i]
	}
	if df < 1 {
		return
	}
	crit := distuv.ChiSquared{K: float64(df)}.Quantile(1 - falseFailure)
	if stat > crit {
		t.Errorf("%s: χ² = %.1f with %d degrees of freedom, above %.1f (P = %g)", name, stat, df, crit, falseFailure)
	}
}

// symbolMech is what these tests need of a mechanism with symbol outputs.
type symbolMech interface {
	Channel
	Sample(rng *rand.Rand, x int) int
	Likelihood(dst []float64, r Report) ([]float64, float64)
}

func symbolMechs(t *testing.T) map[string]symbolMech {
	t.Helper()
	must := func(m symbolMech, err error) symbolMech {
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	return map[string]symbolMech{
		"krr K=5 ε=1":           must(NewKRR(5, 1)),
		"krr K=100 ε=8.08":      must(NewKRR(100, 8.08)),
		"krr K=3 ε=800":         must(NewKRR(3, 800)),
		"geometric K=10 ε=0.5":  must(NewGeometric(10, 0.5)),
		"geometric K=100 ε=.02": must(NewGeometric(100, 0.02)),
		"urr K=8 S={1,4,5}":     must(NewURR(8, 1.5, []int{5, 1, 4})),
		"urr K=6 S={2}":         must(NewURR(6, 0.7, []int{2})),
		"identity K=4":          must(NewIdentity(4)),
		"hr K=5 ε=1":            must(NewHR(5, 1)),
		"hr K=8 ε=3":            must(NewHR(8, 3)),
		"hr K=300 ε=0.5":        must(NewHR(300, 0.5)),
	}
}

func TestChannelRows(t *testing.T) {
	mechs := symbolMechs(t)
	for _, name := range slices.Sorted(maps.Keys(mechs)) {
		m := mechs[name]
		t.Run(name, func(t *testing.T) {
			for x := range m.Inputs() {
				sum := 0.0
				for z := range m.Outputs() {
					p := m.Prob(x, z)
					if p < 0 || math.IsNaN(p) {
						t.Fatalf("P(%d|%d) = %v", z, x, p)
					}
					sum += p
				}
				if math.Abs(sum-1) > 1e-12 {
					t.Errorf("row %d sums to %.17g", x, sum)
				}
			}
			// Likelihood columns are the channel's columns.
			for z := range m.Outputs() {
				col, scale := m.Likelihood(nil, SymbolReport(z))
				for x := range col {
					if got, want := col[x]*math.Exp(scale), m.Prob(x, z); math.Abs(got-want) > 1e-15 {
						t.Fatalf("likelihood of %d at %d = %v, want %v", z, x, got, want)
					}
				}
			}
		})
	}
}

func TestSampleMatchesChannel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	const n = 200000
	mechs := symbolMechs(t)
	for _, name := range slices.Sorted(maps.Keys(mechs)) {
		m := mechs[name]
		if m.Outputs() > 20 {
			continue
		}
		t.Run(name, func(t *testing.T) { checkSampler(t, name, m, rng, n, 0, m.Inputs()/2, m.Inputs()-1) })
	}
}

// sampler is a channel with a symbol sampler.
type sampler interface {
	Channel
	Sampler
}

// checkSampler draws n reports of each input xs and tests their counts
// against the channel's row.
func checkSampler(t *testing.T, name string, m sampler, rng *rand.Rand, n int, xs ...int) {
	t.Helper()
	for _, x := range xs {
		counts := make([]int, m.Outputs())
		probs := make([]float64, m.Outputs())
		for z := range probs {
			probs[z] = m.Prob(x, z)
		}
		for range n {
			counts[m.Sample(rng, x)]++
		}
		chiSquare(t, name, counts, probs)
	}
}

func TestAuditEpsilon(t *testing.T) {
	krr, _ := NewKRR(7, 2.5)
	if got := WorstLDP(krr, nil); math.Abs(got-2.5) > 1e-9 {
		t.Errorf("k-RR audited ε = %v, want 2.5", got)
	}
	geo, _ := NewGeometric(50, 0.131)
	step := func(x, x2 int) float64 { return math.Abs(float64(x - x2)) }
	if got := mustGeoInd(t, geo, step); math.Abs(got-0.131) > 1e-9 {
		t.Errorf("geometric audited ε per step = %v, want 0.131", got)
	}
	// The geometric mechanism is not LDP for any ε below (K−1)ε.
	if got := WorstLDP(geo, nil); math.Abs(got-49*0.131) > 1e-9 {
		t.Errorf("geometric worst LDP = %v, want %v", got, 49*0.131)
	}
	urr, _ := NewURR(9, 1.2, []int{0, 3, 8})
	if got := WorstLDP(urr, urr.IsSensitive); math.Abs(got-1.2) > 1e-9 {
		t.Errorf("uRR audited ε on protected outputs = %v, want 1.2", got)
	}
	if z := InvertibleInputs(urr, func(z int) bool { return !urr.IsSensitive(z) }); z != -1 {
		t.Errorf("uRR invertible output %d has more than one input", z)
	}
	if got := WorstLDP(urr, nil); !math.IsInf(got, 1) {
		t.Errorf("uRR worst LDP over all outputs = %v, want +Inf", got)
	}
}

func TestMechanismErrors(t *testing.T) {
	for _, eps := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		t.Run(fmt.Sprintf("epsilon %v", eps), func(t *testing.T) {
			if _, err := NewKRR(5, eps); err == nil {
				t.Errorf("NewKRR(5, %v) succeeded", eps)
			}
			if _, err := NewRAPPOR(5, eps); err == nil {
				t.Errorf("NewRAPPOR(5, %v) succeeded", eps)
			}
		})
	}
	t.Run("one symbol", func(t *testing.T) {
		if _, err := NewGeometric(1, 1); err == nil {
			t.Error("NewGeometric(1, 1) succeeded")
		}
	})
	for _, tc := range []struct {
		name string
		sens []int
	}{
		{"no sensitive symbol", nil},
		{"symbol out of range", []int{5}},
		{"negative symbol", []int{-1}},
		{"repeated symbol", []int{1, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := NewURR(5, 1, tc.sens); err == nil {
				t.Errorf("NewURR(5, 1, %v) succeeded", tc.sens)
			}
			if _, err := NewURAP(5, 1, tc.sens); err == nil {
				t.Errorf("NewURAP(5, 1, %v) succeeded", tc.sens)
			}
		})
	}
}

// TestEveryKindDraws builds every kind a study can name and checks that
// its reports are drawn, written and parsed back: no kind reaches Draw's
// panic.
func TestEveryKindDraws(t *testing.T) {
	for _, kind := range Kinds() {
		t.Run(string(kind.Name), func(t *testing.T) {
			spec, a := exampleSpec(kind)
			if err := spec.Validate(a); err != nil {
				t.Fatal(err)
			}
			m, err := NewMechanism(spec, a)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(1, 1))
			for x := range DataSymbols(m) {
				r := Draw(m, rng, x)
				back, err := ParseReport(m, r.String())
				if err != nil || back != r {
					t.Errorf("ParseReport(%q) = %v, %v; want %v", r.String(), back, err, r)
				}
			}
		})
	}
}

// silent is a mechanism that gives likelihoods but draws no report.
type silent struct{}

func (silent) Inputs() int { return 2 }
func (silent) Likelihood(dst []float64, _ Report) ([]float64, float64) {
	return append(dst[:0], 0.5, 0.5), 0
}

// TestSimulateRefusesUndrawable checks that a mechanism that cannot draw
// a report is refused with an error, not a panic.
func TestSimulateRefusesUndrawable(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	emit := func(int, int, Report) error { return nil }
	err := Simulate(context.Background(), rng, []Mechanism{silent{}}, []int{3}, []float64{0.5, 0.5}, emit, nil)
	if err == nil || !strings.Contains(err.Error(), "cannot be simulated") {
		t.Errorf("Simulate with a mechanism that draws nothing: error %v, want \"cannot be simulated\"", err)
	}
}

func TestBits(t *testing.T) {
	b, err := ParseBits("0110000001")
	if err != nil {
		t.Fatal(err)
	}
	if b.Len() != 10 || b.Ones() != 3 || b.Bit(1) != 1 || b.Bit(0) != 0 || b.Bit(9) != 1 || b.String() != "0110000001" {
		t.Errorf("ParseBits round trip: %v, %d ones", b, b.Ones())
	}
	c, _ := ParseBits("0110000001")
	if b != c {
		t.Error("equal bit strings are not equal Bits")
	}
	if _, err := ParseBits("01x"); err == nil {
		t.Error(`ParseBits("01x") succeeded`)
	}
	if r := BitsReport(b); r.String() != "0110000001" || SymbolReport(7).String() != "7" {
		t.Errorf("Report strings %q, %q", r, SymbolReport(7))
	}
}

// mustAudit is AuditMechanism without cancel, failing t on an error.
func mustAudit(t *testing.T, m Mechanism, a Alphabet) Audit {
	t.Helper()
	au, err := AuditMechanism(context.Background(), m, a)
	if err != nil {
		t.Fatal(err)
	}
	return au
}

// mustGeoInd is WorstGeoInd without cancel, failing t on an error.
func mustGeoInd(t *testing.T, c Channel, dist func(x, x2 int) float64) float64 {
	t.Helper()
	v, err := WorstGeoInd(context.Background(), c, dist)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// mustBitLDP is WorstBitLDP without cancel, failing t on an error.
func mustBitLDP(t *testing.T, c BitChannel, zeros []int) float64 {
	t.Helper()
	v, err := WorstBitLDP(context.Background(), c, zeros)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestAuditCancel cancels an audit: it stops with the context's error.
func TestAuditCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	g, _ := NewPlanarGeometric(8, 6, 0.5, 1)
	r, _ := NewRAPPOR(8, 1)
	for _, m := range []Mechanism{g, r} {
		if _, err := AuditMechanism(ctx, m, Alphabet{Kind: KindGrid, Cols: 8, Rows: 6, CellKm: 0.5}); err != context.Canceled {
			t.Errorf("cancelled audit of %T: error %v, want context.Canceled", m, err)
		}
	}
}

// TestKRRStableAtEveryEpsilon checks k-RR's probabilities over ε from
// 1e−3 to 700 and K from 2 to 10⁶: keep/other = e^ε to rounding (the
// LDP ratio the audit reads), a row sums to 1, and the operator's rates
// agree with Prob.
func TestKRRStableAtEveryEpsilon(t *testing.T) {
	for _, k := range []int{2, 384, 1000000} {
		for _, eps := range []float64{1e-3, 0.1, 1, 5, 20, 36, 42, 45, 100, 300, 700} {
			m, err := NewKRR(k, eps)
			if err != nil {
				t.Fatal(err)
			}
			keep, other := m.Prob(0, 0), m.Prob(0, 1)
			if got := math.Log(keep) - math.Log(other); math.Abs(got-eps) > 1e-12*math.Max(1, eps) {
				t.Errorf("K=%d ε=%g: log(keep/other) = %.17g", k, eps, got)
			}
			if sum := keep + float64(k-1)*other; math.Abs(sum-1) > 1e-12 {
				t.Errorf("K=%d ε=%g: a row sums to %.17g", k, eps, sum)
			}
			r, pr := m.rates()
			if r != other || math.Abs(r+pr-keep) > 1e-15 {
				t.Errorf("K=%d ε=%g: rates %g, %g for keep %g, other %g", k, eps, r, pr, keep, other)
			}
		}
	}
}

// TestSizeBounds checks that sizes from a file or flag are refused
// before anything is allocated, with what they would cost, and that
// cols×rows cannot wrap: studies of 200 bytes once ended in "fatal
// error: out of memory" or passed validation with a wrapped K.
func TestSizeBounds(t *testing.T) {
	for _, tc := range []struct {
		study, msg string
	}{
		{`{"alphabet": {"kind": "grid", "cols": 4294967296, "rows": 4294967297, "cell_km": 1}}`, "more than the 16777216 privmap handles"},
		{`{"alphabet": {"kind": "grid", "cols": 100000, "rows": 100000, "cell_km": 1}}`, "1e+10 cells"},
		{`{"alphabet": {"kind": "grid", "cols": 9223372036854775807, "rows": 2, "cell_km": 1}}`, "more than the 16777216"},
		{`{"alphabet": {"kind": "linear", "size": 1000000000000}}`, "8 TB for one distribution"},
		{`{"alphabet": {"kind": "grid", "cols": 200000, "rows": 1, "cell_km": 0.5},
		   "mechanisms": [{"id": "p", "kind": "planar-geometric", "epsilon": 1}]}`, "at most 2048 cells a side"},
	} {
		s, err := ReadStudy(strings.NewReader(tc.study))
		if err == nil {
			for _, spec := range s.Mechanisms {
				if _, err = NewMechanism(spec, s.Alphabet); err != nil {
					break
				}
			}
		}
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: %v, want %q", tc.study, err, tc.msg)
		}
	}
	if _, err := NewPlanarGeometric(200000, 1, 0.5, 1); err == nil || !strings.Contains(err.Error(), "4.8 TB") {
		t.Errorf("a 200000×1 planar grid: %v", err)
	}
	if _, err := NewKRR(MaxSymbols+1, 1); err == nil {
		t.Error("k-RR beyond MaxSymbols was built")
	}
}

// TestCheckStochastic checks the one check of every channel built: rows
// summing to 1.2 or holding a negative, NaN or infinite entry, and a bit
// probability past 1, are refused with the row; a channel is accepted.
func TestCheckStochastic(t *testing.T) {
	for _, tc := range []struct {
		m    matrixChannel
		want string
	}{
		{matrixChannel{{0.5, 0.5}, {0.25, 0.75}}, ""},
		{matrixChannel{{0.5, 0.5}, {0.6, 0.6}}, "row 1 sums to 1.2, not 1"},
		{matrixChannel{{1.5, -0.5}, {0.5, 0.5}}, "P(1 | 0) is -0.5, not a probability"},
		{matrixChannel{{math.NaN(), 1}, {0.5, 0.5}}, "P(0 | 0) is NaN"},
		{matrixChannel{{0.5, 0.5 + 2e-12}, {0.5, 0.5}}, "row 0 sums to"},
		{matrixChannel{{0.5, 0.5 + 5e-13}, {0.5, 0.5}}, ""},
	} {
		err := checkStochastic(samplingChannel{tc.m})
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%v: %v, want %q", tc.m, err, tc.want)
		}
	}
	if err := checkStochastic(badBits{}); err == nil || !strings.Contains(err.Error(), "P(bit 1 = 1 | 0) is 1.5") {
		t.Errorf("bit probability 1.5: %v", err)
	}
	// Shokri at a quality bound far past the largest distance (it used
	// to leave floating point, rows summing to 1.2).
	a := Alphabet{Kind: KindLinear, Size: 3}
	if _, err := NewMechanism(MechanismSpec{ID: "s", Kind: KindShokri, QualityLoss: 1e300}, a); err != nil {
		t.Error(err)
	}
}

// samplingChannel is a matrixChannel that is also a Mechanism.
type samplingChannel struct{ matrixChannel }

func (samplingChannel) Likelihood(dst []float64, _ Report) ([]float64, float64) { return dst, 0 }

// badBits is a bit channel whose second bit has probability 1.5.
type badBits struct{}

func (badBits) Inputs() int { return 2 }
func (badBits) Bits() int   { return 2 }
func (badBits) BitProb(x, j int) float64 {
	if j == 1 {
		return 1.5
	}
	return 0.5
}
func (badBits) Likelihood(dst []float64, _ Report) ([]float64, float64) { return dst, 0 }
