package central

import (
	"context"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/integrate/quad"
)

// TestCentralCheckValues checks the closed forms against the values
// package app/release's doc gives (computed independently): the Laplace
// mixture λ₁ = 1, λ₂ = 3, c = 2 and the geometric mixture ε₁ = 0.5,
// ε₂ = 1, c = 3.
func TestCentralCheckValues(t *testing.T) {
	lm := LaplaceMixture{Scale1: 1, Scale2: 3, Break: 2}
	gm, err := NewGeometricMixture(0.5, 1, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		got, want float64
		tol       float64 // the check values' last digit
	}{
		{"Laplace mixture E|X|", lm.AbsMean(), 2.065070, 5e-7},
		{"Laplace mixture Var", lm.Variance(), 11.372614, 5e-7},
		{"Laplace mixture h", lm.Entropy(), 2.358720, 5e-7},
		{"geometric mixture E|K|", gm.AbsMean(), 1.42644428, 5e-9},
		{"geometric mixture Var", gm.Variance(), 3.79340170, 5e-9},
		{"geometric mixture H", gm.Entropy(), 2.06547015, 5e-9},
	} {
		if math.Abs(tc.got-tc.want) > tc.tol {
			t.Errorf("%s = %.10g, want %.10g", tc.name, tc.got, tc.want)
		}
	}
}

// laplaceCases are mixtures of both shapes, the Laplace mechanism and a
// break-point far out.
var laplaceCases = []LaplaceMixture{
	{Scale1: 1, Scale2: 3, Break: 2},
	{Scale1: 10, Scale2: 1, Break: 5},
	{Scale1: 4, Scale2: 4, Break: 0},
	{Scale1: 2.5, Scale2: 0.4, Break: 0.7},
	{Scale1: 0.5, Scale2: 7, Break: 12},
}

// integrate integrates fn over the real line for a Laplace mixture, piece
// by piece with 60-point Gauss–Legendre rules, out to where the tail is
// below 1e−20; the pieces end at f's break-points and at the knots given,
// where fn may have a kink or a jump.
func integrate(m LaplaceMixture, fn func(x float64) float64, knots ...float64) float64 {
	end := m.Break + 60*math.Max(m.Scale1, m.Scale2)
	pts := append([]float64{-end, -m.Break, 0, m.Break, end}, knots...)
	slices.Sort(pts)
	sum := 0.0
	for i := 0; i+1 < len(pts); i++ {
		a, b := math.Max(pts[i], -end), math.Min(pts[i+1], end)
		if b <= a {
			continue
		}
		// Long pieces are split so that each rule spans a few scales.
		n := int(math.Ceil((b - a) / math.Min(m.Scale1, m.Scale2) / 4))
		h := (b - a) / float64(n)
		for j := range n {
			x := a + float64(j)*h
			sum += quad.Fixed(fn, x, x+h, 60, quad.Legendre{}, 0)
		}
	}
	return sum
}

// TestLaplaceMixtureClosedForms checks the density sums to 1, is
// continuous at c, and E|X|, E X², h against numerical integration.
func TestLaplaceMixtureClosedForms(t *testing.T) {
	for _, m := range laplaceCases {
		close := func(name string, got, want float64) {
			t.Helper()
			if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
				t.Errorf("%+v: %s = %.15g, numerically %.15g", m, name, got, want)
			}
		}
		close("∫f", integrate(m, m.PDF), 1)
		close("E|X|", m.AbsMean(), integrate(m, func(x float64) float64 { return math.Abs(x) * m.PDF(x) }))
		close("E X²", m.Variance(), integrate(m, func(x float64) float64 { return x * x * m.PDF(x) }))
		close("h", m.Entropy(), integrate(m, func(x float64) float64 { f := m.PDF(x); return -f * math.Log(f) }))
		if c := m.Break; c > 0 {
			close("f continuous at c", m.PDF(math.Nextafter(c, 0)), m.PDF(math.Nextafter(c, 10*c)))
		}
		for _, x := range []float64{-3, -0.3, 0, 0.2, 1.9, 2.1, 9} {
			close("CDF", m.CDF(x), integrate(m, func(y float64) float64 {
				if y <= x {
					return m.PDF(y)
				}
				return 0
			}, x))
		}
		for _, p := range []float64{1e-12, 0.01, 0.3, 0.5, 0.77, 0.999999} {
			if got := m.CDF(m.Quantile(p)); math.Abs(got-p) > 1e-12 {
				t.Errorf("%+v: CDF(Quantile(%g)) = %.15g", m, p, got)
			}
		}
	}
}

