package core

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// TestLHLikelihood: a report's likelihood is e^ε/(e^ε+g−1) at the
// symbols its seed hashes to its value, 1/(e^ε+g−1) elsewhere, and the
// g values of a seed sum to 1 at every input.
func TestLHLikelihood(t *testing.T) {
	for _, tc := range []struct {
		k, g int
		eps  float64
	}{{5, 3, 1.2}, {9, 2, 0.5}, {40, OptimalHashes(2), 2}, {7, 56, 4}} {
		m, err := NewLH(tc.k, tc.g, tc.eps)
		if err != nil {
			t.Fatal(err)
		}
		d := math.Exp(tc.eps) + float64(tc.g) - 1
		for _, seed := range []uint32{0, 1, 77, 1 << 31, math.MaxUint32} {
			sums := make([]float64, tc.k)
			for v := range tc.g {
				col, scale := m.Likelihood(nil, HashReport(seed, v))
				for x, c := range col {
					want := 1 / d
					if LocalHash(seed, x, tc.g) == v {
						want = math.Exp(tc.eps) / d
					}
					got := c * math.Exp(scale)
					if math.Abs(got-want) > 1e-14 {
						t.Fatalf("k %d g %d seed %d: P(%d | %d) = %v, want %v", tc.k, tc.g, seed, v, x, got, want)
					}
					sums[x] += got
				}
			}
			for x, s := range sums {
				if math.Abs(s-1) > 1e-13 {
					t.Errorf("k %d g %d seed %d: row %d sums to %v", tc.k, tc.g, seed, x, s)
				}
			}
		}
	}
}

// TestLocalHash: the hash is uniform over its g values for a symbol and
// two symbols collide in a g-th of the seeds, by χ² over 2¹⁸ seeds
// (falseFailure each); a known vector pins the formula of
// docs/FILES.md.
func TestLocalHash(t *testing.T) {
	const seeds = 1 << 18
	for _, g := range []int{2, 4, 56} {
		counts := make([]int, g)
		same := make([]int, 2)
		for s := range uint32(seeds) {
			h := LocalHash(s, 3, g)
			counts[h]++
			if h == LocalHash(s, 4, g) {
				same[0]++
			} else {
				same[1]++
			}
		}
		probs := make([]float64, g)
		for i := range probs {
			probs[i] = 1 / float64(g)
		}
		chiSquare(t, "hash values", counts, probs)
		chiSquare(t, "collisions", same, []float64{1 / float64(g), 1 - 1/float64(g)})
	}
	got := []int{LocalHash(1, 2, 10), LocalHash(0, 0, 1<<16), LocalHash(7, 100, 56)}
	want := []int{splitmixHash(1, 2, 10), splitmixHash(0, 0, 1<<16), splitmixHash(7, 100, 56)}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("LocalHash vector %d: %d, want %d", i, got[i], want[i])
		}
	}
}

// splitmixHash is the hash of docs/FILES.md written from the splitmix64
// generator's definition: the state seed·2³² + x advanced once, then
// mixed; the upper 32 bits times g, over 2³².
func splitmixHash(seed uint32, x, g int) int {
	state := uint64(seed)<<32 + uint64(x) + 0x9e3779b97f4a7c15
	z := state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	return int(float64(z>>32) * float64(g) / (1 << 32))
}

// TestLHSample: reports are kept with probability e^ε/(e^ε+g−1) and
// otherwise spread evenly over the other values, by χ² on the value's
// offset from the datum's hash.
func TestLHSample(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 9))
	for _, tc := range []struct {
		g   int
		eps float64
	}{{2, 1}, {4, 1}, {8, 2}} {
		m, err := NewLH(20, tc.g, tc.eps)
		if err != nil {
			t.Fatal(err)
		}
		counts := make([]int, tc.g)
		for i := range 100000 {
			x := i % 20
			r := Draw(m, rng, x)
			if !r.Hashed {
				t.Fatal("not a hash report")
			}
			counts[(r.Symbol-LocalHash(r.Seed, x, tc.g)+tc.g)%tc.g]++
		}
		probs := make([]float64, tc.g)
		d := math.Exp(tc.eps) + float64(tc.g) - 1
		for i := range probs {
			probs[i] = 1 / d
		}
		probs[0] = math.Exp(tc.eps) / d
		chiSquare(t, "local hashing", counts, probs)
	}
}

