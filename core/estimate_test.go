package core

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/stat/distuv"
)

var bg = context.Background()

func TestInversionKnownVectors(t *testing.T) {
	mechs, g := krrGroups(t, 5, []float64{1}, []int{400, 300, 200, 80, 20})
	tests := []struct {
		post Post
		want []float64
	}{
		{PostNone, []float64{0.9819767069, 0.5909883534, 0.2, -0.2691860241, -0.5037790362}},
		{PostProj, []float64{0.6954941767, 0.3045058233, 0, 0, 0}},
		{PostNorm, []float64{0.5538612852, 0.3333333333, 0.1128053815, 0, 0}},
	}
	for _, tc := range tests {
		est, err := Reconstruct(bg, MethodINV, nil, mechs, g, EstimateOptions{Post: tc.post})
		if err != nil {
			t.Fatal(err)
		}
		if !near(est.Theta, tc.want, 1e-9) {
			t.Errorf("INV+%s = %v, want %v", tc.post, est.Theta, tc.want)
		}
	}
	// IBU by FW eq. (10) on the compound matrix — a different code path
	// from GIBU's columns — gives the same MLE.
	est, err := Reconstruct(bg, MethodIBUM, nil, mechs, g, EstimateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{0.6384366801, 0.3333333333, 0.0282299866, 0, 0}; !near(est.Theta, want, 1e-6) {
		t.Errorf("[IBU]_M with one mechanism = %v, want the MLE %v", est.Theta, want)
	}
}

func TestGIBUMixture(t *testing.T) {
	mechs, g := krrGroups(t, 5, []float64{0.5, 2}, []int{100, 90, 80, 70, 60}, []int{300, 100, 50, 30, 20})
	gibu, err := Reconstruct(bg, MethodGIBU, nil, mechs, g, EstimateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ibuR, err := Reconstruct(bg, MethodIBUR, nil, mechs, g, EstimateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if near(gibu.Theta, ibuR.Theta, 1e-3) {
		t.Errorf("[IBU]_R = %v equals GIBU %v", ibuR.Theta, gibu.Theta)
	}
	// GIBU's likelihood is the largest of every estimator's.
	for _, m := range []Method{MethodIBUR, MethodIBUM, MethodINVM, MethodINVR, MethodCEM} {
		for _, post := range []Post{PostProj, PostNorm} {
			e, err := Reconstruct(bg, m, nil, mechs, g, EstimateOptions{Post: post, CEM: CEMOptions{Seed: 1}})
			if err != nil {
				t.Fatalf("%s: %v", m, err)
			}
			if e.LogLik > gibu.LogLik+1e-12 {
				t.Errorf("%s+%s log-likelihood %v above GIBU's %v", m, post, e.LogLik, gibu.LogLik)
			}
			if math.Abs(floats.Sum(e.Theta)-1) > 1e-12 || floats.Min(e.Theta) < 0 {
				t.Errorf("%s+%s = %v is not a distribution", m, post, e.Theta)
			}
		}
	}
	if _, err := Reconstruct(bg, MethodINV, nil, mechs, g, EstimateOptions{}); err == nil || !strings.Contains(err.Error(), "use inv-m, inv-r or gibu") {
		t.Errorf("INV on two mechanisms: %v", err)
	}
}

// TestGIBUProperties checks on a seeded mixture of k-RR, geometric and
// RAPPOR users that the log-likelihood never decreases (plain and
// accelerated), and the KKT conditions at the returned θ: the ratios
// (1/n) Σ c·g_x/(θ·g) are 1 on the support and at most 1 off it.
func TestGIBUProperties(t *testing.T) {
	const k = 12
	rng := rand.New(rand.NewPCG(3, 4))
	krr, _ := NewKRR(k, 1.5)
	geo, _ := NewGeometric(k, 0.4)
	rap, _ := NewRAPPOR(k, 2)
	mechs := []Mechanism{krr, geo, rap}
	truth := []float64{.3, .2, .15, .1, .08, .07, .05, .03, .02, 0, 0, 0}
	g, err := SimulateGroups(bg, rng, mechs, []int{400, 300, 300}, truth)
	if err != nil {
		t.Fatal(err)
	}
	for _, plain := range []bool{false, true} {
		var lls []float64
		est, err := GIBU(bg, mechs, g, nil, EMOptions{Plain: plain, MaxIter: 200000, Progress: func(_ int, ll, _ float64) { lls = append(lls, ll) }})
		if err != nil {
			t.Fatal(err)
		}
		for i := 1; i < len(lls); i++ {
			// Never below the rounding of a normalised log-likelihood,
			// within which polish judges steps by their gap.
			if lls[i] < lls[i-1]-likelihoodUlps*math.Abs(lls[i-1]) {
				t.Fatalf("plain %v: log-likelihood fell from %.17g to %.17g at cycle %d", plain, lls[i-1], lls[i], i)
			}
		}
		if plain {
			continue // plain EM stops far from the KKT point
		}
		c, _ := newColumns(mechs, g, nil)
		next := make([]float64, k)
		c.step(est.Theta, next)
		for x := range k {
			ratio := next[x] / est.Theta[x]
			if est.Theta[x] > 1e-9 && math.Abs(ratio-1) > 1e-6 || ratio > 1+1e-6 {
				t.Errorf("KKT ratio at %d (θ = %.3g) = %.9f", x, est.Theta[x], ratio)
			}
		}
		t.Logf("GIBU: %d steps, L = %.12f, θ = %.4f", est.Iterations, est.LogLik, est.Theta)
	}
}

// TestInvMOneMechanism: [INV]_M on users split over two identical
// mechanisms equals INV on them all.
func TestInvMOneMechanism(t *testing.T) {
	mechs, g := krrGroups(t, 5, []float64{1.3, 1.3}, []int{50, 40, 30, 20, 10}, []int{45, 30, 30, 25, 5})
	m, err := INVM(mechs, g, nil, PostNone)
	if err != nil {
		t.Fatal(err)
	}
	one, pooled := krrGroups(t, 5, []float64{1.3}, []int{95, 70, 60, 45, 15})
	inv, err := INVM(one, pooled, nil, PostNone)
	if err != nil {
		t.Fatal(err)
	}
	if !near(m, inv, 1e-12) {
		t.Errorf("[INV]_M = %v, INV = %v", m, inv)
	}
}

// zTwoSided is the normal quantile for a two-sided test at false-failure
// probability falseFailure (1e−6): 4.89.
var zTwoSided = distuv.UnitNormal.Quantile(1 - falseFailure/2)

// mcMSE returns the Monte-Carlo mean of ‖θ̂ − θ‖² over runs of n users
// drawn from truth, split over mechs by counts, and its standard error.
func mcMSE(t *testing.T, mechs []Mechanism, counts []int, truth []float64, runs int, est func(*Groups) []float64) (mean, se float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(11, 12))
	errs := make([]float64, runs)
	for r := range errs {
		g, err := SimulateGroups(bg, rng, mechs, counts, truth)
		if err != nil {
			t.Fatal(err)
		}
		theta := est(g)
		d := 0.0
		for x := range theta {
			d += (theta[x] - truth[x]) * (theta[x] - truth[x])
		}
		errs[r] = d
	}
	mean = floats.Sum(errs) / float64(runs)
	v := 0.0
	for _, e := range errs {
		v += (e - mean) * (e - mean)
	}
	return mean, math.Sqrt(v / float64(runs-1) / float64(runs))
}

// TestPropositions2And3 checks FW Propositions 2 and 3 by Monte Carlo:
// the MSE of the raw [INV]_M under k-RR and of the raw [RAP]_M under
// RAPPOR equals the closed form when the users' ε are equal (here split
// over two mechanism entries) and stays below it otherwise. The mean of
// 2000 runs is compared within 4.89 standard errors (false-failure
// probability 1e−6 by the central limit theorem).
func TestPropositions2And3(t *testing.T) {
	const k, n, runs = 5, 500, 2000
	truth := []float64{.4, .25, .2, .1, .05}
	sq := floats.Dot(truth, truth)
	prop2 := func(epsn float64) float64 {
		e := math.Expm1(epsn)
		return (1-sq)/n + (k-1)/float64(n)*(k+2*e)/(e*e)
	}
	prop3 := func(epsn float64) float64 {
		h := math.Exp(epsn / 2)
		return (1-sq)/n + k*h/(float64(n)*(h-1)*(h-1))
	}
	for _, eps := range [][2]float64{{1.5, 1.5}, {0.8, 3}} {
		k1, _ := NewKRR(k, eps[0])
		k2, _ := NewKRR(k, eps[1])
		mean, se := mcMSE(t, []Mechanism{k1, k2}, []int{n / 2, n / 2}, truth, runs, func(g *Groups) []float64 {
			th, err := INVM([]Mechanism{k1, k2}, g, nil, PostNone)
			if err != nil {
				t.Fatal(err)
			}
			return th
		})
		// ε[n] by FW eq. (8).
		inv := (1/(k-1+math.Exp(eps[0])) + 1/(k-1+math.Exp(eps[1]))) / 2
		bound := prop2(math.Log(1/inv - k + 1))
		checkMSE(t, "[INV]_M k-RR", eps, mean, se, bound)

		r1, _ := NewRAPPOR(k, eps[0])
		r2, _ := NewRAPPOR(k, eps[1])
		mean, se = mcMSE(t, []Mechanism{r1, r2}, []int{n / 2, n / 2}, truth, runs, func(g *Groups) []float64 {
			th, err := RAPM([]Mechanism{r1, r2}, g, nil, PostNone)
			if err != nil {
				t.Fatal(err)
			}
			return th
		})
		// ε[n] by FW eq. (13).
		flip := (1/(1+math.Exp(eps[0]/2)) + 1/(1+math.Exp(eps[1]/2))) / 2
		bound = prop3(2 * math.Log(1/flip-1))
		checkMSE(t, "[RAP]_M RAPPOR", eps, mean, se, bound)
	}
}

func checkMSE(t *testing.T, name string, eps [2]float64, mean, se, bound float64) {
	t.Helper()
	t.Logf("%s ε = %v: Monte-Carlo MSE %.6g ± %.2g, proposition %.6g", name, eps, mean, se, bound)
	if eps[0] == eps[1] && math.Abs(mean-bound) > zTwoSided*se {
		t.Errorf("%s ε = %v: MSE %.6g, want %.6g (equality case)", name, eps, mean, bound)
	}
	if mean > bound+zTwoSided*se {
		t.Errorf("%s ε = %v: MSE %.6g above the bound %.6g", name, eps, mean, bound)
	}
}

// TestCheckEstimate checks the last guard of Reconstruct: NaN and
// infinite probabilities are always errors, negative ones unless the raw
// estimate was asked for.
func TestCheckEstimate(t *testing.T) {
	for _, tc := range []struct {
		theta []float64
		post  Post
		ok    bool
	}{
		{[]float64{0.5, 0.5}, PostProj, true},
		{[]float64{1.2, -0.2}, PostNone, true},
		{[]float64{1.2, -0.2}, PostNorm, false},
		{[]float64{math.NaN(), 1}, PostNone, false},
		{[]float64{math.Inf(1), 0}, PostProj, false},
	} {
		if err := checkEstimate(tc.theta, MethodINVR, tc.post); (err == nil) != tc.ok {
			t.Errorf("%v with %q: %v", tc.theta, tc.post, err)
		}
	}
}

// TestMethodTitle checks the names people read: the registry's titles,
// and an unknown method as itself.
func TestMethodTitle(t *testing.T) {
	for m, want := range map[Method]string{MethodGIBU: "GIBU", MethodIBUM: "[IBU]_M", MethodCEM: "Corrected EM", "nope": "nope"} {
		if got := m.Title(); got != want {
			t.Errorf("%s: title %q, want %q", m, got, want)
		}
	}
}
