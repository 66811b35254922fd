package core

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// randomPrior returns k masses drawn from rng, a share of them zero.
func randomPrior(rng *rand.Rand, k int, zeros float64) []float64 {
	p := make([]float64, k)
	for x := range p {
		if rng.Float64() >= zeros {
			p[x] = rng.ExpFloat64()
		}
	}
	p[rng.IntN(k)] += 0.1
	return p
}

// plainChannel hides every capability of its channel but Channel and
// Mechanism, so that Expose reads it entry by entry.
type plainChannel struct {
	c interface {
		Channel
		Mechanism
	}
}

func (p plainChannel) Inputs() int           { return p.c.Inputs() }
func (p plainChannel) Outputs() int          { return p.c.Outputs() }
func (p plainChannel) Prob(x, z int) float64 { return p.c.Prob(x, z) }
func (p plainChannel) Likelihood(dst []float64, r Report) ([]float64, float64) {
	return p.c.Likelihood(dst, r)
}

// bruteExposure computes V, E and the within shares by enumerating every
// output and every guess, the guess the lowest of least expected
// distance.
func bruteExposure(c Channel, a Alphabet, prior []float64, radii []float64) (v, e float64, within []float64) {
	pi, _ := normalPrior(prior, c.Inputs())
	within = make([]float64, len(radii))
	k := c.Inputs()
	for z := range c.Outputs() {
		top := 0.0
		for x := range k {
			top = max(top, pi[x]*c.Prob(x, z))
		}
		v += top
		best, bg := math.Inf(1), -1
		for g := range k {
			s := 0.0
			for x := range k {
				d, _, _ := a.Distance(x, g)
				s += pi[x] * c.Prob(x, z) * d
			}
			if s < best*(1-1e-12) {
				best, bg = s, g
			}
		}
		e += best
		for i, r := range radii {
			for x := range k {
				if d, _, _ := a.Distance(x, bg); d <= r*(1+1e-12) {
					within[i] += pi[x] * c.Prob(x, z)
				}
			}
		}
	}
	return v, e, within
}

func closeTo(a, b, rel float64) bool {
	return math.Abs(a-b) <= rel*math.Max(math.Abs(a), math.Abs(b))+1e-15
}

// TestExposeBruteForce checks Expose against enumeration on small grids
// and lines, for every kind with symbol outputs, priors with and
// without zeros, and against the entry-by-entry path.
func TestExposeBruteForce(t *testing.T) {
	grid := Alphabet{Kind: KindGrid, Cols: 7, Rows: 5, CellKm: 0.5}
	tall := Alphabet{Kind: KindGrid, Cols: 3, Rows: 11, CellKm: 0.5, CellWidthKm: 0.4, CellHeightKm: 0.55}
	line := Alphabet{Kind: KindLinear, Size: 23}
	cases := []struct {
		name string
		a    Alphabet
		spec MechanismSpec
	}{
		{"krr grid", grid, MechanismSpec{ID: "k", Kind: KindKRR, Epsilon: 1.2}},
		{"planar grid weak", grid, MechanismSpec{ID: "p", Kind: KindPlanar, Epsilon: 0.4}},
		{"planar grid strong", grid, MechanismSpec{ID: "p", Kind: KindPlanar, Epsilon: 6}},
		{"planar tall", tall, MechanismSpec{ID: "p", Kind: KindPlanar, Epsilon: 1.5}},
		{"geometric line", line, MechanismSpec{ID: "g", Kind: KindGeo, Epsilon: 0.3}},
		{"urr line", line, MechanismSpec{ID: "u", Kind: KindURR, Epsilon: 2, Sensitive: []int{1, 4, 5, 9, 20}}},
		{"identity grid", grid, MechanismSpec{ID: "i", Kind: KindIdentity}},
		{"shokri line", Alphabet{Kind: KindLinear, Size: 9}, MechanismSpec{ID: "s", Kind: KindShokri, QualityLoss: 1}},
	}
	radii := []float64{0.5, 1, 2}
	rng := rand.New(rand.NewPCG(48, 1))
	for _, tc := range cases {
		m, err := NewMechanism(tc.spec, tc.a)
		if err != nil {
			t.Fatal(err)
		}
		c := m.(Channel)
		for trial, zeros := range []float64{0, 0.4} {
			prior := randomPrior(rng, tc.a.Len(), zeros)
			v, e, within := bruteExposure(c, tc.a, prior, radii)
			for _, via := range []Mechanism{m, plainChannel{m.(interface {
				Channel
				Mechanism
			})}} {
				got, err := Expose(context.Background(), via, tc.a, prior, radii, nil)
				if err != nil {
					t.Fatal(err)
				}
				if !closeTo(got.Success, v, 1e-12) || !closeTo(got.ExpectedError, e, 1e-10) {
					t.Errorf("%s trial %d (%T): V = %.15g, E = %.15g; brute force %.15g, %.15g", tc.name, trial, via, got.Success, got.ExpectedError, v, e)
				}
				for i := range radii {
					if !closeTo(got.Within[i], within[i], 1e-10) {
						t.Errorf("%s trial %d: within %g = %.15g, brute force %.15g", tc.name, trial, radii[i], got.Within[i], within[i])
					}
				}
			}
		}
	}
}

