package core

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
)

// naiveBias is CEM eq. (28)–(32) computed literally, user by user, with
// the K×K×K tensor Σ ∇²s_n and a 3×3 inverse by cofactors: an
// independent check of denseBias for K = 3.
func naiveBias(gs [][]float64, p []float64, lambda, f float64) []float64 {
	const k = 3
	n := float64(len(gs))
	var S [k][k]float64
	for _, g := range gs {
		m := floats.Dot(p, g)
		for i := range k {
			for j := range k {
				S[i][j] += g[i] * g[j] / (m * m) / n
			}
		}
	}
	var R [k][k]float64
	for i := range k {
		for j := range k {
			R[i][j] = S[i][j]
		}
		R[i][i] += lambda
	}
	det := R[0][0]*(R[1][1]*R[2][2]-R[1][2]*R[2][1]) - R[0][1]*(R[1][0]*R[2][2]-R[1][2]*R[2][0]) + R[0][2]*(R[1][0]*R[2][1]-R[1][1]*R[2][0])
	var Q [k][k]float64
	for i := range k {
		for j := range k {
			// Q = −adj(R)/det, adj(R)_ij = cofactor_ji.
			a, b := [2]int{}, [2]int{}
			ai, bi := 0, 0
			for r := range k {
				if r != j {
					a[ai] = r
					ai++
				}
				if r != i {
					b[bi] = r
					bi++
				}
			}
			cof := R[a[0]][b[0]]*R[a[1]][b[1]] - R[a[0]][b[1]]*R[a[1]][b[0]]
			if (i+j)%2 == 1 {
				cof = -cof
			}
			Q[i][j] = -cof / det
		}
	}
	mulQ := func(v []float64) []float64 {
		out := make([]float64, k)
		for i := range k {
			for j := range k {
				out[i] += Q[i][j] * v[j]
			}
		}
		return out
	}
	var term1 [k]float64
	var T [k][k][k]float64
	var B [k][k]float64
	for _, g := range gs {
		m := floats.Dot(p, g)
		s := make([]float64, k)
		for i := range k {
			s[i] = g[i] / m
		}
		qs := mulQ(s)
		for i := range k {
			for j := range k {
				v := S[i][j] - g[i]*g[j]/(m*m)
				term1[i] += v * qs[j] / n
				B[i][j] += qs[i] * qs[j]
				for l := range k {
					T[i][j][l] += f * g[i] * g[j] * g[l] / (m * m * m)
				}
			}
		}
	}
	inner := make([]float64, k)
	for i := range k {
		ab := 0.0
		for j := range k {
			for l := range k {
				ab += T[i][j][l] * B[j][l]
			}
		}
		inner[i] = term1[i] - ab/(2*n*n)
	}
	out := mulQ(inner)
	floats.Scale(1/n, out)
	return out
}

