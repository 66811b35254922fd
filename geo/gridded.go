package geo

import (
	"errors"
	"fmt"
	"strings"

	"github.com/paulmach/orb"
)

// A PerUser rule says which check-ins of a user become data.
type PerUser int

const (
	// First keeps each user's first check-in (FirstPerUser).
	First PerUser = iota
	// All keeps every check-in.
	All
)

func (p PerUser) String() string {
	if p == All {
		return "all"
	}
	return "first"
}

// ParsePerUser parses "first" or "all".
func ParsePerUser(s string) (PerUser, error) {
	switch strings.ToLower(s) {
	case "first", "":
		return First, nil
	case "all":
		return All, nil
	}
	return First, fmt.Errorf("geo: per-user rule %q: want first or all", s)
}

// GridOptions say how GridCheckins bins a data set.
type GridOptions struct {
	// Bound is the box; the zero Bound means the data's own box.
	Bound orb.Bound
	// CellKm is the cell side in kilometres.
	CellKm float64
	// PerUser selects the data of each user.
	PerUser PerUser
}

// Gridded is a data set binned into a grid.
type Gridded struct {
	Grid *Grid
	// Counts holds the number of data in each cell.
	Counts []int
	// Cells holds the cell of every datum inside the grid, in data order.
	Cells []int
	// Records is the number of check-ins given, Users the distinct users
	// among them, Data the number kept by the per-user rule, Outside how
	// many of those fell outside the box. Data − Outside are counted.
	Records, Users, Data, Outside int
	// Rule is the per-user rule the data were selected by.
	Rule PerUser
}

// N returns the number of data inside the grid.
func (g *Gridded) N() int { return g.Data - g.Outside }

// Distribution returns the true distribution over the cells.
func (g *Gridded) Distribution() []float64 { return Distribution(g.Counts) }

// GridCheckins selects each user's data by opt.PerUser and bins it.
func GridCheckins(cs []Checkin, opt GridOptions) (*Gridded, error) {
	if len(cs) == 0 {
		return nil, errors.New("geo: no check-ins to grid")
	}
	data := cs
	if opt.PerUser == First {
		data = FirstPerUser(cs)
	}
	b := opt.Bound
	if b == (orb.Bound{}) {
		b = BoundOf(data)
		if !(b.Min[0] < b.Max[0] && b.Min[1] < b.Max[1]) {
			return nil, fmt.Errorf("geo: the %d data span no area (%v to %v); give a bounding box", len(data), b.Min, b.Max)
		}
	}
	g, err := NewGrid(b, opt.CellKm)
	if err != nil {
		return nil, err
	}
	counts, cells := g.Bin(data)
	outside := len(data) - len(cells)
	if outside == len(data) {
		return nil, fmt.Errorf("geo: all %d data lie outside the box %v..%v", len(data), b.Min, b.Max)
	}
	return &Gridded{
		Grid: g, Counts: counts, Cells: cells,
		Records: len(cs), Users: CountUsers(cs), Data: len(data), Outside: outside,
		Rule: opt.PerUser,
	}, nil
}

// NonEmpty returns the number of cells holding at least one datum.
func (g *Gridded) NonEmpty() int {
	n := 0
	for _, c := range g.Counts {
		if c > 0 {
			n++
		}
	}
	return n
}
