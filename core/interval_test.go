package core

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/stat/distuv"
)

// TestBootstrapIntervalsKnown checks the intervals of five replicates
// θ*_i = (½ + d_i, ½ − d_i), d = (−0.2, −0.1, 0, 0.1, 0.2), about
// θ̂ = (½, ½) at level ½, worked by hand: the quartiles of (0.3 … 0.7)
// are 0.4 and 0.6 (type 7); s = √(0.1/4) = 0.1581; the studentised
// deviations |d_i|/s are 0, 0.632, 0.632, 1.265, 1.265, whose median
// 0.632 is below Šidák's normal quantile for two cells at ½,
// Φ⁻¹((1 + √½)/2) = 1.0518, which makes the band ½ ± 1.0518·s; the TVs
// and largest errors are |d_i|, median 0.1.
func TestBootstrapIntervalsKnown(t *testing.T) {
	var reps [][]float64
	for _, d := range []float64{-0.2, -0.1, 0, 0.1, 0.2} {
		reps = append(reps, []float64{0.5 + d, 0.5 - d})
	}
	iv, err := BootstrapIntervals([]float64{0.5, 0.5}, reps, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	near := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	sidak := distuv.UnitNormal.Quantile((1 + math.Sqrt(0.5)) / 2)
	if math.Abs(sidak-1.0518) > 1e-4 {
		t.Fatalf("Šidák's quantile %v, want 1.0518", sidak)
	}
	for x := range 2 {
		near("Lo", iv.Lo[x], 0.4)
		near("Hi", iv.Hi[x], 0.6)
		near("SE", iv.SE[x], math.Sqrt(0.025))
		near("BandLo", iv.BandLo[x], 0.5-sidak*math.Sqrt(0.025))
		near("BandHi", iv.BandHi[x], 0.5+sidak*math.Sqrt(0.025))
	}
	near("Critical", iv.Critical, sidak)
	if iv.Replicates != 5 || iv.Method != IntervalBootstrap || iv.Level != 0.5 {
		t.Errorf("got %d replicates, method %q, level %v", iv.Replicates, iv.Method, iv.Level)
	}
	for _, level := range []float64{0, 1, math.NaN()} {
		if _, err := BootstrapIntervals([]float64{0.5, 0.5}, reps, level); err == nil {
			t.Errorf("level %v accepted", level)
		}
	}
}

// TestFisherKRR holds the Fisher intervals of one k-RR's MLE inside the
// simplex to the closed form: θ̂ = (f − q)/(p − q) of the output
// frequencies f is affine in them, so its standard error is
// √(f_x(1 − f_x)/n)/(p − q), p = e^ε/(e^ε + K − 1), q = 1/(e^ε + K − 1).
func TestFisherKRR(t *testing.T) {
	const k, eps = 4, 1.0
	m, _ := NewKRR(k, eps)
	counts := []int{350, 250, 220, 180} // all above q·n = 175: θ̂ > 0
	g := &Groups{Users: []int{1000}}
	f := make([]float64, k)
	for z, c := range counts {
		g.List = append(g.List, Group{Mech: 0, Report: SymbolReport(z), Count: c})
		f[z] = float64(c) / 1000
	}
	theta := m.MLE(f)
	iv, err := Fisher(context.Background(), []Mechanism{m}, g, nil, theta, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	p := math.Exp(eps) / (math.Exp(eps) + k - 1)
	q := 1 / (math.Exp(eps) + k - 1)
	z := distuv.UnitNormal.Quantile(0.975)
	zk := distuv.UnitNormal.Quantile((1 + math.Pow(0.95, 1.0/k)) / 2)
	for x := range k {
		se := math.Sqrt(f[x]*(1-f[x])/1000) / (p - q)
		if math.Abs(iv.SE[x]-se) > 1e-9*se {
			t.Errorf("SE[%d] = %v, want %v", x, iv.SE[x], se)
		}
		if math.Abs(iv.Hi[x]-theta[x]-z*se) > 1e-9 || math.Abs(iv.BandHi[x]-theta[x]-zk*se) > 1e-9 {
			t.Errorf("cell %d: hi %v band_hi %v, want θ̂ + %v·se and θ̂ + %v·se", x, iv.Hi[x], iv.BandHi[x], z, zk)
		}
	}
	// On the boundary the normal approximation fails: refused.
	if _, err := Fisher(context.Background(), []Mechanism{m}, g, nil, []float64{0.5, 0.5, 0, 0}, 0.95); err == nil || !strings.Contains(err.Error(), "2 of its 4 symbols are 0") {
		t.Errorf("boundary: err %v, want a refusal naming the zeros", err)
	}
}

// TestIntervalCoverage measures the coverage of the bootstrap's and the
// Fisher intervals over 400 independent data sets of 1,000 users of one
// k-RR (K = 6, ε = 2, the truth inside the simplex), each with 200
// replicates. Each run contributes one cell (cell r mod 6), so the 400
// trials of the per-cell intervals are independent, as are the runs'
// bands. If a method's true coverage is at least L − 0.01, a per-cell
// coverage below L − 0.01 − 3.72·√(L(1−L)/400) = 0.9 has probability
// below 10⁻⁴ (normal approximation of the binomial); the bands, which
// are conservative, must cover in at least 0.9 of the runs as well.
func TestIntervalCoverage(t *testing.T) {
	if testing.Short() {
		t.Skip("400 bootstraps")
	}
	const k, n, runs, b, level = 6, 1000, 400, 200, 0.95
	truth := []float64{0.3, 0.25, 0.2, 0.12, 0.08, 0.05}
	m, _ := NewKRR(k, 2)
	mechs := []Mechanism{m}
	var boot, bootBand, fisher, fisherBand, fisherRuns int
	for r := range runs {
		g, err := SimulateGroups(context.Background(), rand.New(rand.NewPCG(11, uint64(r))), mechs, []int{n}, truth)
		if err != nil {
			t.Fatal(err)
		}
		est, err := GIBU(context.Background(), mechs, g, nil, EMOptions{})
		if err != nil {
			t.Fatal(err)
		}
		iv := bootIntervals(t, MethodGIBU, mechs, g, est, EstimateOptions{}, b, uint64(r), level)
		x := r % k
		boot += covers(truth[x], iv.Lo[x], iv.Hi[x])
		bootBand += coversAll(truth, iv.BandLo, iv.BandHi)
		if fv, err := Fisher(context.Background(), mechs, g, nil, est.Theta, level); err == nil {
			fisherRuns++
			fisher += covers(truth[x], fv.Lo[x], fv.Hi[x])
			fisherBand += coversAll(truth, fv.BandLo, fv.BandHi)
		}
	}
	min := level - 0.01 - 3.72*math.Sqrt(level*(1-level)/runs)
	check := func(name string, hits, trials int) {
		got := float64(hits) / float64(trials)
		t.Logf("%s: %.3f of %d", name, got, trials)
		if got < min {
			t.Errorf("%s covered %.3f of %d trials, below %.3f", name, got, trials, min)
		}
	}
	check("bootstrap, per cell", boot, runs)
	check("bootstrap, band", bootBand, runs)
	if fisherRuns < runs*9/10 {
		t.Fatalf("Fisher refused %d of %d runs (the MLE on the boundary)", runs-fisherRuns, runs)
	}
	check("fisher, per cell", fisher, fisherRuns)
	check("fisher, band", fisherBand, fisherRuns)
}

// covers returns 1 when lo ≤ v ≤ hi.
func covers(v, lo, hi float64) int {
	if v >= lo && v <= hi {
		return 1
	}
	return 0
}

// coversAll returns 1 when every v is within its bounds.
func coversAll(v, lo, hi []float64) int {
	for x := range v {
		if covers(v[x], lo[x], hi[x]) == 0 {
			return 0
		}
	}
	return 1
}

// TestBootstrapCoverageEstimators measures the coverage of the
// bootstrap's intervals of the estimators other than GIBU (whose
// bootstrap and Fisher intervals TestIntervalCoverage measures, and its
// profile intervals TestProfileCoverage), over 300 independent data
// sets of 1,000 people drawn from a 6-symbol truth inside the simplex
// (every symbol held by about 50 people or more), sanitised by two k-RR
// (ε = 1 and 3, 500 people each), each with 100 replicates; the truth of
// a run is its own data's distribution (the estimand). Each run
// contributes one symbol (r mod 6), so the 300 trials of the per-cell
// intervals are independent, as are the runs' bands. If an estimator's
// true coverage is at least 0.93 (nominal − 2 points), a share below
// 0.93 − 3.72·√(0.93·0.07/300) = 0.875 has probability below 10⁻⁴
// (normal approximation of the binomial), for the bands likewise: with
// ten checks, a false failure below 10⁻³.
func TestBootstrapCoverageEstimators(t *testing.T) {
	if testing.Short() {
		t.Skip("1,500 bootstraps")
	}
	const k, n, runs, b, level = 6, 1000, 300, 100, 0.95
	truth := []float64{0.3, 0.25, 0.2, 0.12, 0.08, 0.05}
	m1, _ := NewKRR(k, 1)
	m2, _ := NewKRR(k, 3)
	mechs := []Mechanism{m1, m2}
	sampler := NewDataSampler(truth)
	for _, method := range []Method{MethodIBUM, MethodIBUR, MethodINVM, MethodINVR, MethodCEM} {
		t.Run(string(method), func(t *testing.T) {
			t.Parallel()
			cells, bands := 0, 0
			for r := range runs {
				g, people := drawPeople(t, rand.New(rand.NewPCG(23, uint64(r))), sampler, mechs, []int{n / 2, n / 2}, k)
				own := make([]float64, k)
				for x, c := range people {
					own[x] = float64(c) / n
				}
				opt := EstimateOptions{CEM: CEMOptions{Seed: uint64(r)}}
				est, err := Reconstruct(context.Background(), method, nil, mechs, g, opt)
				if err != nil {
					t.Fatal(err)
				}
				iv := bootIntervals(t, method, mechs, g, est, opt, b, uint64(r), level)
				x := r % k
				cells += covers(own[x], iv.Lo[x], iv.Hi[x])
				bands += coversAll(own, iv.BandLo, iv.BandHi)
			}
			min := 0.93 - 3.72*math.Sqrt(0.93*0.07/runs)
			t.Logf("per cell %d of %d, bands %d of %d", cells, runs, bands, runs)
			if got := float64(cells) / runs; got < min {
				t.Errorf("the intervals covered %.3f of the cells, below %.3f", got, min)
			}
			if got := float64(bands) / runs; got < min {
				t.Errorf("the bands covered every cell in %.3f of the runs, below %.3f", got, min)
			}
		})
	}
}

// TestZeroEnds checks the upper ends ZeroEnds gives the bootstrap's
// intervals of GIBU's estimate at its cells at 0 against the profile
// likelihood's (Profile, whose returned end lies within 1% beyond the
// true one): each holds the profile's end — at least 0.99 of it — for
// the interval and the band; the other cells keep the bootstrap's ends.
func TestZeroEnds(t *testing.T) {
	mechs, g, _ := planarSmall(t, 2000)
	est, err := GIBU(context.Background(), mechs, g, nil, EMOptions{})
	if err != nil {
		t.Fatal(err)
	}
	prof, err := Profile(context.Background(), mechs, g, nil, est.Theta, DefaultLevel, nil)
	if err != nil {
		t.Fatal(err)
	}
	boot := bootIntervals(t, MethodGIBU, mechs, g, est, EstimateOptions{}, 100, 1, DefaultLevel)
	before := slices.Clone(boot.Hi)
	iv, err := ZeroEnds(mechs, g, nil, est.Theta, boot)
	if err != nil {
		t.Fatal(err)
	}
	zeros := 0
	for x, v := range est.Theta {
		if v > bindingTol {
			if iv.Hi[x] != before[x] {
				t.Errorf("cell %d (θ̂ = %.3g): upper end %g changed from the bootstrap's %g", x, v, iv.Hi[x], before[x])
			}
			continue
		}
		zeros++
		if iv.Hi[x] < 0.99*prof.Hi[x] || iv.BandHi[x] < 0.99*prof.BandHi[x] {
			t.Errorf("cell %d at 0: ends %g and %g (band) below the profile's %g and %g", x, iv.Hi[x], iv.BandHi[x], prof.Hi[x], prof.BandHi[x])
		}
	}
	if zeros == 0 || iv.ZeroEnds != zeros {
		t.Errorf("%d ends raised, %d cells at 0: the case should have some", iv.ZeroEnds, zeros)
	}
}

// bootIntervals returns the percentile intervals at level of b bootstrap
// replicates (seed) of est, method's estimate from g.
func bootIntervals(t *testing.T, method Method, mechs []Mechanism, g *Groups, est *Estimate, opt EstimateOptions, b int, seed uint64, level float64) *Intervals {
	t.Helper()
	reps, err := Bootstrap(context.Background(), method, nil, mechs, g, est, opt, b, seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	iv, err := BootstrapIntervals(est.Theta, reps, level)
	if err != nil {
		t.Fatal(err)
	}
	return iv
}

// drawPeople draws the data of n people from sampler with rng,
// sanitises users[j] of them through mechanism j, and returns their
// grouped reports and the people of each of the k symbols.
func drawPeople(t *testing.T, rng *rand.Rand, sampler *DataSampler, mechs []Mechanism, users []int, k int) (*Groups, []int) {
	t.Helper()
	n := 0
	for _, u := range users {
		n += u
	}
	data := make([]int, n)
	people := make([]int, k)
	for i := range data {
		data[i] = sampler.Draw(rng)
		people[data[i]]++
	}
	var mech []int
	var reps []Report
	if err := SimulateData(context.Background(), rng, mechs, users, data, nil, func(_, j int, rp Report) error {
		mech, reps = append(mech, j), append(reps, rp)
		return nil
	}, nil); err != nil {
		t.Fatal(err)
	}
	return GroupReports(len(mechs), mech, reps), people
}

// sparsen sets each of the first cells symbols truth holds to mass —
// a few people's cells in a coverage test's data sets — and scales the
// whole to sum 1 again.
func sparsen(truth []float64, cells int, mass float64) {
	for x := range truth {
		if truth[x] > 0 && cells > 0 {
			truth[x] = mass
			cells--
		}
	}
	floats.Scale(1/floats.Sum(truth), truth)
}

// shares returns the distribution of the people of each symbol: the
// truth a coverage test's run compares its intervals with.
func shares(people []int) []float64 {
	n := 0
	for _, c := range people {
		n += c
	}
	own := make([]float64, len(people))
	for y, c := range people {
		own[y] = float64(c) / float64(n)
	}
	return own
}
