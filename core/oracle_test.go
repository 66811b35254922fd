package core

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/stat/distuv"
)

// TestOracleMoments: each pure frequency oracle's support-counting
// estimate is unbiased and has Wang et al.'s variance
// (q*(1−q*) + f(p*−q*)(1−p*−q*))/(n(p*−q*)²) (USENIX Security 2017, eq.
// 3), by 400 runs of 2,000 users whose data are fixed (n f_x users hold
// x): the mean within z standard errors and (R−1)s²/σ² within the χ²
// quantiles, each of the 2 × 8 × 9 checks at falseFailure/144 (all of
// them together at falseFailure).
func TestOracleMoments(t *testing.T) {
	const k, n, runs = 8, 2000, 400
	f := []float64{0.3, 0.2, 0.15, 0.1, 0.1, 0.1, 0.05, 0}
	var data []int
	for x, p := range f {
		for range int(math.Round(p * n)) {
			data = append(data, x)
		}
	}
	const checks = 2 * k * 9
	alpha := falseFailure / checks
	z := distuv.UnitNormal.Quantile(1 - alpha/2)
	chi := distuv.ChiSquared{K: runs - 1}
	lo, hi := chi.Quantile(alpha/2), chi.Quantile(1-alpha/2)
	a := Alphabet{Kind: KindCategorical, Size: k}
	rng := rand.New(rand.NewPCG(49, 1))
	for _, spec := range []MechanismSpec{{Kind: KindKRR, Epsilon: 1}, {Kind: KindRAPPOR, Epsilon: 2}, {Kind: KindOUE, Epsilon: 1},
		{Kind: KindOUE, Epsilon: 3}, {Kind: KindOLH, Epsilon: 1}, {Kind: KindOLH, Epsilon: 3}, {Kind: KindBLH, Epsilon: 1},
		{Kind: KindSS, Epsilon: 1}, {Kind: KindHR, Epsilon: 1}} {
		spec.ID = string(spec.Kind)
		m, err := NewMechanism(spec, a)
		if err != nil {
			t.Fatal(err)
		}
		p, q := m.(supporter).supportProbs()
		name := fmt.Sprintf("%s ε %g", spec.Kind, spec.Epsilon)
		sum, sq := make([]float64, k), make([]float64, k)
		mech := make([]int, n)
		reps := make([]Report, n)
		for range runs {
			for i, x := range data {
				reps[i] = Draw(m, rng, x)
			}
			est, err := oracleRaw([]Mechanism{m}, GroupReports(1, mech, reps), nil, MethodOracle)
			if err != nil {
				t.Fatal(err)
			}
			for x, v := range est {
				sum[x] += v
				sq[x] += v * v
			}
		}
		for x := range k {
			mean := sum[x] / runs
			s2 := (sq[x] - runs*mean*mean) / (runs - 1)
			v := (q*(1-q) + f[x]*(p-q)*(1-p-q)) / (n * (p - q) * (p - q))
			if math.Abs(mean-f[x]) > z*math.Sqrt(v/runs) {
				t.Errorf("%s: symbol %d: mean %.5f, truth %.5f (standard error %.5f)", name, x, mean, f[x], math.Sqrt(v/runs))
			}
			if c := (runs - 1) * s2 / v; c < lo || c > hi {
				t.Errorf("%s: symbol %d: variance %.3g, Wang et al.'s %.3g", name, x, s2, v)
			}
		}
		if spec.Kind == KindOUE || spec.Kind == KindOLH && spec.Epsilon == 1 {
			e := math.Exp(spec.Epsilon)
			small := 4 * e / (n * (e - 1) * (e - 1))
			v0 := q * (1 - q) / (n * (p - q) * (p - q))
			if spec.Kind == KindOUE && math.Abs(v0-small) > 1e-15 {
				t.Errorf("%s: variance at f = 0 %v, 4e^ε/(n(e^ε−1)²) = %v", name, v0, small)
			}
		}
	}
}

// TestOracleEstimators: oracle-m and oracle-r run through Reconstruct
// on a mixture of oracles and give distributions; oracle refuses a
// mixture, oracle-r a planar mechanism; own-r is the users' average of
// inversion on the planar users and support counting on OLH's.
func TestOracleEstimators(t *testing.T) {
	a := Alphabet{Kind: KindCategorical, Size: 6}
	s := &Study{Alphabet: a, Mechanisms: []MechanismSpec{{ID: "o", Kind: KindOUE, Epsilon: 1}, {ID: "l", Kind: KindOLH, Epsilon: 2}, {ID: "h", Kind: KindHR, Epsilon: 1}}}
	mechs := make([]Mechanism, 3)
	for j, spec := range s.Mechanisms {
		mechs[j], _ = NewMechanism(spec, a)
	}
	rng := rand.New(rand.NewPCG(1, 49))
	var mech []int
	var reps []Report
	for i := range 3000 {
		j := i % 3
		mech, reps = append(mech, j), append(reps, Draw(mechs[j], rng, min(i%7, 5)))
	}
	g := GroupReports(3, mech, reps)
	for _, method := range []Method{MethodOracleM, MethodOracleR} {
		est, err := Reconstruct(context.Background(), method, s, mechs, g, EstimateOptions{})
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		if sum := floats.Sum(est.Theta); math.Abs(sum-1) > 1e-12 {
			t.Errorf("%s: sums to %v", method, sum)
		}
	}
	if _, err := Reconstruct(context.Background(), MethodOracle, s, mechs, g, EstimateOptions{}); err == nil {
		t.Error("oracle took three mechanisms")
	}
	grid := Alphabet{Kind: KindGrid, Cols: 3, Rows: 2, CellKm: 1}
	s2 := &Study{Alphabet: grid, Mechanisms: []MechanismSpec{{ID: "p", Kind: KindPlanar, Epsilon: 1}, {ID: "l", Kind: KindOLH, Epsilon: 1}}}
	if err := s2.Applicable(MethodOracleR); err == nil {
		t.Error("oracle-r accepts a planar mechanism")
	}
	// own-r: the planar users by inversion, the OLH users by support
	// counting, averaged by users: exactly the two estimates' mix.
	pl, _ := NewMechanism(s2.Mechanisms[0], grid)
	lh, _ := NewMechanism(s2.Mechanisms[1], grid)
	mechs2 := []Mechanism{pl, lh}
	mech, reps = nil, nil
	for i := range 3000 {
		j := i % 4 / 3 // a quarter of OLH users
		mech, reps = append(mech, j), append(reps, Draw(mechs2[j], rng, i%6))
	}
	g2 := GroupReports(2, mech, reps)
	est, err := Reconstruct(context.Background(), MethodOwnR, s2, mechs2, g2, EstimateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sub := func(j int) *Groups {
		h := newGroups(2)
		for _, gr := range g2.List {
			if gr.Mech == j {
				h.List = append(h.List, gr)
				h.Users[j] += gr.Count
			}
		}
		return h
	}
	inv, err := Reconstruct(context.Background(), MethodINV, s2, mechs2, sub(0), EstimateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	own, err := Reconstruct(context.Background(), MethodOracle, s2, mechs2, sub(1), EstimateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for x := range est.Theta {
		if want := 0.75*inv.Theta[x] + 0.25*own.Theta[x]; math.Abs(est.Theta[x]-want) > 1e-12 {
			t.Errorf("own-r at %d: %v, the users' mix %v", x, est.Theta[x], want)
		}
	}
}
