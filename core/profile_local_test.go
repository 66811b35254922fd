package core

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// localCase returns the mechanisms of a cols×rows grid of 0.5 km cells
// — two planar geometric mechanisms (ε 0.6 and 1.8 a km) and a k-RR
// (ε 4) — and a truth with a share empty of its cells.
func localCase(t *testing.T, cols, rows int, empty float64, seed uint64) ([]Mechanism, []float64) {
	t.Helper()
	var mechs []Mechanism
	for _, e := range []float64{0.6, 1.8} {
		m, err := NewPlanarGeometric(cols, rows, 0.5, e)
		if err != nil {
			t.Fatal(err)
		}
		mechs = append(mechs, m)
	}
	krr, err := NewKRR(cols*rows, 4)
	if err != nil {
		t.Fatal(err)
	}
	return append(mechs, krr), randomDist(rand.New(rand.NewPCG(seed, 7)), cols*rows, empty)
}

// TestLocalProfileAgainstProfile compares the windowed profile's ends
// with the exact profile's (Profile, itself checked against an
// independent constrained EM by TestProfileEnds): on a 4×4 grid, which
// one window covers, and on 20×14, where a window holds 81 of 280
// cells. At the cells θ̂ supports each end lies within 2% of the exact
// half-width (measured: at most 0.9%). At the cells θ̂ puts at 0 the
// upper ends are the exact ones (LocalExactZeros), and with ZeroEnds'
// bound instead, as beyond that size, at or above them.
func TestLocalProfileAgainstProfile(t *testing.T) {
	for _, c := range []struct{ cols, rows, n int }{{4, 4, 3000}, {20, 14, 30000}} {
		mechs, truth := localCase(t, c.cols, c.rows, 0.5, 1)
		g, err := SimulateGroups(context.Background(), rand.New(rand.NewPCG(1, 8)), mechs, []int{c.n / 3, c.n / 3, c.n / 3}, truth)
		if err != nil {
			t.Fatal(err)
		}
		est, err := GIBU(context.Background(), mechs, g, nil, EMOptions{})
		if err != nil {
			t.Fatal(err)
		}
		exact, err := Profile(context.Background(), mechs, g, nil, est.Theta, 0.95, nil)
		if err != nil {
			t.Fatal(err)
		}
		local, err := LocalProfile(context.Background(), mechs, g, nil, est.Theta, 0.95, nil)
		if err != nil {
			t.Fatal(err)
		}
		bound, err := localProfile(context.Background(), mechs, g, nil, est.Theta, 0.95, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		worst, zeros := 0.0, 0
		for x, th := range est.Theta {
			if th <= bindingTol {
				zeros++
				if bound.Lo[x] != 0 || bound.BandLo[x] != 0 || bound.Hi[x] < exact.Hi[x]*(1-1e-9) || bound.BandHi[x] < exact.BandHi[x]*(1-1e-9) {
					t.Errorf("%dx%d cell %d at 0: with the bound [%.4g, %.4g] band [%.4g, %.4g], exact [%.4g, %.4g] band [%.4g, %.4g]", c.cols, c.rows, x,
						bound.Lo[x], bound.Hi[x], bound.BandLo[x], bound.BandHi[x], exact.Lo[x], exact.Hi[x], exact.BandLo[x], exact.BandHi[x])
				}
				if local.Lo[x] != exact.Lo[x] || local.Hi[x] != exact.Hi[x] || local.BandLo[x] != exact.BandLo[x] || local.BandHi[x] != exact.BandHi[x] {
					t.Errorf("%dx%d cell %d at 0: [%.6g, %.6g] band [%.6g, %.6g], exact [%.6g, %.6g] band [%.6g, %.6g]", c.cols, c.rows, x,
						local.Lo[x], local.Hi[x], local.BandLo[x], local.BandHi[x], exact.Lo[x], exact.Hi[x], exact.BandLo[x], exact.BandHi[x])
				}
				continue
			}
			for _, iv := range []*Intervals{local, bound} {
				for _, e := range []struct {
					name     string
					got, ref float64
				}{{"hi", iv.Hi[x], exact.Hi[x]}, {"lo", iv.Lo[x], exact.Lo[x]}, {"band hi", iv.BandHi[x], exact.BandHi[x]}, {"band lo", iv.BandLo[x], exact.BandLo[x]}} {
					half := math.Abs(e.ref - th)
					if half == 0 {
						if e.got != e.ref {
							t.Errorf("%dx%d cell %d (θ̂ %.5f): %s %.6g, exact %.6g", c.cols, c.rows, x, th, e.name, e.got, e.ref)
						}
						continue
					}
					rel := (e.got - e.ref) / half
					worst = math.Max(worst, math.Abs(rel))
					if math.Abs(rel) > 0.02 {
						t.Errorf("%dx%d cell %d (θ̂ %.5f): %s %.6g, exact %.6g (%.1f%% of the half-width)", c.cols, c.rows, x, th, e.name, e.got, e.ref, 100*rel)
					}
				}
			}
		}
		if zeros == 0 || zeros == len(est.Theta) {
			t.Fatalf("%dx%d: %d cells at 0: the case should test both kinds", c.cols, c.rows, zeros)
		}
		if bound.ZeroEnds != zeros || local.ZeroEnds != 0 {
			t.Errorf("%dx%d: ZeroEnds %d with the bound, %d exact; want the %d cells at 0 and none", c.cols, c.rows, bound.ZeroEnds, local.ZeroEnds, zeros)
		}
		t.Logf("%dx%d: %d cells at 0; elsewhere the ends within %.2f%% of the exact half-width", c.cols, c.rows, zeros, 100*worst)
	}
}

// TestLocalProfileCoverage measures the windowed profile's coverage
// where people are, as TestProfileCoverage measures Profile's: 300
// independent data sets of 1,500 people drawn from a 16×12 truth with
// empty cells and sparse ones (eight cells of mass 0.002, about three
// people each), 500 people through each of localCase's mechanisms; a
// run's truth is its own data's distribution. Each run contributes one
// cell with people (the first from cell 5r mod 192 on that holds any),
// so the per-cell trials are independent, as are the bands. The cells
// θ̂ puts at 0 take ZeroEnds' bound, as on maps beyond LocalExactZeros
// (below it they take Profile's own ends, which TestProfileCoverage
// measures). If the
// true coverage is at least 0.93, a share below 0.93 −
// 3.72·√(0.93·0.07/300) = 0.875 has probability below 10⁻⁴ (normal
// approximation of the binomial); two checks, a false failure below
// 2·10⁻⁴.
func TestLocalProfileCoverage(t *testing.T) {
	if testing.Short() {
		t.Skip("300 local profiles")
	}
	const cols, rows, runs, level = 16, 12, 300, 0.95
	k := cols * rows
	mechs, truth := localCase(t, cols, rows, 0.6, 5)
	sparsen(truth, 8, 0.002)
	sampler := NewDataSampler(truth)
	cells, bands, sparseIn, sparseN := 0, 0, 0, 0
	for r := range runs {
		g, people := drawPeople(t, rand.New(rand.NewPCG(19, uint64(r))), sampler, mechs, []int{500, 500, 500}, k)
		est, err := GIBU(context.Background(), mechs, g, nil, EMOptions{})
		if err != nil {
			t.Fatal(err)
		}
		iv, err := localProfile(context.Background(), mechs, g, nil, est.Theta, level, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		x := 5 * r % k
		for people[x] == 0 {
			x = (x + 1) % k
		}
		in := covers(float64(people[x])/1500, iv.Lo[x], iv.Hi[x])
		cells += in
		if people[x] <= 4 {
			sparseIn += in
			sparseN++
		}
		bands += coversAll(shares(people), iv.BandLo, iv.BandHi)
	}
	min := 0.93 - 3.72*math.Sqrt(0.93*0.07/runs)
	t.Logf("per cell %d of %d (cells of at most 4 people: %d of %d), bands %d of %d", cells, runs, sparseIn, sparseN, bands, runs)
	if got := float64(cells) / runs; got < min {
		t.Errorf("the intervals covered %.3f of the cells with people, below %.3f", got, min)
	}
	if got := float64(bands) / runs; got < min {
		t.Errorf("the bands covered every cell in %.3f of the runs, below %.3f", got, min)
	}
	if sparseN < 30 {
		t.Errorf("only %d trials on cells of at most 4 people: the case should test them", sparseN)
	}
}
