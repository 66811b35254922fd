package geo

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geo"
)

func fwGrid(t *testing.T) *Grid {
	t.Helper()
	g, err := NewGrid(FWBound, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestFWGrid checks FW §8.2's San Francisco grid: 24×16 cells whose sides,
// measured by haversine on every cell, are within 0.5% of 0.5 km.
func TestFWGrid(t *testing.T) {
	g := fwGrid(t)
	if g.Cols != 24 || g.Rows != 16 {
		t.Fatalf("grid is %d×%d, want 24×16", g.Cols, g.Rows)
	}
	for i := range g.Len() {
		ew, ns := g.SideKm(i)
		if math.Abs(ew-0.5) > 0.0025 || math.Abs(ns-0.5) > 0.0025 {
			t.Errorf("cell %d sides %.5f×%.5f km, want 0.5±0.5%%", i, ew, ns)
		}
	}
	// The reported sides are the tiled box's, within 0.5% too.
	if w, h := g.CellWidthKm(), g.CellHeightKm(); math.Abs(w-0.5) > 0.0025 || math.Abs(h-0.5) > 0.0025 {
		t.Errorf("CellWidthKm, CellHeightKm = %v, %v", w, h)
	}
	// Cells tile the box exactly.
	last := g.CellBound(g.Len() - 1)
	if last.Max != FWBound.Max || g.CellBound(0).Min != FWBound.Min {
		t.Errorf("corner cells %v, %v do not reach the box %v", g.CellBound(0), last, FWBound)
	}
}

func TestGridIndexBorders(t *testing.T) {
	g := fwGrid(t)
	sw, ne := FWBound.Min, FWBound.Max
	tests := []struct {
		name string
		p    orb.Point
		want int
	}{
		{"south-west corner", sw, 0},
		{"north-east corner", ne, g.Len() - 1},
		{"east side", orb.Point{ne[0], sw[1]}, g.Cols - 1},
		{"north side", orb.Point{sw[0], ne[1]}, (g.Rows - 1) * g.Cols},
		{"west of box", orb.Point{sw[0] - 1e-9, sw[1]}, -1},
		{"south of box", orb.Point{sw[0], sw[1] - 1e-9}, -1},
		{"north of box", orb.Point{ne[0], ne[1] + 1e-9}, -1},
		{"east of box", orb.Point{ne[0] + 1e-9, ne[1]}, -1},
	}
	// Every inner border belongs to the cell east or north of it.
	for c := 1; c < g.Cols; c++ {
		tests = append(tests, struct {
			name string
			p    orb.Point
			want int
		}{"column border", orb.Point{g.CellBound(c).Min[0], sw[1]}, c})
	}
	for r := 1; r < g.Rows; r++ {
		tests = append(tests, struct {
			name string
			p    orb.Point
			want int
		}{"row border", orb.Point{sw[0], g.CellBound(r * g.Cols).Min[1]}, r * g.Cols})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := g.Index(tc.p)
			if got != tc.want || ok != (tc.want >= 0) {
				t.Errorf("Index(%v) = %d, %v, want %d", tc.p, got, ok, tc.want)
			}
		})
	}
}

// TestGridIndexCellBound checks that Index and CellBound agree: every
// point lies in the half-open box of its cell.
func TestGridIndexCellBound(t *testing.T) {
	g := fwGrid(t)
	rng := rand.New(rand.NewPCG(1, 1))
	for range 100000 {
		p := orb.Point{
			FWBound.Min[0] + rng.Float64()*(FWBound.Max[0]-FWBound.Min[0]),
			FWBound.Min[1] + rng.Float64()*(FWBound.Max[1]-FWBound.Min[1]),
		}
		i, ok := g.Index(p)
		if !ok {
			t.Fatalf("Index(%v) outside", p)
		}
		b := g.CellBound(i)
		if p[0] < b.Min[0] || p[0] >= b.Max[0] || p[1] < b.Min[1] || p[1] >= b.Max[1] {
			t.Fatalf("point %v in cell %d with box %v", p, i, b)
		}
	}
}

