package core

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/privmap/privmap/internal/linalg"
)

// auditEpsilons is the grid of privacy levels every mechanism kind is
// audited at: from far below to far above any level used in practice.
var auditEpsilons = []float64{1e-3, 0.01, 0.1, 0.5, 1, 2, 5, 10, 20, 45, 80, 100, 200, 300, 500, 700}

// TestLn checks ln against the exact logarithm of a scaled number,
// subnormals included, where math.Log on amd64 is off by up to 35.
func TestLn(t *testing.T) {
	for _, v := range []float64{5e-324, 1e-320, 6.695690479e-314, 0x1p-1022 * 0.75, 0x1p-1022, 1e-300, 0.5, 1, 3e300} {
		frac, exp := math.Frexp(v) // exact, subnormals included
		want := math.Log(frac) + float64(exp)*math.Ln2
		if got := linalg.Log(v); math.Abs(got-want) > 1e-13*math.Abs(want)+1e-15 {
			t.Errorf("ln(%g) = %.17g, want %.17g", v, got, want)
		}
	}
	if !math.IsInf(linalg.Log(0), -1) || !math.IsNaN(linalg.Log(-1)) {
		t.Errorf("ln(0) = %v, ln(−1) = %v", linalg.Log(0), linalg.Log(-1))
	}
}

// TestAuditEpsilonGrid audits every mechanism kind over auditEpsilons
// and checks the level it reads off the channel against the formula's:
//
//   - k-RR, RAPPOR, uRR, uRAP and PUM on either base: ε-LDP = ε exactly
//     (relative 1e−12), at every level of the grid;
//   - the linear geometric mechanism on K symbols: ε per step of
//     geo-indistinguishability and ε(K−1)-LDP while the far
//     probability e^{−ε(K−1)} is a normal float64; past e^{−745} it
//     underflows, and the audit must say so (Underflow) with a zero
//     really in the channel;
//   - the planar geometric mechanism: ε per km while e^{−ε·diameter}
//     is normal, Underflow past e^{−760}, and a refusal naming the least
//     ε·s below the lattice's reach;
//   - Shokri's mechanism, which has no ε: over a grid of quality bounds
//     Q, an expected loss within Q and an audit that agrees with the
//     channel's own ratios;
//   - the identity: ∞, and not an underflow.
func TestAuditEpsilonGrid(t *testing.T) {
	cat := Alphabet{Kind: KindCategorical, Size: 6}
	line := Alphabet{Kind: KindLinear, Size: 6}
	grid := Alphabet{Kind: KindGrid, Cols: 4, Rows: 3, CellKm: 0.5}
	diameter := 0.5 * math.Hypot(3, 2)
	sens := []int{0, 2, 3}
	for _, eps := range auditEpsilons {
		for _, spec := range []MechanismSpec{
			{ID: "krr", Kind: KindKRR, Epsilon: eps},
			{ID: "rappor", Kind: KindRAPPOR, Epsilon: eps},
			{ID: "urr", Kind: KindURR, Epsilon: eps, Sensitive: sens},
			{ID: "urap", Kind: KindURAP, Epsilon: eps, Sensitive: sens},
			{ID: "pum-urr", Kind: KindPUM, Epsilon: eps, Sensitive: sens[:1], Tags: []string{"home"}},
			{ID: "pum-urap", Kind: KindPUM, Epsilon: eps, Sensitive: sens[:1], Tags: []string{"home", "work"}, Base: KindURAP},
		} {
			au := mustAuditSpec(t, spec, cat)
			if math.Abs(au.LDP-eps) > 1e-12*eps || au.Underflow {
				t.Errorf("%s at ε = %g: audited ε-LDP %.17g (underflow %v)", spec.ID, eps, au.LDP, au.Underflow)
			}
		}

		geo := MechanismSpec{ID: "geometric", Kind: KindGeo, Epsilon: eps}
		au := mustAuditSpec(t, geo, line)
		far := eps * float64(line.Size-1)
		switch {
		case far < 700:
			if math.Abs(au.GeoInd-eps) > 1e-12*eps || math.Abs(au.LDP-far) > 1e-12*far || au.Underflow {
				t.Errorf("geometric at ε = %g: audited %.17g per step, ε-LDP %.17g (underflow %v)", eps, au.GeoInd, au.LDP, au.Underflow)
			}
		case far > 760:
			m, _ := NewGeometric(line.Size, eps)
			if !au.Underflow || !math.IsInf(au.LDP, 1) || m.Prob(0, line.Size-1) != 0 {
				t.Errorf("geometric at ε = %g: audit %+v, far probability %g: want an underflow", eps, au, m.Prob(0, line.Size-1))
			}
		}

		planar := MechanismSpec{ID: "planar", Kind: KindPlanar, Epsilon: eps}
		if eps*grid.CellKm < minPlanarEpsCell {
			_, err := NewMechanism(planar, grid)
			if err == nil || !strings.Contains(err.Error(), "at least 0.024") {
				t.Errorf("planar at ε = %g: error %v, want the lattice refusal", eps, err)
			}
			continue
		}
		au = mustAuditSpec(t, planar, grid)
		switch far := eps * diameter; {
		case far < 700:
			if math.Abs(au.GeoInd-eps) > 1e-12*eps || au.GeoIndUpper != au.GeoInd || math.IsInf(au.LDP, 0) || au.Underflow {
				t.Errorf("planar at ε = %g: audited %.17g per km, ε-LDP %v (underflow %v)", eps, au.GeoInd, au.LDP, au.Underflow)
			}
		case far > 760:
			if !au.Underflow || !math.IsInf(au.LDP, 1) {
				t.Errorf("planar at ε = %g: audit %+v: want an underflow", eps, au)
			}
		}
	}

	for _, q := range []float64{0.1, 0.4, 1, 2} {
		spec := MechanismSpec{ID: "shokri", Kind: KindShokri, QualityLoss: q}
		m, err := NewMechanism(spec, line)
		if err != nil {
			t.Fatal(err)
		}
		au := mustAuditSpec(t, spec, line)
		c := m.(Channel)
		if au.QualityMean > q*(1+1e-6) || au.Underflow {
			t.Errorf("shokri Q = %g: expected loss %g, underflow %v", q, au.QualityMean, au.Underflow)
		}
		if want := exactGeoInd(c, func(x, y int) float64 { return math.Abs(float64(x - y)) }); math.Abs(au.GeoInd-want) > 1e-9*max(1, want) {
			t.Errorf("shokri Q = %g: audited %v per step, channel's ratios %v", q, au.GeoInd, want)
		}
	}

	// On a map, uRR's unprotected outputs make its geo-indistinguishability
	// infinite by design: not an underflow.
	u := mustAuditSpec(t, MechanismSpec{ID: "urr", Kind: KindURR, Epsilon: 1, Sensitive: sens}, grid)
	if !math.IsInf(u.GeoInd, 1) || u.Underflow || math.Abs(u.LDP-1) > 1e-12 {
		t.Errorf("uRR on a grid: %+v", u)
	}

	id := mustAuditSpec(t, MechanismSpec{ID: "id", Kind: KindIdentity}, cat)
	if !math.IsInf(id.LDP, 1) || id.Underflow {
		t.Errorf("identity audit %+v: want ∞, not an underflow", id)
	}
}

