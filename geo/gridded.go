package geo

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/paulmach/orb"
	"github.com/privmap/privmap/core"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
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

// ParseContribution parses privmap grid's -per-user: "first", "all", or
// a whole number K ≥ 1, at most K check-ins per person, the first K by
// time (ties going to file order), returned as All with limit K; 1 is
// "first".
func ParseContribution(s string) (rule PerUser, limit int, err error) {
	if k, err := strconv.Atoi(strings.TrimSpace(s)); err == nil {
		switch {
		case k == 1:
			return First, 0, nil
		case k > 1 && k <= MaxPerUserLimit:
			return All, k, nil
		}
		return First, 0, fmt.Errorf("geo: per-user bound %d: want a whole number from 1 to %d", k, MaxPerUserLimit)
	}
	rule, err = ParsePerUser(s)
	if err != nil {
		err = fmt.Errorf("geo: per-user rule %q: want first, all or a whole number K (at most K check-ins per person)", s)
	}
	return rule, 0, err
}

// MaxPerUserLimit bounds a per-user bound K: beyond it, every person of
// any real data set keeps all her check-ins ("all" says so).
const MaxPerUserLimit = 1_000_000

// RuleText names a per-user rule with its bound as privmap grid's
// -per-user takes it: "first", "all", or K.
func RuleText(rule PerUser, limit int) string {
	if rule == All && limit > 0 {
		return strconv.Itoa(limit)
	}
	return rule.String()
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
	// PerUser selects the data of each user; under All, MaxPerUser > 0
	// keeps at most that many check-ins of each person, the first by time
	// (ties going to file order), so that no person contributes more
	// than MaxPerUser data (the sensitivity of a release of counts).
	PerUser    PerUser
	MaxPerUser int
	// Home asks for each datum's home cell (Gridded.Homes).
	Home bool
	// PersonKey says when two person ids are one person: PersonExact
	// (the default) when equal, PersonFold when equal after Unicode
	// compatibility normalisation (NFKC) and case folding ("Alice",
	// "alice" and "ＡＬＩＣＥ").
	PersonKey string
}

// The person keys of GridOptions.PersonKey.
const (
	PersonExact = "exact"
	PersonFold  = "fold"
)

// FoldID returns a person id's folded key: NFKC-normalised, then case
// folded (Unicode's full case folding), so that ids that differ only in
// case or normal form fold alike.
func FoldID(id string) string { return cases.Fold().String(norm.NFKC.String(id)) }

// Gridded is a data set binned into a grid.
type Gridded struct {
	Grid *Grid
	// Counts holds the number of data in each cell.
	Counts []int
	// Cells holds the cell of every datum inside the grid, in data order.
	Cells []int
	// Homes, when GridOptions.Home asked for it, holds the home cell of
	// every datum's user, parallel to Cells: the cell of most of the
	// user's check-ins inside the box (HomeCells), the personal sensitive
	// datum that PUM maps to the tag "home" (ULDP §5).
	Homes []int
	// Records is the number of check-ins given, Users the distinct users
	// among them, Data the number kept by the per-user rule, Outside how
	// many of those fell outside the box. Data − Outside are counted.
	Records, Users, Data, Outside int
	// Rule is the per-user rule the data were selected by, and Limit
	// its bound under All (0 for none).
	Rule  PerUser
	Limit int
	// People gives the person of every datum, parallel to Cells: the
	// named users numbered 0..Users−1 in order of appearance, then each
	// anonymous check-in a person of its own; MaxPerPerson is the most
	// data of one person in the grid — the sensitivity, in counts, of a
	// release of the cells' counts under add/remove-one-person
	// neighbours.
	People       []int
	MaxPerPerson int
	// Alike counts the person ids that differ from an earlier one only
	// in case or Unicode normal form (FoldID); AlikeExample is the first
	// such pair. Under PersonFold they are that person; else different
	// people, which privmap warns of.
	Alike        int
	AlikeExample [2]string
}

// RuleText names the data's per-user rule as privmap grid's -per-user
// takes it: "first", "all" or K.
func (g *Gridded) RuleText() string { return RuleText(g.Rule, g.Limit) }

// N returns the number of data inside the grid.
func (g *Gridded) N() int { return g.Data - g.Outside }

// Distribution returns the true distribution over the cells.
func (g *Gridded) Distribution() []float64 { return Distribution(g.Counts) }