func TestGridCountDistribution(t *testing.T) {
	g := fwGrid(t)
	cs := []Checkin{
		{Point: g.Center(0)}, {Point: g.Center(0)}, {Point: g.Center(100)},
		{Point: orb.Point{0, 0}}, // outside
	}
	counts, outside := g.Count(cs)
	if outside != 1 || counts[0] != 2 || counts[100] != 1 {
		t.Fatalf("Count = cell0 %d, cell100 %d, outside %d; want 2, 1, 1", counts[0], counts[100], outside)
	}
	p := Distribution(counts)
	if p[0] != 2.0/3 || p[100] != 1.0/3 {
		t.Errorf("Distribution = %v, %v, want 2/3, 1/3", p[0], p[100])
	}
	if Distribution(make([]int, 3)) != nil {
		t.Error("Distribution of zero counts is not nil")
	}
}

func TestNewGridErrors(t *testing.T) {
	tests := []struct {
		name string
		b    orb.Bound
		cell float64
	}{
		{"zero cell", FWBound, 0},
		{"negative cell", FWBound, -1},
		{"NaN cell", FWBound, math.NaN()},
		{"infinite cell", FWBound, math.Inf(1)},
		{"too many cells", FWBound, 0.001},
		{"flat box", orb.Bound{Min: orb.Point{0, 1}, Max: orb.Point{1, 1}}, 1},
		{"inverted box", orb.Bound{Min: FWBound.Max, Max: FWBound.Min}, 0.5},
		{"latitude past pole", orb.Bound{Min: orb.Point{0, 80}, Max: orb.Point{1, 91}}, 1},
		{"NaN corner", orb.Bound{Min: orb.Point{math.NaN(), 0}, Max: orb.Point{1, 1}}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if g, err := NewGrid(tc.b, tc.cell); err == nil {
				t.Errorf("NewGrid = %d×%d, want an error", g.Cols, g.Rows)
			}
		})
	}
	// A cell larger than the box still makes one cell.
	g, err := NewGrid(FWBound, 100)
	if err != nil || g.Len() != 1 {
		t.Errorf("NewGrid(100 km) = %v, %v; want 1 cell", g, err)
	}
}

func TestParseBBox(t *testing.T) {
	b, err := ParseBBox("37.7228,-122.5153, 37.7946 ,-122.3789")
	if err != nil || b != FWBound {
		t.Errorf("ParseBBox = %v, %v, want %v", b, err, FWBound)
	}
	for _, s := range []string{"", "1,2,3", "1,2,3,x", "37.8,-122.5,37.7,-122.4", "1,2,3,4,5"} {
		if _, err := ParseBBox(s); err == nil {
			t.Errorf("ParseBBox(%q) succeeded", s)
		}
	}
}

// TestEquirectangular compares projected distances with haversine ones
// over the San Francisco box: the projection is within 0.2% of the ground.
func TestEquirectangular(t *testing.T) {
	lat0 := (FWBound.Min[1] + FWBound.Max[1]) / 2
	proj := Equirectangular(FWBound.Min, lat0)
	rng := rand.New(rand.NewPCG(2, 2))
	for range 1000 {
		a := orb.Point{FWBound.Min[0] + rng.Float64()*0.1364, FWBound.Min[1] + rng.Float64()*0.0718}
		b := orb.Point{FWBound.Min[0] + rng.Float64()*0.1364, FWBound.Min[1] + rng.Float64()*0.0718}
		pa, pb := proj(a), proj(b)
		d := math.Hypot(pa[0]-pb[0], pa[1]-pb[1])
		h := geo.DistanceHaversine(a, b)
		if h > 100 && math.Abs(d-h)/h > 0.002 {
			t.Errorf("projected distance %v m, haversine %v m", d, h)
		}
	}
}

