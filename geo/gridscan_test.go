package geo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paulmach/orb"
)

// gridReference is the straightforward gridding GridScan replaces: every
// record in memory, FirstPerUser, BoundOf, Bin and HomeCells.
func gridReference(cs []Checkin, opt GridOptions) (*Gridded, error) {
	data := cs
	switch {
	case opt.PerUser == First:
		data = FirstPerUser(cs)
	case opt.MaxPerUser > 0:
		data = firstK(cs, opt.MaxPerUser)
	}
	b := opt.Bound
	if b == (orb.Bound{}) {
		b = BoundOf(cs) // every check-in, whatever the rule keeps
	}
	g, err := NewGrid(b, opt.CellKm)
	if err != nil {
		return nil, err
	}
	counts, cells := g.Bin(data)
	gd := &Gridded{Grid: g, Counts: counts, Cells: cells, Records: len(cs), Users: CountUsers(cs),
		Data: len(data), Outside: len(data) - len(cells), Rule: opt.PerUser}
	if opt.PerUser == All {
		gd.Limit = opt.MaxPerUser
	}
	// People: named users with a datum in the grid by first appearance
	// in the file, then each anonymous datum in data order; the most data
	// of one person.
	inside := map[string]bool{}
	for _, c := range data {
		if _, ok := g.Index(c.Point); ok {
			inside[c.User] = true
		}
	}
	index := map[string]int{}
	for _, c := range cs {
		if _, ok := index[c.User]; !ok && c.User != "" && inside[c.User] {
			index[c.User] = len(index)
		}
	}
	gd.People = []int{}
	next, per := len(index), map[int]int{}
	for _, c := range data {
		if _, ok := g.Index(c.Point); !ok {
			continue
		}
		p, ok := index[c.User]
		if !ok {
			p, next = next, next+1
		}
		gd.People = append(gd.People, p)
		per[p]++
		gd.MaxPerPerson = max(gd.MaxPerPerson, per[p])
	}
	if opt.Home {
		home := g.HomeCells(cs)
		gd.Homes = []int{}
		for _, c := range data {
			cell, ok := g.Index(c.Point)
			if !ok {
				continue
			}
			if c.User != "" {
				cell = home[c.User]
			}
			gd.Homes = append(gd.Homes, cell)
		}
	}
	return gd, nil
}

// firstK returns the first k check-ins of each user by time (ties going
// to file order), users in order of first appearance, each anonymous
// check-in a user of its own.
func firstK(cs []Checkin, k int) []Checkin {
	var order []string
	groups := map[string][]Checkin{}
	var out []Checkin
	for i, c := range cs {
		key := c.User
		if key == "" {
			key = "\x00" + strconv.Itoa(i)
		}
		if _, ok := groups[key]; !ok {
			order = append(order, key)
		}
		groups[key] = append(groups[key], c)
	}
	for _, key := range order {
		g := groups[key]
		slices.SortStableFunc(g, func(a, b Checkin) int { return a.Time.Compare(b.Time) })
		out = append(out, g[:min(k, len(g))]...)
	}
	return out
}

// messyCheckins returns check-ins with what real files hold: users whose
// records are not together, equal times, no times, anonymous records and
// records outside FWBound.
func messyCheckins(rng *rand.Rand, n int) []Checkin {
	cs := make([]Checkin, n)
	for i := range cs {
		c := &cs[i]
		c.Point = orb.Point{FWBound.Min[0] + rng.Float64()*0.14, FWBound.Min[1] + rng.Float64()*0.075}
		if rng.IntN(10) == 0 {
			c.Point[0] += 0.2 // outside the box
		}
		if rng.IntN(8) != 0 {
			c.User = strconv.Itoa(rng.IntN(n/6 + 1))
		}
		if rng.IntN(5) != 0 {
			c.Time = time.Unix(int64(rng.IntN(50)), int64(rng.IntN(2))).UTC()
		}
	}
	return cs
}