// TestExposeKRRClosedForm checks k-RR's success against the issue's
// closed form Σ_y max(π_y p, q·max_{x≠y} π_x), p = e^ε/(e^ε+K−1),
// q = 1/(e^ε+K−1), on an alphabet with no distance.
func TestExposeKRRClosedForm(t *testing.T) {
	rng := rand.New(rand.NewPCG(48, 2))
	for _, k := range []int{2, 5, 300} {
		for _, eps := range []float64{0.1, 1, 5} {
			a := Alphabet{Kind: KindCategorical, Size: k}
			m, err := NewMechanism(MechanismSpec{ID: "k", Kind: KindKRR, Epsilon: eps}, a)
			if err != nil {
				t.Fatal(err)
			}
			prior := randomPrior(rng, k, 0.2)
			pi, _ := normalPrior(prior, k)
			p := math.Exp(eps) / (math.Exp(eps) + float64(k-1))
			q := 1 / (math.Exp(eps) + float64(k-1))
			want := 0.0
			for y := range k {
				other := 0.0
				for x := range k {
					if x != y {
						other = math.Max(other, pi[x])
					}
				}
				want += math.Max(pi[y]*p, q*other)
			}
			got, err := Expose(context.Background(), m, a, prior, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !closeTo(got.Success, want, 1e-12) || got.Distance || got.NoDistance == "" {
				t.Errorf("K %d ε %g: %+v, want success %.15g and no distance", k, eps, got, want)
			}
			if mx := maxOf(pi); got.Prior != mx {
				t.Errorf("K %d: prior success %g, want %g", k, got.Prior, mx)
			}
		}
	}
}

func maxOf(v []float64) float64 {
	m := math.Inf(-1)
	for _, x := range v {
		m = math.Max(m, x)
	}
	return m
}

// TestExposeBits checks RAPPOR's and uRAP's success against the sum
// over all 2^K reports.
func TestExposeBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(48, 3))
	k := 9
	a := Alphabet{Kind: KindCategorical, Size: k}
	specs := []MechanismSpec{
		{ID: "r", Kind: KindRAPPOR, Epsilon: 0.5},
		{ID: "r", Kind: KindRAPPOR, Epsilon: 3},
		{ID: "u", Kind: KindURAP, Epsilon: 1, Sensitive: []int{0, 2, 3}},
		{ID: "u", Kind: KindURAP, Epsilon: 4, Sensitive: []int{5}},
		{ID: "o", Kind: KindOUE, Epsilon: 1},
		{ID: "o", Kind: KindOUE, Epsilon: 5},
	}
	for _, spec := range specs {
		m, err := NewMechanism(spec, a)
		if err != nil {
			t.Fatal(err)
		}
		b := m.(BitChannel)
		for _, zeros := range []float64{0, 0.3} {
			prior := randomPrior(rng, k, zeros)
			pi, _ := normalPrior(prior, k)
			want := 0.0
			for v := range 1 << k {
				top := 0.0
				for x := range k {
					p := pi[x]
					for j := range k {
						if q := b.BitProb(x, j); v>>j&1 == 1 {
							p *= q
						} else {
							p *= 1 - q
						}
					}
					top = math.Max(top, p)
				}
				want += top
			}
			got, err := Expose(context.Background(), m, a, prior, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !closeTo(got.Success, want, 1e-12) {
				t.Errorf("%s ε %g zeros %g: success %.15g, enumeration %.15g", spec.Kind, spec.Epsilon, zeros, got.Success, want)
			}
		}
	}
}