func TestGridCheckins(t *testing.T) {
	t0 := timeAt(0)
	cs := []Checkin{
		{User: "a", Time: timeAt(5), Point: orb.Point{-122.45, 37.75}},
		{User: "a", Time: t0, Point: orb.Point{-122.40, 37.79}}, // a's first
		{User: "b", Time: t0, Point: orb.Point{-122.50, 37.73}},
		{User: "c", Time: t0, Point: orb.Point{-121.0, 37.0}}, // outside
	}
	gd, err := GridCheckins(cs, GridOptions{Bound: FWBound, CellKm: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if gd.Records != 4 || gd.Users != 3 || gd.Data != 3 || gd.Outside != 1 || gd.N() != 2 {
		t.Errorf("gridded %+v", gd)
	}
	want, _ := gd.Grid.Index(orb.Point{-122.40, 37.79})
	if gd.Counts[want] != 1 {
		t.Errorf("a's first check-in not counted in cell %d", want)
	}
	gd, err = GridCheckins(cs, GridOptions{Bound: FWBound, CellKm: 0.5, PerUser: All})
	if err != nil || gd.Data != 4 || gd.N() != 3 {
		t.Errorf("all check-ins: %+v, %v", gd, err)
	}
	// The data's own box holds every datum.
	gd, err = GridCheckins(cs, GridOptions{CellKm: 1, PerUser: All})
	if err != nil || gd.Outside != 0 {
		t.Errorf("data box: %+v, %v", gd, err)
	}
	if _, err := GridCheckins(cs[3:], GridOptions{Bound: FWBound, CellKm: 0.5}); err == nil {
		t.Error("all data outside the box: no error")
	}
	if _, err := GridCheckins(nil, GridOptions{CellKm: 0.5}); err == nil {
		t.Error("no data: no error")
	}
	if _, err := ParsePerUser("some"); err == nil {
		t.Error(`ParsePerUser("some") succeeded`)
	}
	if r, err := ParsePerUser("all"); err != nil || r != All {
		t.Errorf(`ParsePerUser("all") = %v, %v`, r, err)
	}
}

// TestHomeCells checks the home rule: most check-ins inside the box win,
// ties go to the cell visited first (by time, then file order), check-ins
// outside the box do not count, and every datum carries its user's home.
func TestHomeCells(t *testing.T) {
	g := fwGrid(t)
	p := func(col, row int) orb.Point { return g.Center(row*g.Cols + col) }
	out := orb.Point{-121.0, 37.0}
	cs := []Checkin{
		{User: "a", Time: timeAt(3), Point: p(1, 1)},
		{User: "a", Time: timeAt(1), Point: p(2, 2)}, // a's first
		{User: "a", Time: timeAt(4), Point: p(1, 1)}, // a: cell (1,1) twice
		{User: "b", Time: timeAt(9), Point: p(5, 5)},
		{User: "b", Time: timeAt(2), Point: p(6, 6)}, // tie, (6,6) first in time
		{User: "c", Point: p(7, 7)},                  // tie without times:
		{User: "c", Point: p(8, 8)},                  // file order
		{User: "d", Time: timeAt(1), Point: p(3, 3)},
		{User: "d", Time: timeAt(2), Point: out},
		{User: "d", Time: timeAt(3), Point: out}, // outside does not count
		{User: "e", Time: timeAt(1), Point: out}, // never inside: no home
		{Point: p(9, 9)},                         // anonymous
	}
	home := g.HomeCells(cs)
	want := map[string]int{"a": 1*24 + 1, "b": 6*24 + 6, "c": 7*24 + 7, "d": 3*24 + 3}
	if len(home) != len(want) {
		t.Errorf("homes %v, want %v", home, want)
	}
	for u, w := range want {
		if home[u] != w {
			t.Errorf("home of %s = %d, want %d", u, home[u], w)
		}
	}
	gd, err := GridCheckins(cs, GridOptions{Bound: FWBound, CellKm: 0.5, Home: true})
	if err != nil {
		t.Fatal(err)
	}
	// First per user: a (2,2), b (6,6), c (7,7), d (3,3), e outside, anonymous (9,9).
	wantCells := []int{2*24 + 2, 6*24 + 6, 7*24 + 7, 3*24 + 3, 9*24 + 9}
	wantHomes := []int{1*24 + 1, 6*24 + 6, 7*24 + 7, 3*24 + 3, 9*24 + 9}
	if !slices.Equal(gd.Cells, wantCells) || !slices.Equal(gd.Homes, wantHomes) {
		t.Errorf("cells %v homes %v, want %v and %v", gd.Cells, gd.Homes, wantCells, wantHomes)
	}
	if gd, _ := GridCheckins(cs, GridOptions{Bound: FWBound, CellKm: 0.5}); gd.Homes != nil {
		t.Error("homes without asking")
	}
}