// geometricCases are mixtures of both shapes, the geometric mechanism, a
// small α (large ε) and one near 1 (small ε).
var geometricCases = []GeometricMixture{
	{Alpha1: math.Exp(-0.5), Alpha2: math.Exp(-1), Break: 3},
	{Alpha1: math.Exp(-2), Alpha2: math.Exp(-0.3), Break: 1},
	{Alpha1: math.Exp(-0.7), Alpha2: math.Exp(-0.7), Break: 0},
	{Alpha1: math.Exp(-0.01), Alpha2: math.Exp(-0.05), Break: 40},
	{Alpha1: math.Exp(-9), Alpha2: math.Exp(-12), Break: 2},
}

// sumPMF sums fn(k)·P(k) over the integers out to where the terms are
// below 1e−30 of the first.
func sumPMF(m GeometricMixture, fn func(k int) float64) float64 {
	sum := fn(0) * m.PMF(0)
	for k := 1; ; k++ {
		p := m.PMF(k)
		sum += (fn(k) + fn(-k)) * p
		if p < 1e-30*m.PMF(0) && k > m.Break {
			return sum
		}
	}
}

// TestGeometricMixtureClosedForms checks the PMF sums to 1, b₂ joins the
// pieces as PM eq. 22 says, and E|K|, E K², H and the CDF against
// summation; the quantile is the smallest k whose CDF reaches p.
func TestGeometricMixtureClosedForms(t *testing.T) {
	for _, m := range geometricCases {
		close := func(name string, got, want float64) {
			t.Helper()
			if math.Abs(got-want) > 1e-10*math.Max(1, math.Abs(want)) {
				t.Errorf("%+v: %s = %.15g, summed %.15g", m, name, got, want)
			}
		}
		one := func(int) float64 { return 1 }
		close("ΣP", sumPMF(m, one), 1)
		close("E|K|", m.AbsMean(), sumPMF(m, func(k int) float64 { return math.Abs(float64(k)) }))
		close("E K²", m.Variance(), sumPMF(m, func(k int) float64 { return float64(k * k) }))
		close("H", m.Entropy(), sumPMF(m, func(k int) float64 { return -math.Log(m.PMF(k)) }))
		c := m.Break
		close("P(c+1)/P(c) = α₂", m.PMF(c+1)/m.PMF(c), m.Alpha2)
		for _, k := range []int{-c - 3, -1, 0, 1, c, c + 2} {
			close("CDF", m.CDF(k), sumPMF(m, func(j int) float64 {
				if j <= k {
					return 1
				}
				return 0
			}))
		}
		for _, p := range []float64{1e-9, 0.02, 0.4, 0.5, 0.6, 0.98, 1 - 1e-9} {
			k := m.Quantile(p)
			if !(m.CDF(k) >= p && m.CDF(k-1) < p) {
				t.Errorf("%+v: Quantile(%g) = %d: CDF there %.15g, before %.15g", m, p, k, m.CDF(k), m.CDF(k-1))
			}
		}
	}
}