func TestBiasCorrectionK3(t *testing.T) {
	krr, _ := NewKRR(3, 1)
	geo, _ := NewGeometric(3, 0.7)
	mechs := []Mechanism{krr, geo}
	// 9 users: reports of k-RR 0,0,1,2 and of the geometric 0,1,1,2,2.
	mech := []int{0, 0, 0, 0, 1, 1, 1, 1, 1}
	syms := []int{0, 0, 1, 2, 0, 1, 1, 2, 2}
	reps := make([]Report, len(syms))
	var gs [][]float64
	for i, z := range syms {
		reps[i] = SymbolReport(z)
		col, _ := mechs[mech[i]].Likelihood(nil, reps[i])
		gs = append(gs, col)
	}
	g := GroupReports(2, mech, reps)
	c, err := newColumns(mechs, g, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := []float64{0.5, 0.3, 0.2}
	for _, tc := range []struct {
		printed bool
		f       float64
	}{{false, 2}, {true, 1}} {
		t.Run(fmt.Sprintf("printed %v", tc.printed), func(t *testing.T) {
			got, err := denseBias(c, p, 1e-3, tc.printed)
			if err != nil {
				t.Fatal(err)
			}
			want := naiveBias(gs, p, 1e-3, tc.f)
			if !near(got, want, 1e-12*floats.Norm(want, math.Inf(1))) {
				t.Errorf("printed %v: â₋₁ = %v, per-user tensor computation %v", tc.printed, got, want)
			}
			t.Logf("printed %v: â₋₁ = %.10g", tc.printed, got)
		})
	}
}

// cemPopulation returns CEM §5.1's mechanisms on k symbols — k-RR with
// ε = 0.1, 2 and ln k, and the identity (ε = ∞) — and a skewed truth,
// 1/x² normalised.
func cemPopulation(k int) ([]float64, []Mechanism) {
	truth := make([]float64, k)
	for x := range truth {
		truth[x] = 1 / float64((x+1)*(x+1))
	}
	floats.Scale(1/floats.Sum(truth), truth)
	m1, _ := NewKRR(k, 0.1)
	m2, _ := NewKRR(k, 2)
	m3, _ := NewKRR(k, math.Log(float64(k)))
	id, _ := NewIdentity(k)
	return truth, []Mechanism{m1, m2, m3, id}
}

// emAndCEM returns EM's estimate from g and corrected EM's, α chosen
// with seed.
func emAndCEM(t *testing.T, mechs []Mechanism, g *Groups, seed uint64) (em, cem *Estimate) {
	t.Helper()
	em, err := GIBU(context.Background(), mechs, g, nil, EMOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cem, err = CorrectedEM(context.Background(), mechs, g, nil, EMOptions{}, CEMOptions{Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	return em, cem
}

// TestCEMSetup runs CEM §5.1's set-up on a skewed distribution of K = 20
// symbols: k-RR users with ε = 0.1, 2, ln K and ∞ (identity) in the ratio
// 500:500:50:10, 30 seeded runs, and logs the mean squared error of EM
// and of the corrected EM side by side.
func TestCEMSetup(t *testing.T) {
	const k, runs = 20, 30
	truth, mechs := cemPopulation(k)
	rng := rand.New(rand.NewPCG(7, 7))
	var emErr, cemErr, printedErr float64
	for r := range runs {
		g, err := SimulateGroups(bg, rng, mechs, []int{500, 500, 50, 10}, truth)
		if err != nil {
			t.Fatal(err)
		}
		em, cem := emAndCEM(t, mechs, g, uint64(r))
		if math.Abs(floats.Sum(cem.Theta)-1) > 1e-12 || floats.Min(cem.Theta) < 0 || !(cem.Alpha >= 0) {
			t.Fatalf("corrected EM %v (α %v) is not a distribution", cem.Theta, cem.Alpha)
		}
		printed, err := CorrectedEM(bg, mechs, g, nil, EMOptions{}, CEMOptions{Seed: uint64(r), Printed: true})
		if err != nil {
			t.Fatal(err)
		}
		sq := func(th []float64) float64 { d := floats.Distance(th, truth, 2); return d * d / runs }
		emErr += sq(em.Theta)
		cemErr += sq(cem.Theta)
		printedErr += sq(printed.Theta)
	}
	t.Logf("K = %d, N = 1060, %d runs: MSE of EM %.5g, corrected EM %.5g (exact ∇²s), %.5g (printed ∇²s)", k, runs, emErr, cemErr, printedErr)
}

// TestCorrectedEMTooLarge checks that a corrected EM whose K×K matrix
// does not fit in this machine's memory is refused before anything is
// allocated, and that New York's 9,024 cells (650 MB) are not refused
// where 1.3 GB are free.
func TestCorrectedEMTooLarge(t *testing.T) {
	var large *TooLargeError
	if avail := availableMemory(); avail > 2*cemBytes(9024) {
		if err := checkCEMSize(9024); err != nil {
			t.Errorf("NYC size refused with %s free: %v", bytesText(avail), err)
		}
	}
	k := 1 << 20 // 8.8 TB
	m, _ := NewKRR(k, 1)
	g := &Groups{Users: []int{k}}
	for z := range 1000 {
		g.List = append(g.List, Group{Mech: 0, Report: SymbolReport(z), Count: 1})
	}
	if _, err := CorrectedEM(context.Background(), []Mechanism{m}, g, nil, EMOptions{}, CEMOptions{Alpha: 0.1}); !errors.As(err, &large) {
		t.Errorf("K = %d: %v, want a *TooLargeError", k, err)
	}
}

// TestCorrectedEMNoCorrection checks α's choice with 0 in the grid on
// CEM's census-like population (k-RR with ε = 0.1, 2, ln K and ∞ on
// K = 100 categories of a 1/x² truth, 1,100 users): in every one of ten
// data sets the chosen α's simulated loss is at most EM's, and
// where α = 0 won the estimate is EM's own; at least one data set
// chooses no correction (the paper's grid alone never could), and a
// given α = 0 is taken as given.
func TestCorrectedEMNoCorrection(t *testing.T) {
	bg := context.Background()
	truth, mechs := cemPopulation(100)
	zeros := 0
	for r := range 10 {
		g, err := SimulateGroups(bg, rand.New(rand.NewPCG(9, uint64(r))), mechs, []int{500, 500, 50, 50}, truth)
		if err != nil {
			t.Fatal(err)
		}
		em, cem := emAndCEM(t, mechs, g, uint64(r))
		if !(cem.EMLoss > 0) || cem.AlphaLoss > cem.EMLoss {
			t.Errorf("run %d: α %g, simulated loss %g against EM's %g", r, cem.Alpha, cem.AlphaLoss, cem.EMLoss)
		}
		if cem.Alpha == 0 {
			zeros++
			if d := floats.Distance(cem.Theta, em.Theta, math.Inf(1)); d > 1e-15 {
				t.Errorf("run %d: α = 0, but the estimate is %g from EM's", r, d)
			}
		}
		if r == 0 {
			fixed, err := CorrectedEM(bg, mechs, g, nil, EMOptions{}, CEMOptions{Fixed: true})
			if err != nil || fixed.Alpha != 0 || fixed.EMLoss != 0 || floats.Distance(fixed.Theta, em.Theta, math.Inf(1)) > 1e-15 {
				t.Errorf("α = 0 given: %v, α %g", err, fixed.Alpha)
			}
		}
	}
	if zeros == 0 {
		t.Error("no data set chose α = 0")
	}
}