// GridCheckins selects each user's data by opt.PerUser and bins it.
func GridCheckins(cs []Checkin, opt GridOptions) (*Gridded, error) {
	if len(cs) == 0 {
		return nil, errors.New("geo: no check-ins to grid")
	}
	gd, _, err := GridScan(func(fn func(Checkin) error) (*Result, error) {
		for _, c := range cs {
			if err := fn(c); err != nil {
				return nil, err
			}
		}
		return &Result{Lines: len(cs)}, nil
	}, opt)
	return gd, err
}

// HomeCells returns the home cell of every user of cs with a check-in
// inside the grid: the cell of most of the user's check-ins inside it,
// ties going to the cell the user checked in at first (by time, then
// file order). Taking the most frequent location as home is the usual
// heuristic for check-in data; users of an anonymous check-in (empty User)
// are left out, each such check-in being a user of its own whose home is
// its cell.
func (g *Grid) HomeCells(cs []Checkin) map[string]int {
	type visit struct {
		n     int
		first time.Time
		order int
	}
	visits := make(map[string]map[int]*visit)
	for i, c := range cs {
		cell, ok := g.Index(c.Point)
		if !ok || c.User == "" {
			continue
		}
		byCell := visits[c.User]
		if byCell == nil {
			byCell = make(map[int]*visit)
			visits[c.User] = byCell
		}
		v := byCell[cell]
		if v == nil {
			byCell[cell] = &visit{n: 1, first: c.Time, order: i}
			continue
		}
		v.n++
		if c.Time.Before(v.first) {
			v.first, v.order = c.Time, i
		}
	}
	home := make(map[string]int, len(visits))
	for user, byCell := range visits {
		var best *visit
		for cell, v := range byCell {
			if best == nil || v.n > best.n || v.n == best.n &&
				(v.first.Before(best.first) || v.first.Equal(best.first) && v.order < best.order) {
				best, home[user] = v, cell
			}
		}
	}
	return home
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

// Study returns the study of the gridded data: every datum's cell and
// person, with the most data of one person the per-user rule allows (1
// under First, Limit under All, 0 for no bound). With noPerson, the
// file names no person, so who contributed which datum is not known and
// the study says so rather than number a person per row. Homes, when
// gridded, are the personal data of tag "home" (PUM, ULDP §5).
func (g *Gridded) Study(noPerson bool) *core.Study {
	s := &core.Study{Alphabet: g.Grid.Alphabet(), Data: g.Cells, People: g.People, MaxPerPerson: max(g.Limit, 0)}
	if g.Rule == First {
		s.MaxPerPerson = 1
	}
	if noPerson {
		s.People, s.MaxPerPerson, s.PeopleUnknown = nil, 0, true
	}
	if g.Homes != nil {
		s.Personal = map[string][]int{"home": g.Homes}
	}
	return s
}

// RuleWords names the per-user rule for people: "first", "all", "at
// most K".
func (g *Gridded) RuleWords() string {
	if g.Limit > 0 {
		return fmt.Sprintf("at most %d", g.Limit)
	}
	return g.RuleText()
}

// BoundText says how a release's sensitivity follows from the per-user
// rule: bounded by it, or read off the data when every check-in is kept.
func (g *Gridded) BoundText() string {
	switch {
	case g.Rule == First:
		return " (one each: a count changes by at most 1 when a person is added or removed)"
	case g.Limit > 0:
		return fmt.Sprintf(" (at most %d each: a release's sensitivity Δ = %d)", g.Limit, g.Limit)
	}
	return " (no bound: every check-in kept; bound it with -per-user K before a release)"
}

// AtHome returns how many data lie in their user's home cell, 0 when
// homes were not gridded.
func (g *Gridded) AtHome() int {
	at := 0
	for i, h := range g.Homes {
		if h == g.Cells[i] {
			at++
		}
	}
	return at
}

// WriteTruth writes the gridded data's distribution file
// (docs/FILES.md): cell and probability, with the
// columns count, row, col and the cell centre's lat and lon.
func (g *Gridded) WriteTruth(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"cell", "probability", "count", "row", "col", "lat", "lon"}); err != nil {
		return err
	}
	p := g.Distribution()
	for i, c := range g.Counts {
		r, col := g.Grid.RowCol(i)
		ctr := g.Grid.Center(i)
		rec := []string{
			strconv.Itoa(i),
			strconv.FormatFloat(p[i], 'g', -1, 64),
			strconv.Itoa(c),
			strconv.Itoa(r), strconv.Itoa(col),
			strconv.FormatFloat(ctr[1], 'f', 6, 64),
			strconv.FormatFloat(ctr[0], 'f', 6, 64),
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