// TestCentralLimits checks c → 0 and c → ∞: a break-point of 0 is the
// standard mechanism of the outer parameter exactly, and one far out is
// the standard mechanism of the inner one.
func TestCentralLimits(t *testing.T) {
	lap := func(l float64) LaplaceMixture { return LaplaceMixture{Scale1: l, Scale2: l} }
	for _, tc := range []struct{ mix, std LaplaceMixture }{
		{LaplaceMixture{Scale1: 2, Scale2: 5, Break: 0}, lap(5)},
		{LaplaceMixture{Scale1: 2, Scale2: 5, Break: 2000}, lap(2)},
	} {
		for _, pair := range [][2]float64{{tc.mix.AbsMean(), tc.std.AbsMean()}, {tc.mix.Variance(), tc.std.Variance()}, {tc.mix.Entropy(), tc.std.Entropy()}} {
			if math.Abs(pair[0]-pair[1]) > 1e-12*pair[1] {
				t.Errorf("%+v: %v, want the Laplace mechanism's %v", tc.mix, pair[0], pair[1])
			}
		}
	}
	// Laplace(λ): E|X| = λ, Var = 2λ², h = 1 + ln 2λ.
	if l := lap(3); math.Abs(l.AbsMean()-3) > 1e-14 || math.Abs(l.Variance()-18) > 1e-13 || math.Abs(l.Entropy()-(1+math.Log(6))) > 1e-14 {
		t.Errorf("Laplace(3): %v, %v, %v", l.AbsMean(), l.Variance(), l.Entropy())
	}
	geo := func(a float64) GeometricMixture { return GeometricMixture{Alpha1: a, Alpha2: a} }
	for _, tc := range []struct{ mix, std GeometricMixture }{
		{GeometricMixture{Alpha1: 0.6, Alpha2: 0.3, Break: 0}, geo(0.3)},
		{GeometricMixture{Alpha1: 0.6, Alpha2: 0.3, Break: 400}, geo(0.6)},
	} {
		for _, pair := range [][2]float64{{tc.mix.AbsMean(), tc.std.AbsMean()}, {tc.mix.Variance(), tc.std.Variance()}, {tc.mix.Entropy(), tc.std.Entropy()}} {
			if math.Abs(pair[0]-pair[1]) > 1e-12*pair[1] {
				t.Errorf("%+v: %v, want the geometric mechanism's %v", tc.mix, pair[0], pair[1])
			}
		}
	}
	// Geometric(α): E|K| = 2α/(1−α²).
	if g := geo(0.5); math.Abs(g.AbsMean()-1/0.75) > 1e-14 {
		t.Errorf("geometric(0.5): E|K| = %v, want 4/3", g.AbsMean())
	}
}

// TestCentralMonteCarlo draws 200,000 noises of each kind and checks the
// sample mean of |X| and of X² against the closed forms: each within
// 4.89 standard errors, a two-sided false-failure probability of 1e−6
// per check.
func TestCentralMonteCarlo(t *testing.T) {
	const n = 200000
	rng := rand.New(rand.NewPCG(7, 7))
	check := func(name string, draw func() float64, abs, sq float64) {
		t.Helper()
		var s1, s2, s4 float64
		for range n {
			x := draw()
			s1 += math.Abs(x)
			s2 += x * x
			s4 += x * x * x * x
		}
		m1, m2, m4 := s1/n, s2/n, s4/n
		se1 := math.Sqrt((sq - abs*abs) / n)
		se2 := math.Sqrt((m4 - m2*m2) / n)
		if math.Abs(m1-abs) > 4.89*se1 {
			t.Errorf("%s: mean |X| %g, want %g ± %g", name, m1, abs, 4.89*se1)
		}
		if math.Abs(m2-sq) > 4.89*se2 {
			t.Errorf("%s: mean X² %g, want %g ± %g", name, m2, sq, 4.89*se2)
		}
	}
	for _, m := range laplaceCases {
		check("Laplace mixture", func() float64 { return m.Rand(rng) }, m.AbsMean(), m.Variance())
	}
	for _, m := range geometricCases[:4] {
		check("geometric mixture", func() float64 { return float64(m.Rand(rng)) }, m.AbsMean(), m.Variance())
	}
}

