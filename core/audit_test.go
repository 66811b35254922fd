package core

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// matrixChannel is a channel given by its rows.
type matrixChannel [][]float64

func (m matrixChannel) Inputs() int           { return len(m) }
func (m matrixChannel) Outputs() int          { return len(m[0]) }
func (m matrixChannel) Prob(x, z int) float64 { return m[x][z] }

// randomChannel returns a K×K channel with positive entries of spread
// about e^±spread, some columns with few values.
func randomChannel(rng *rand.Rand, k int, spread float64) matrixChannel {
	m := make(matrixChannel, k)
	for x := range m {
		m[x] = make([]float64, k)
		for z := range m[x] {
			m[x][z] = math.Exp(spread * rng.NormFloat64())
			if z%3 == 0 { // a few-valued column: 1 or 2 on a few inputs
				m[x][z] = 1
				if (x+z)%7 == 0 {
					m[x][z] = 2
				}
			}
		}
		s := 0.0
		for _, v := range m[x] {
			s += v
		}
		for z := range m[x] {
			m[x][z] /= s
		}
	}
	return m
}

// exactGeoInd is the plain O(K³) scan over every output and pair.
func exactGeoInd(c Channel, dist func(x, x2 int) float64) float64 {
	k := c.Inputs()
	inv := inverseDistances(k, dist)
	logs := make([]float64, k)
	worst := 0.0
	for z := range c.Outputs() {
		for x := range k {
			logs[x] = math.Log(c.Prob(x, z))
		}
		worst = math.Max(worst, pairScan(logs, inv))
	}
	return worst
}

// TestGeoIndFastPaths checks the O(K) scan of few-valued outputs against
// the plain scan (k-RR, uRR, the identity, random channels), and the
// neighbour bounds: exact on a linear alphabet, and lower ≤ ε ≤ upper on
// a grid, for geometric, planar, Shokri's and random channels.
func TestGeoIndFastPaths(t *testing.T) {
	grid := Alphabet{Kind: KindGrid, Cols: 7, Rows: 5, CellKm: 0.4}
	line := Alphabet{Kind: KindLinear, Size: 35}
	dist := func(a Alphabet) func(x, y int) float64 {
		return func(x, y int) float64 { d, _, _ := a.Distance(x, y); return d }
	}
	krr, _ := NewKRR(35, 1.3)
	urr, _ := NewURR(35, 0.9, []int{0, 4, 9, 20})
	id, _ := NewIdentity(35)
	planar, _ := NewPlanarGeometric(7, 5, 0.4, 1.1)
	geom, _ := NewGeometric(35, 0.3)
	rng := rand.New(rand.NewPCG(4, 2))
	shokri, err := NewMechanism(MechanismSpec{ID: "s", Kind: KindShokri, QualityLoss: 0.6}, grid)
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		c Channel
		a Alphabet
	}{
		"krr grid": {krr, grid}, "urr grid": {urr, grid}, "identity": {id, grid}, "krr line": {krr, line},
		"planar": {planar, grid}, "geometric": {geom, line}, "shokri": {shokri.(Channel), grid},
		"random grid": {randomChannel(rng, 35, 0.5), grid}, "random line": {randomChannel(rng, 35, 0.5), line},
	} {
		want := exactGeoInd(tc.c, dist(tc.a))
		got, err := WorstGeoInd(context.Background(), tc.c, dist(tc.a))
		if err != nil || math.Abs(got-want) > 1e-12*math.Max(1, want) {
			t.Errorf("%s: WorstGeoInd %v (%v), plain scan %v", name, got, err, want)
		}
		// Budget 0: every column that is not few-valued gets neighbour
		// bounds.
		var au Audit
		if err := scanColumns(context.Background(), tc.c, tc.a, nil, 0, &au); err != nil {
			t.Fatal(err)
		}
		lo, hi := au.GeoInd, au.GeoIndUpper
		tol := 1e-12 * math.Max(1, want)
		if !(lo <= want+tol && want <= hi+tol) {
			t.Errorf("%s: neighbour bounds [%v, %v] miss ε = %v", name, lo, hi, want)
		}
		if tc.a.Kind == KindLinear && math.Abs(hi-lo) > tol {
			t.Errorf("%s: bounds [%v, %v] on a linear alphabet, want them equal", name, lo, hi)
		}
		if tc.a.Kind == KindGrid && hi > lo*octile*(1+1e-9) {
			t.Errorf("%s: bounds [%v, %v] wider than the octile factor", name, lo, hi)
		}
	}
}

// TestAuditLargeGrid checks that a planar mechanism on a grid beyond the
// exact scan's budget gets certified bounds, quickly, and that k-RR's
// few-valued outputs keep its exact value there.
func TestAuditLargeGrid(t *testing.T) {
	a := Alphabet{Kind: KindGrid, Cols: 48, Rows: 40, CellKm: 0.25}
	if k := float64(a.Len()); k*k*k <= exactGeoIndBudget {
		t.Fatalf("K = %v is within the exact budget", k)
	}
	planar, _ := NewPlanarGeometric(48, 40, 0.25, 2)
	au, err := AuditMechanism(context.Background(), planar, a)
	if err != nil {
		t.Fatal(err)
	}
	if !(au.GeoInd > 0 && au.GeoIndUpper > au.GeoInd && au.GeoIndUpper <= au.GeoInd*octile*(1+1e-9)) {
		t.Errorf("planar bounds [%v, %v]", au.GeoInd, au.GeoIndUpper)
	}
	// ε-geo-indistinguishable by construction, up to the lattice sum's
	// rounding: the bounds must hold 2 per km.
	if au.GeoInd > 2*(1+1e-6) || au.GeoIndUpper < 2*(1-1e-6) {
		t.Errorf("planar ε = 2 outside [%v, %v]", au.GeoInd, au.GeoIndUpper)
	}
	krr, _ := NewKRR(a.Len(), 3)
	au, err = AuditMechanism(context.Background(), krr, a)
	if err != nil {
		t.Fatal(err)
	}
	// Adjacent cells 0.25 km apart: ε = ln(p/q)/0.25 = 3/0.25.
	if math.Abs(au.GeoInd-12) > 1e-9 || au.GeoIndUpper != au.GeoInd {
		t.Errorf("k-RR geo-ind [%v, %v], want exactly 12 per km", au.GeoInd, au.GeoIndUpper)
	}
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second)) // past, however fast the machine
	defer cancel()
	if _, err := AuditMechanism(ctx, planar, a); err == nil {
		t.Error("an audit past its deadline succeeded")
	}
}