func mustAuditSpec(t *testing.T, spec MechanismSpec, a Alphabet) Audit {
	t.Helper()
	m, err := NewMechanism(spec, a)
	if err != nil {
		t.Fatalf("%s at ε = %g: %v", spec.ID, spec.Epsilon, err)
	}
	au, err := AuditMechanism(context.Background(), m, a)
	if err != nil {
		t.Fatal(err)
	}
	return au
}

// TestEmpiricalAudit samples reports of two neighbouring inputs x, x'
// from every mechanism kind and checks that the sampled channel never
// beats its audit: for each output z, with n draws per input and
// Hoeffding's bound h = √(ln(2M/δ)/(2n)) on each of the M estimated
// probabilities, the lower confidence bound
//
//	ln( (P̂(z|x) − h) / (P̂(z|x') + h) ) ≤ ε·d(x, x')
//
// holds for all of them at once with probability at least 1 − δ,
// δ = 10⁻⁶ per mechanism. ε·d is the audited level: ε-LDP (d = 1) on
// the protected outputs of k-RR, RAPPOR, uRR, uRAP and PUM, ε per step
// or km of geo-indistinguishability for the geometric mechanisms and
// Shokri's. A control shows the bound has power: the same draws refute
// half the audited level of k-RR at ε = 2.
func TestEmpiricalAudit(t *testing.T) {
	const n, delta = 200000, 1e-6
	cat := Alphabet{Kind: KindCategorical, Size: 4}
	line := Alphabet{Kind: KindLinear, Size: 6}
	grid := Alphabet{Kind: KindGrid, Cols: 3, Rows: 3, CellKm: 1}
	rng := rand.New(rand.NewPCG(15, 3))
	for _, tc := range []struct {
		spec  MechanismSpec
		a     Alphabet
		x, x2 int // neighbouring inputs
	}{
		{MechanismSpec{ID: "krr", Kind: KindKRR, Epsilon: 2}, cat, 0, 1},
		{MechanismSpec{ID: "krr-small", Kind: KindKRR, Epsilon: 0.3}, cat, 2, 3},
		{MechanismSpec{ID: "rappor", Kind: KindRAPPOR, Epsilon: 1.5}, cat, 0, 3},
		{MechanismSpec{ID: "urr", Kind: KindURR, Epsilon: 1, Sensitive: []int{0, 1}}, cat, 0, 1},
		{MechanismSpec{ID: "urap", Kind: KindURAP, Epsilon: 1, Sensitive: []int{0, 1, 2}}, cat, 1, 2},
		{MechanismSpec{ID: "pum", Kind: KindPUM, Epsilon: 1, Sensitive: []int{0}, Tags: []string{"home"}}, cat, 0, 4},
		{MechanismSpec{ID: "geometric", Kind: KindGeo, Epsilon: 0.7}, line, 2, 3},
		{MechanismSpec{ID: "planar", Kind: KindPlanar, Epsilon: 0.8}, grid, 4, 5},
		{MechanismSpec{ID: "shokri", Kind: KindShokri, QualityLoss: 0.5}, line, 2, 3},
	} {
		m, err := NewMechanism(tc.spec, tc.a)
		if err != nil {
			t.Fatal(err)
		}
		au, err := AuditMechanism(context.Background(), m, tc.a)
		if err != nil {
			t.Fatal(err)
		}
		level := au.LDP
		if !math.IsNaN(au.GeoInd) {
			d, _, _ := tc.a.Distance(tc.x, tc.x2)
			level = au.GeoIndUpper * d
		}
		keep := func(int) bool { return true }
		if u, ok := reporter(m).(utilityOptimized); ok {
			keep = protectedOutput(reporter(m), u)
		}
		c1, c2 := sampleOutputs(m, rng, tc.x, n), sampleOutputs(m, rng, tc.x2, n)
		lower := empiricalLevel(c1, c2, n, delta, keep)
		if lower > level {
			t.Errorf("%s: sampled reports give ln ratio ≥ %.4f with confidence 1−%g; audited %.4f", tc.spec.ID, lower, delta, level)
		}
		if tc.spec.ID == "krr" && !(lower > level/2) {
			t.Errorf("krr control: lower bound %.4f does not refute half the level %.4f", lower, level/2)
		}
	}
}