// TestBudget checks the general privacy budget: the geometric mechanism's
// is ε for Δ = 1; a budget never exceeds the worst case; E|L| ≤ ln E
// e^{|L|}; the geometric mixture's PM reading reproduces PM Table I; and
// the budgets agree with brute-force sums over the outputs.
func TestBudget(t *testing.T) {
	for _, eps := range []float64{0.01, 0.152, 1, 5} {
		g, _ := NewGeometricNoise(eps, 1)
		if b := g.Budget(1); math.Abs(b-eps) > 1e-12*eps {
			t.Errorf("geometric ε = %g: budget %.15g", eps, b)
		}
		if b := g.BudgetPM(1); math.Abs(b-eps) > 1e-12*eps {
			t.Errorf("geometric ε = %g: PM budget %.15g", eps, b)
		}
		if w := g.WorstEpsilon(1); math.Abs(w-eps) > 1e-14*eps {
			t.Errorf("geometric ε = %g: worst %g", eps, w)
		}
	}
	// PM Table I, {geometric mixture, Laplace mixture} budgets, and the
	// Laplace mechanism's ε whose rounded release has the Laplace
	// mixture's budget: c, ε₁, ε₂, geometric, Laplace ε.
	for _, row := range [][5]float64{
		{4, 0.1, 0.2, 0.152, 0.154}, {4, 0.5, 1, 0.548, 0.554}, {5, 0.2, 1, 0.328, 0.332},
		{6, 0.25, 2.5, 0.545, 0.496}, {7, 0.2, 2, 0.388, 0.366},
	} {
		g, _ := NewGeometricMixture(row[1], row[2], int(row[0]), 1)
		if got := g.BudgetPM(1); math.Abs(got-row[3]) > 0.0005 {
			t.Errorf("c = %g, ε = %g, %g: geometric mixture's PM budget %.4f, Table I %.3f", row[0], row[1], row[2], got, row[3])
		}
		if b, w := g.Budget(1), g.WorstEpsilon(1); !(b <= g.BudgetPM(1) && g.BudgetPM(1) <= w) {
			t.Errorf("c = %g: budget %g, PM %g, worst %g out of order", row[0], b, g.BudgetPM(1), w)
		}
	}
	// The rounded Laplace mechanism: its PM budget for Table I's
	// equivalent ε matches the Laplace mixture's column there.
	for _, pair := range [][2]float64{{0.154, 0.148}, {0.706, 0.619}, {0.332, 0.309}} {
		l, _ := NewLaplaceNoise(pair[0], 1)
		// Table I rounds both to three decimals: ±0.0005 on ε moves the
		// budget by about as much.
		if got := (Rounded{l}).BudgetPM(1); math.Abs(got-pair[1]) > 0.0011 {
			t.Errorf("rounded Laplace ε = %g: PM budget %.4f, Table I %.3f", pair[0], got, pair[1])
		}
	}
	// Brute force: sum the losses over the outputs.
	for _, g := range geometricCases {
		for _, d := range []int{1, 2, 5} {
			want := 0.0
			for k := -3000; k <= 3000; k++ {
				if p := g.PMF(k); p > 0 {
					want += p * math.Abs(math.Log(p/g.PMF(k-d)))
				}
			}
			if got := g.Budget(d); math.Abs(got-want) > 1e-9*want {
				t.Errorf("%+v, Δ = %d: budget %.15g, summed %.15g", g, d, got, want)
			}
		}
	}
	for _, l := range laplaceCases {
		for _, d := range []int{1, 3} {
			want, worst := 0.0, 0.0
			for j := -4000; j <= 4000; j++ {
				q := l.CDF(float64(j)+0.5) - l.CDF(float64(j)-0.5)
				qd := l.CDF(float64(j-d)+0.5) - l.CDF(float64(j-d)-0.5)
				if q > 1e-300 && qd > 1e-300 {
					loss := math.Abs(math.Log(q / qd))
					want += q * loss
					if q > 1e-6 && qd > 1e-6 { // CDF differences lose the far bins' digits
						worst = math.Max(worst, loss)
					}
				}
			}
			if got := (Rounded{l}).Budget(d); math.Abs(got-want) > 1e-8 {
				t.Errorf("%+v, Δ = %d: rounded budget %.12g, summed %.12g", l, d, got, want)
			}
			if got := (Rounded{l}).WorstEpsilon(d); got < worst*(1-1e-8) || got > l.WorstEpsilon(float64(d))+1e-12 {
				t.Errorf("%+v, Δ = %d: rounded worst %g, seen %g, unrounded %g", l, d, got, worst, l.WorstEpsilon(float64(d)))
			}
			df, c := float64(d), l.Break
			cont := integrate(l, func(y float64) float64 { return l.PDF(y) * math.Abs(math.Log(l.PDF(y)/l.PDF(y-df))) },
				df-c, df, df+c, df/2) // the loss's kinks, and where it is 0 for the Laplace mechanism
			if got := l.Budget(float64(d)); math.Abs(got-cont) > 1e-7 {
				t.Errorf("%+v, Δ = %d: budget %.12g, integrated %.12g", l, d, got, cont)
			}
		}
	}
}