// TestLHAudit: the audit's ε is the mechanism's, exactly, for OLH and BLH.
func TestLHAudit(t *testing.T) {
	for _, kind := range []MechanismKind{KindOLH, KindBLH} {
		for _, eps := range []float64{0.5, 1.3, 6} {
			m, err := NewMechanism(MechanismSpec{ID: "h", Kind: kind, Epsilon: eps}, Alphabet{Kind: KindCategorical, Size: 30})
			if err != nil {
				t.Fatal(err)
			}
			au, err := AuditMechanism(context.Background(), m, Alphabet{Kind: KindCategorical, Size: 30})
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(au.LDP-eps) > 1e-14*eps {
				t.Errorf("%s ε %v: audit %v", kind, eps, au.LDP)
			}
		}
	}
	if g := OptimalHashes(1); g != 4 {
		t.Errorf("OLH's g at ε 1 = %d, want round(e + 1) = 4", g)
	}
}

// TestLHReportText: seed:value round-trips and bad text is refused.
func TestLHReportText(t *testing.T) {
	m, _ := NewLH(10, 4, 1)
	r := HashReport(4000000000, 3)
	got, err := ParseReport(m, r.String())
	if err != nil || got != r || r.String() != "4000000000:3" {
		t.Errorf("round trip %q: %v %v", r.String(), got, err)
	}
	for _, bad := range []string{"3", "1:4", "-1:2", "4294967296:1", "1:01", "a:b", "1:2:3"} {
		if _, err := ParseReport(m, bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestHashTerm: the EM term grouped by seed gives the likelihood
// columns' step, Hessian products and diagonal, with and without its
// cache of hashes, on a mixture with k-RR and OUE users, whose reports
// are also read in a set term (setTerm) without the budget, as are the
// preimages of OLH's reports of distinct seeds (hashSets); and the
// face's rows that Newton's method forms its Hessian from.
func TestHashTerm(t *testing.T) {
	const k = 12
	rng := rand.New(rand.NewPCG(8, 1))
	olh, _ := NewLH(k, 5, 1.5)
	blh, _ := NewLH(k, 2, 0.7)
	krr, _ := NewKRR(k, 1)
	oue, _ := NewOUE(k, 2)
	wide, _ := NewLH(k, 300, 6) // hashes in two bytes
	sparse, _ := NewOUE(k, 6)   // set terms read bit by bit
	mechs := []Mechanism{olh, krr, blh, oue, wide, sparse}
	var mech []int
	var reps []Report
	for i := range 3000 {
		j := i % len(mechs)
		mech = append(mech, j)
		x := rng.IntN(k)
		if i%3 == 0 {
			x = 2
		}
		r := Draw(mechs[j], rng, x)
		switch {
		case j == 0 && i%8 == 0:
			r.Seed = uint32(i % 5) // some seeds with several reports
		case j == 2:
			r.Seed = uint32(i % 13) // seeds that repeat: read by seed
		case j == 4:
			r.Seed = uint32(i % 11)
		}
		reps = append(reps, r)
	}
	g := GroupReports(len(mechs), mech, reps)
	cols, err := newColumns(mechs, g, nil)
	if err != nil {
		t.Fatal(err)
	}
	theta := make([]float64, k)
	v := make([]float64, k)
	for x := range theta {
		theta[x] = 0.5 + rng.Float64()
		v[x] = rng.NormFloat64()
	}
	floats.Scale(1/floats.Sum(theta), theta)
	want := make([]float64, k)
	wantLL, _ := cols.step(theta, want)
	cols.at(theta)
	wantH, wantD := make([]float64, k), cols.hessDiagonal()
	cols.hessVec(v, wantH)
	// cached: the hashes kept and OUE's users in columns; else not, and
	// OUE's users in set terms, by nibble tables when tabled.
	for _, tc := range []struct{ cached, tabled bool }{{true, false}, {false, false}, {false, true}} {
		cached := tc.cached
		budget := ColumnBudget
		if !cached {
			budget = 0 // OUE's users in set terms too
		}
		model, err := newModel(mechs, g, nil, budget)
		if err != nil {
			t.Fatal(err)
		}
		mix := model.(*mixture)
		dense := map[bool]bool{}
		kinds := map[string]bool{}
		for _, tm := range mix.terms {
			kinds[fmt.Sprintf("%T", tm)] = true
			if st, ok := tm.(*setTerm); ok {
				dense[st.dense] = true
				if tc.tabled && st.dense {
					st.tabulate() // too few reports to be tabulated by setTerms
				}
			}
			if h, ok := tm.(*hashTerm[uint8]); ok && !cached {
				h.cache = nil
			}
			if h, ok := tm.(*hashTerm[uint16]); ok && !cached {
				h.cache = nil
			}
		}
		if !cached && (!dense[true] || !dense[false]) {
			t.Errorf("set terms dense %v: both reads not tested", dense)
		}
		for _, want := range []string{"*core.hashTerm[uint8]", "*core.hashTerm[uint16]", "*core.setTerm"} {
			if !kinds[want] {
				t.Errorf("%+v: no %s among the terms %v", tc, want, kinds)
			}
		}
		got := make([]float64, k)
		ll, _ := mix.step(theta, got)
		mix.at(theta)
		gotH := make([]float64, k)
		mix.hessVec(v, gotH)
		gotD := mix.diagonal()
		// The face's Gram matrix XXᵀ, whatever the order of the rows.
		free := []int{0, 2, 3, 7, 11}
		if mix.reports() != cols.reports() {
			t.Fatalf("%+v: %d reports on the face, the columns %d", tc, mix.reports(), cols.reports())
		}
		xm, xc := mat.NewDense(len(free), mix.reports(), nil), mat.NewDense(len(free), cols.reports(), nil)
		mix.face(free, xm)
		cols.face(free, xc)
		var gm, gc mat.Dense
		gm.Mul(xm, xm.T())
		gc.Mul(xc, xc.T())
		if !mat.EqualApprox(&gm, &gc, 1e-9) {
			t.Errorf("%+v: the face's Gram matrix\n%v\nthe columns'\n%v", tc, mat.Formatted(&gm), mat.Formatted(&gc))
		}
		if math.Abs(ll-wantLL) > 1e-12 || !near(got, want, 1e-12) || !near(gotH, wantH, 1e-9) || !near(gotD, wantD, 1e-9) {
			t.Errorf("%+v: step %v %v, want %v %v; Hv %v, want %v; diag %v, want %v", tc, ll, got, wantLL, want, gotH, wantH, gotD, wantD)
		}
	}
}

// TestGIBUMixedOracles: GIBU on a population mixing k-RR, OUE, OLH, BLH
// and the Hadamard response is certified by its duality gap and is the
// maximum of the likelihood written out from each report's column: no
// point of a 1/400 grid of the simplex on 3 symbols beats it, and the
// grid's best lies within two of its steps.
func TestGIBUMixedOracles(t *testing.T) {
	const k = 3
	rng := rand.New(rand.NewPCG(5, 6))
	a := Alphabet{Kind: KindCategorical, Size: k}
	specs := []MechanismSpec{{ID: "k", Kind: KindKRR, Epsilon: 1}, {ID: "o", Kind: KindOUE, Epsilon: 2},
		{ID: "l", Kind: KindOLH, Epsilon: 1.5}, {ID: "b", Kind: KindBLH, Epsilon: 3}, {ID: "h", Kind: KindHR, Epsilon: 1}}
	mechs := make([]Mechanism, len(specs))
	for j, s := range specs {
		m, err := NewMechanism(s, a)
		if err != nil {
			t.Fatal(err)
		}
		mechs[j] = m
	}
	truth := []float64{0.6, 0.3, 0.1}
	var mech []int
	var reps []Report
	for i := range 3000 {
		j := i % len(mechs)
		x := 0
		for u := rng.Float64(); x < k-1 && u > truth[x]; x++ {
			u -= truth[x]
		}
		mech, reps = append(mech, j), append(reps, Draw(mechs[j], rng, x))
	}
	g := GroupReports(len(mechs), mech, reps)
	est, err := GIBU(context.Background(), mechs, g, &Study{Alphabet: a, Mechanisms: specs}, EMOptions{GapTol: 1e-12})
	if err != nil {
		t.Fatal(err)
	}
	if !est.Converged || est.Gap > 1e-12 {
		t.Fatalf("not certified: gap %v after %d steps", est.Gap, est.Iterations)
	}
	cols := make([][]float64, len(g.List))
	for i, gr := range g.List {
		col, scale := mechs[gr.Mech].Likelihood(nil, gr.Report)
		cols[i] = floats.ScaleTo(make([]float64, k), math.Exp(scale), col)
	}
	loglik := func(theta []float64) float64 {
		ll := 0.0
		for i, gr := range g.List {
			ll += float64(gr.Count) * math.Log(floats.Dot(theta, cols[i]))
		}
		return ll / float64(g.N())
	}
	mle := loglik(est.Theta)
	best, arg := math.Inf(-1), []float64(nil)
	const steps = 400
	for i := 0; i <= steps; i++ {
		for j := 0; i+j <= steps; j++ {
			theta := []float64{float64(i) / steps, float64(j) / steps, float64(steps-i-j) / steps}
			if ll := loglik(theta); ll > best {
				best, arg = ll, theta
			}
		}
	}
	if best > mle+1e-12 {
		t.Errorf("the grid's %v beats GIBU's %v: %v > %v", arg, est.Theta, best, mle)
	}
	if !near(arg, est.Theta, 2.0/steps) {
		t.Errorf("GIBU %v, the grid's best %v", est.Theta, arg)
	}
	t.Logf("GIBU %v (gap %.2g, %d steps), grid %v", est.Theta, est.Gap, est.Iterations, arg)
}