// protectedOutput reports whether an output of a ULDP mechanism is
// protected: a sensitive symbol (uRR), or bits with no non-sensitive
// bit set (uRAP, the output's bits as an integer).
func protectedOutput(m Mechanism, u utilityOptimized) func(z int) bool {
	if _, ok := m.(BitChannel); ok {
		return func(z int) bool {
			for j := range m.Inputs() {
				if z>>j&1 == 1 && !u.IsSensitive(j) {
					return false
				}
			}
			return true
		}
	}
	return u.IsSensitive
}

// sampleOutputs counts n reports of x, bit vectors as integers.
func sampleOutputs(m Mechanism, rng *rand.Rand, x, n int) map[int]int {
	counts := map[int]int{}
	for range n {
		r := Draw(m, rng, x)
		z := r.Symbol
		if r.Bits.Len() > 0 {
			z = 0
			for j := range r.Bits.Len() {
				z |= r.Bits.Bit(j) << j
			}
		}
		counts[z]++
	}
	return counts
}

// empiricalLevel returns the largest lower confidence bound, over the
// kept outputs seen, of ln(P(z|x)/P(z|x')) in either direction, from
// counts of n draws each (see TestEmpiricalAudit).
func empiricalLevel(c1, c2 map[int]int, n int, delta float64, keep func(int) bool) float64 {
	outputs := map[int]bool{}
	for z := range c1 {
		outputs[z] = true
	}
	for z := range c2 {
		outputs[z] = true
	}
	h := math.Sqrt(math.Log(2*float64(2*len(outputs))/delta) / (2 * float64(n)))
	worst := math.Inf(-1)
	for z := range outputs {
		if !keep(z) {
			continue
		}
		p1, p2 := float64(c1[z])/float64(n), float64(c2[z])/float64(n)
		for _, r := range [][2]float64{{p1, p2}, {p2, p1}} {
			if r[0] > h {
				worst = math.Max(worst, math.Log((r[0]-h)/(r[1]+h)))
			}
		}
	}
	return worst
}