// TestExposeShokri checks that the optimal adversary's expected error
// under Shokri's mechanism, with the prior it was built for, is the
// mechanism's objective (Shokri et al., CCS 2012, eq. 8): its linear
// program maximises exactly that error.
func TestExposeShokri(t *testing.T) {
	rng := rand.New(rand.NewPCG(48, 4))
	a := Alphabet{Kind: KindGrid, Cols: 4, Rows: 3, CellKm: 1}
	k := a.Len()
	d := distanceMatrix(a)
	for _, q := range []float64{0.3, 0.8} {
		prior := randomPrior(rng, k, 0)
		pi, _ := normalPrior(prior, k)
		m, err := SolveShokri(context.Background(), d, pi, q, ShokriOptions{Tol: 1e-9})
		if err != nil {
			t.Fatal(err)
		}
		got, err := Expose(context.Background(), m, a, pi, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !closeTo(got.ExpectedError, m.Objective, 1e-9) {
			t.Errorf("Q %g: expected error %.12g, the program's objective %.12g", q, got.ExpectedError, m.Objective)
		}
		if got.ExpectedError > got.PriorError*(1+1e-12) {
			t.Errorf("Q %g: error %g with the report above %g without", q, got.ExpectedError, got.PriorError)
		}
	}
}

// TestExposeLargeGrid checks the certified search on a 20×15 grid
// against enumeration of every guess, where the descent starts far from
// most optima.
func TestExposeLargeGrid(t *testing.T) {
	if testing.Short() {
		t.Skip("enumerates 300³ terms")
	}
	rng := rand.New(rand.NewPCG(48, 5))
	a := Alphabet{Kind: KindGrid, Cols: 20, Rows: 15, CellKm: 0.5}
	for _, eps := range []float64{0.2, 1, 4} {
		m, err := NewMechanism(MechanismSpec{ID: "p", Kind: KindPlanar, Epsilon: eps}, a)
		if err != nil {
			t.Fatal(err)
		}
		prior := randomPrior(rng, a.Len(), 0.7)
		v, e, within := bruteExposure(m.(Channel), a, prior, []float64{1})
		got, err := Expose(context.Background(), m, a, prior, []float64{1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !closeTo(got.Success, v, 1e-12) || !closeTo(got.ExpectedError, e, 1e-10) || !closeTo(got.Within[0], within[0], 1e-10) {
			t.Errorf("ε %g: got V %g E %g within %g; brute force %g %g %g", eps, got.Success, got.ExpectedError, got.Within[0], v, e, within[0])
		}
	}
}

// TestExposeRefusals checks the prior's checks and PUM's refusal.
func TestExposeRefusals(t *testing.T) {
	a := Alphabet{Kind: KindCategorical, Size: 4}
	m, _ := NewMechanism(MechanismSpec{ID: "k", Kind: KindKRR, Epsilon: 1}, a)
	for _, prior := range [][]float64{{1, 2, 3}, {0, 0, 0, 0}, {1, -1, 1, 1}, {1, math.NaN(), 1, 1}, {1, math.Inf(1), 1, 1}} {
		if _, err := Expose(context.Background(), m, a, prior, nil, nil); err == nil {
			t.Errorf("prior %v accepted", prior)
		}
	}
	pum, err := NewMechanism(MechanismSpec{ID: "p", Kind: KindPUM, Epsilon: 1, Tags: []string{"home"}}, a)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Expose(context.Background(), pum, a, []float64{1, 1, 1, 1}, nil, nil); err != ErrPersonalExposure {
		t.Errorf("pum: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	g := Alphabet{Kind: KindGrid, Cols: 40, Rows: 40, CellKm: 1}
	pl, _ := NewMechanism(MechanismSpec{ID: "p", Kind: KindPlanar, Epsilon: 1}, g)
	if _, err := Expose(ctx, pl, g, fill(nil, g.Len(), 1), nil, nil); err != context.Canceled {
		t.Errorf("cancelled: %v", err)
	}
}

// TestHomeAttack checks the guesses against the update written out
// over every cell with Likelihood, for each kind, and that one report
// names the Bayes-optimal guess argmax π_x P(r | x).
func TestHomeAttack(t *testing.T) {
	rng := rand.New(rand.NewPCG(48, 6))
	a := Alphabet{Kind: KindGrid, Cols: 6, Rows: 5, CellKm: 0.5}
	specs := []MechanismSpec{
		{ID: "k", Kind: KindKRR, Epsilon: 1},
		{ID: "p", Kind: KindPlanar, Epsilon: 2},
		{ID: "r", Kind: KindRAPPOR, Epsilon: 2},
		{ID: "u", Kind: KindURR, Epsilon: 1, Sensitive: []int{0, 1, 2, 7}},
	}
	var mechs []Mechanism
	for _, s := range specs {
		m, err := NewMechanism(s, a)
		if err != nil {
			t.Fatal(err)
		}
		mechs = append(mechs, m)
	}
	prior := randomPrior(rng, a.Len(), 0.3)
	pi, _ := normalPrior(prior, a.Len())
	h, err := NewHomeAttack(mechs, prior)
	if err != nil {
		t.Fatal(err)
	}
	argmax := func(v []float64) int {
		best := 0
		for x := range v {
			if v[x] > v[best]*(1+1e-9) {
				best = x
			}
		}
		return best
	}
	for trial := range 200 {
		j := trial % len(mechs)
		home := rng.IntN(a.Len())
		reps := make([]Report, 1+rng.IntN(40))
		if trial%5 == 0 {
			reps = reps[:1]
		}
		for i := range reps {
			x := home
			if rng.IntN(3) == 0 {
				x = rng.IntN(a.Len())
			}
			reps[i] = Draw(mechs[j], rng, x)
		}
		theta := slices.Clone(pi)
		for range HomeStepsFor(len(reps)) {
			next := make([]float64, a.Len())
			for _, r := range reps {
				like, _ := mechs[j].Likelihood(nil, r)
				z := 0.0
				for x := range theta {
					z += theta[x] * like[x]
				}
				for x := range theta {
					if z > 0 {
						next[x] += theta[x] * like[x] / z
					}
				}
			}
			total := 0.0
			for _, v := range next {
				total += v
			}
			if total == 0 {
				break // no report possible from the prior's support
			}
			for x := range theta {
				theta[x] = next[x] / total
			}
		}
		if got, want := h.Guess(j, reps), argmax(theta); got != want {
			t.Errorf("trial %d (%s, %d reports): guess %d, the update's %d", trial, specs[j].Kind, len(reps), got, want)
		}
		if len(reps) == 1 {
			like, _ := mechs[j].Likelihood(nil, reps[0])
			post := make([]float64, a.Len())
			for x := range post {
				post[x] = pi[x] * like[x]
			}
			if maxOf(post) == 0 {
				copy(post, pi) // an impossible report: the prior's guess
			}
			one, _ := NewHomeAttack(mechs, prior)
			one.Steps = 1
			if got, want := one.Guess(j, reps), argmax(post); got != want {
				t.Errorf("trial %d (%s): one report names %d, the Bayes guess %d", trial, specs[j].Kind, got, want)
			}
		}
	}
}

// TestHomeAttackCounts checks the update on reports without noise:
// identity reports name the place reported most, the lower on ties.
func TestHomeAttackCounts(t *testing.T) {
	a := Alphabet{Kind: KindCategorical, Size: 5}
	id, _ := NewMechanism(MechanismSpec{ID: "i", Kind: KindIdentity}, a)
	h, err := NewHomeAttack([]Mechanism{id}, []float64{1, 1, 3, 1, 2})
	if err != nil {
		t.Fatal(err)
	}
	reps := []Report{SymbolReport(4), SymbolReport(2), SymbolReport(4)}
	if g := h.Guess(0, reps); g != 4 {
		t.Errorf("guess %d, want 4 (two of three reports)", g)
	}
	if g := h.Guess(0, []Report{SymbolReport(4), SymbolReport(2)}); g != 2 {
		t.Errorf("guess %d, want 2 (one report each, the lower)", g)
	}
}

// TestMedianSearch checks the certified search against every symbol on
// posteriors of a few points, where descent alone stops at a local
// minimum of the lattice (about one case in a thousand: on a 12×12 grid
// the two points of weights 0.182 and 0.176 at symbols 63 and 94 stop a
// descent from (6, 6) at 1.298 against 1.278), on square and oblong
// cells and on a line.
func TestMedianSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(48, 7))
	alphabets := []Alphabet{
		{Kind: KindGrid, Cols: 12, Rows: 12, CellKm: 1},
		{Kind: KindGrid, Cols: 12, Rows: 12, CellKm: 1, CellWidthKm: 1, CellHeightKm: 7},
		{Kind: KindGrid, Cols: 15, Rows: 6, CellKm: 1, CellWidthKm: 3, CellHeightKm: 1},
		{Kind: KindLinear, Size: 40},
	}
	for _, a := range alphabets {
		l, _ := newLattice(a)
		s := newMedianSearch(l)
		for trial := range 3000 {
			n := 2 + rng.IntN(5)
			perm := rng.Perm(a.Len())[:n]
			xs := make([]int32, n)
			for i, x := range perm {
				xs[i] = int32(x)
			}
			p := l.newPosterior(xs)
			for i, x := range xs {
				p.w[i] = rng.ExpFloat64()
				p.at[x] = p.w[i]
				p.total += p.w[i]
			}
			s.reset(p)
			g, v := s.best(p.mean(l))
			want := math.Inf(1)
			for h := range a.Len() {
				want = math.Min(want, s.at(h/l.cols, h%l.cols).c)
			}
			if v > want*(1+1e-12) || v != s.at(g/l.cols, g%l.cols).c {
				t.Fatalf("%+v trial %d: search %d at %.15g, best %.15g", a, trial, g, v, want)
			}
		}
	}
}