// TestGridScanMatchesReference checks that streaming gives exactly what
// gridding every record in memory gives, under each rule, with and without
// home cells and a box.
func TestGridScanMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 6))
	for trial := range 80 {
		cs := messyCheckins(rng, 20+rng.IntN(400))
		// Half the trials list each user's check-ins together, as SNAP
		// files do, which settles homes user by user; the others need
		// one more scan for the homes.
		together := trial%2 == 0
		if together {
			slices.SortStableFunc(cs, func(a, b Checkin) int { return strings.Compare(a.User, b.User) })
		}
		for _, opt := range []GridOptions{
			{Bound: FWBound, CellKm: 1.5},
			{Bound: FWBound, CellKm: 1.5, Home: true},
			{Bound: FWBound, CellKm: 1.5, PerUser: All, Home: true},
			{CellKm: 2},
			{CellKm: 2, Home: true},
			{CellKm: 2, PerUser: All},
			{CellKm: 2, PerUser: All, Home: true},
			{Bound: FWBound, CellKm: 1.5, PerUser: All, MaxPerUser: 2},
			{CellKm: 2, PerUser: All, MaxPerUser: 3, Home: true},
			{CellKm: 2, PerUser: All, MaxPerUser: 1000},
		} {
			want, err := gridReference(cs, opt)
			if err != nil {
				t.Fatal(err)
			}
			passes := 0
			got, _, err := GridScan(func(fn func(Checkin) error) (*Result, error) {
				passes++
				for _, c := range cs {
					if err := fn(c); err != nil {
						return nil, err
					}
				}
				return &Result{}, nil
			}, opt)
			if err != nil {
				t.Fatalf("trial %d %+v: %v", trial, opt, err)
			}
			wantPasses := opt.Passes()
			if opt.Home && !together {
				wantPasses++
			}
			if passes != wantPasses {
				t.Errorf("%+v, users together %v: %d passes, want %d", opt, together, passes, wantPasses)
			}
			if got.Grid.Bound != want.Grid.Bound || got.Grid.Cols != want.Grid.Cols || got.Grid.Rows != want.Grid.Rows {
				t.Fatalf("trial %d %+v: grid %+v, want %+v", trial, opt, got.Grid, want.Grid)
			}
			got.Grid, want.Grid = nil, nil // a Grid holds a projection function
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("trial %d %+v:\n got %+v\nwant %+v", trial, opt, got, want)
			}
		}
	}
}

// TestGridScanChangedSource checks that a source that changes between the
// two passes is an error, not a wrong grid.
func TestGridScanChangedSource(t *testing.T) {
	cs := messyCheckins(rand.New(rand.NewPCG(1, 2)), 100)
	for _, tc := range []struct {
		name   string
		second []Checkin
	}{
		{"shorter", cs[:50]},
		{"longer", append(cs[:len(cs):len(cs)], cs[0])},
		{"new user", append(cs[:len(cs)-1:len(cs)-1], Checkin{User: "newcomer", Point: cs[0].Point})},
	} {
		pass := 0
		_, _, err := GridScan(func(fn func(Checkin) error) (*Result, error) {
			pass++
			src := cs
			if pass == 2 {
				src = tc.second
			}
			for _, c := range src {
				if err := fn(c); err != nil {
					return nil, err
				}
			}
			return &Result{}, nil
		}, GridOptions{CellKm: 1, PerUser: All})
		if err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

// TestScanCheckinsStreams checks that ScanCheckins hands over what
// ReadCheckins keeps, and stops on a cancelled context and on fn's error.
func TestScanCheckinsStreams(t *testing.T) {
	var buf bytes.Buffer
	cs := Synthesize(rand.New(rand.NewPCG(3, 3)), SanFrancisco, SynthOptions{
		Users: 500, MeanCheckins: 8, VenuesPerSpot: 5, HomeShare: 0.5, Bound: FWBound,
		Start: time.Unix(1e9, 0), End: time.Unix(1e9+1e7, 0)})
	if err := WriteSNAP(&buf, cs); err != nil {
		t.Fatal(err)
	}
	want, err := ReadCheckins(bytes.NewReader(buf.Bytes()), Auto, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []Checkin
	res, err := ScanCheckins(context.Background(), bytes.NewReader(buf.Bytes()), Auto, Options{}, func(c Checkin) error {
		got = append(got, c)
		return nil
	})
	if err != nil || res.Checkins != nil || res.Lines != want.Lines || res.Format != SNAP {
		t.Fatalf("scan: %+v, %v", res, err)
	}
	if !reflect.DeepEqual(got, want.Checkins) {
		t.Error("ScanCheckins and ReadCheckins differ")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ScanCheckins(ctx, bytes.NewReader(buf.Bytes()), Auto, Options{}, func(Checkin) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled scan: %v", err)
	}
	stop := fmt.Errorf("enough")
	n := 0
	if _, err := ScanCheckins(context.Background(), bytes.NewReader(buf.Bytes()), Auto, Options{}, func(Checkin) error {
		if n++; n == 10 {
			return stop
		}
		return nil
	}); !errors.Is(err, stop) || n != 10 {
		t.Errorf("fn's error: %v after %d", err, n)
	}
}