// TestWorstEpsilon checks the worst case against a scan of the loss
// over a fine grid, for Δ inside and beyond the break-point.
func TestWorstEpsilon(t *testing.T) {
	for _, m := range laplaceCases {
		for _, d := range []float64{0.3, 1, 4, 30} {
			seen := 0.0
			for y := -60.0; y <= 60; y += 0.01 {
				seen = math.Max(seen, math.Abs(math.Log(m.PDF(y)/m.PDF(y-d))))
			}
			if got := m.WorstEpsilon(d); got < seen-1e-9 || got > seen+1e-9 && got > seen*1.001 {
				t.Errorf("%+v, Δ = %g: worst %g, scanned %g", m, d, got, seen)
			}
		}
	}
	for _, m := range geometricCases {
		for _, d := range []int{1, 2, 7} {
			seen := 0.0
			for k := -200; k <= 200; k++ {
				seen = math.Max(seen, math.Abs(math.Log(m.PMF(k)/m.PMF(k-d))))
			}
			if got := m.WorstEpsilon(d); math.Abs(got-seen) > 1e-9*seen {
				t.Errorf("%+v, Δ = %d: worst %g, scanned %g", m, d, got, seen)
			}
		}
	}
}

// TestSecureGeometric draws from the exact samplers with a seeded source
// (the sampler is exact whatever its bytes) and compares the counts of
// each value with the PMF by a χ² test at a false-failure probability of
// 1e−6, for the geometric mechanism and mixtures of both shapes; and
// checks Bernoulli(e^{−γ}).
func TestSecureGeometric(t *testing.T) {
	src := &seededBytes{rand.New(rand.NewPCG(3, 9))}
	s := exactSampler{src: src}
	for _, g := range []*big.Rat{big.NewRat(1, 3), big.NewRat(1, 1), big.NewRat(7, 4)} {
		const n = 40000
		hits := 0
		for range n {
			ok, err := s.bernoulliExp(g)
			if err != nil {
				t.Fatal(err)
			}
			if ok {
				hits++
			}
		}
		gf, _ := g.Float64()
		p := math.Exp(-gf)
		if se := math.Sqrt(p * (1 - p) / n); math.Abs(float64(hits)/n-p) > 4.89*se {
			t.Errorf("Bernoulli(e^−%v): %d of %d, want %g", g, hits, n, p)
		}
	}
	for _, tc := range []struct {
		eps1, eps2 string
		c          int
	}{{"0.7", "0.7", 0}, {"0.5", "1", 3}, {"1.5", "0.4", 2}} {
		m, err := NewSecureGeometricMixture(tc.eps1, tc.eps2, tc.c, "1")
		if err != nil {
			t.Fatal(err)
		}
		m.Src = src
		e1, _ := m.Rate1.Float64()
		e2, _ := m.Rate2.Float64()
		ref := GeometricMixture{Alpha1: math.Exp(-e1), Alpha2: math.Exp(-e2), Break: tc.c}
		const n = 30000
		counts := map[int64]int{}
		for range n {
			k, err := m.Rand(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			counts[k]++
		}
		// χ² over the values −8…8 and the two tails beyond.
		chi, cells := 0.0, 0
		for k := -9; k <= 9; k++ {
			var obs int
			var p float64
			switch k {
			case -9:
				p = ref.CDF(-9)
				for v, c := range counts {
					if v <= -9 {
						obs += c
					}
				}
			case 9:
				p = 1 - ref.CDF(8)
				for v, c := range counts {
					if v >= 9 {
						obs += c
					}
				}
			default:
				p, obs = ref.PMF(k), counts[int64(k)]
			}
			if e := p * n; e >= 5 {
				chi += (float64(obs) - e) * (float64(obs) - e) / e
				cells++
			}
		}
		// The 1 − 1e−6 quantile of χ² with up to 18 degrees of freedom is
		// below 58 (χ²(18) at 1e−6: 57.2).
		if chi > 58 {
			t.Errorf("ε %s, %s, c %d: χ² = %.1f over %d cells", tc.eps1, tc.eps2, tc.c, chi, cells)
		}
	}
	if _, err := NewSecureGeometricMixture("0", "1", 1, "1"); err == nil {
		t.Error("ε = 0 accepted")
	}
	if _, err := NewSecureGeometricMixture("1e-400", "1", 1, "1"); err == nil {
		t.Error("a 1,300-bit fraction accepted")
	}
}

// seededBytes is a deterministic source of bytes for tests.
type seededBytes struct{ r *rand.Rand }

func (s *seededBytes) Read(b []byte) (int, error) {
	for i := range b {
		b[i] = byte(s.r.Uint32())
	}
	return len(b), nil
}

// TestCentralParameters checks that a release refuses what it cannot
// draw: ε of 0, infinite or below MinReleaseEpsilon·Δ (where α =
// e^{−ε/Δ} heads for 1), a negative break-point, sensitivity 0, and
// takes the smallest ε it allows.
func TestCentralParameters(t *testing.T) {
	for _, p := range [][4]float64{
		{0, 1, 1, 1}, {1, math.Inf(1), 1, 1}, {1e-10, 1, 1, 1}, {1, 1e-300, 1, 1},
		{1e-9, 1, 1, 2}, {1, 1, -1, 1}, {1, 1, 1, 0}, {1, 1, math.NaN(), 1},
	} {
		if _, err := NewLaplaceMixture(p[0], p[1], p[2], p[3]); err == nil {
			t.Errorf("Laplace mixture %v accepted", p)
		}
		if _, err := NewGeometricMixture(p[0], p[1], int(p[2]), p[3]); err == nil && !math.IsNaN(p[2]) {
			t.Errorf("geometric mixture %v accepted", p)
		}
	}
	m, err := NewGeometricMixture(MinReleaseEpsilon, MinReleaseEpsilon, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	// P(0) = (1−α)/(1+α) = tanh(ε/2).
	if p, want := m.PMF(0), math.Tanh(MinReleaseEpsilon/2); math.Abs(p-want) > 1e-6*want {
		t.Errorf("P(0) = %v at ε = %v, want %v", p, MinReleaseEpsilon, want)
	}
}

// TestSecureMixtureStops draws from a mixture the exact sampler can
// hardly accept from (ε₁ = 700, ε₂ = 10⁻⁹, c = 1: acceptance about
// e^{−700}): a cancelled context stops it within 1,024 proposals.
func TestSecureMixtureStops(t *testing.T) {
	m, err := NewSecureGeometricMixture("700", "1e-9", 1, "1")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.Rand(ctx); err != context.Canceled {
		t.Errorf("cancelled: %v", err)
	}
}
