package gui

import (
	"strconv"

	"github.com/privmap/privmap/app/studyfile"
	"github.com/privmap/privmap/core"
	"github.com/privmap/privmap/geo"
	"github.com/privmap/privmap/geo/census"
)

// A dataset is the data loaded on the Data screen: check-ins on a grid,
// or a census table over chosen attributes — one of the two. What the
// window asks of a data set whatever its kind is the datasetKind both
// answer, here; only the views that draw a map or a table choose by
// kind.
type dataset struct {
	src     source
	skipBad bool // malformed lines were skipped
	*checkins
	*tabulated
}

// checkins are check-ins read and gridded.
type checkins struct {
	res       *geo.Result
	grid      *geo.Gridded
	fitted    bool // the box was fitted to the data
	regridded bool // the data were gridded again, not loaded
}

// tabulated is a census table.
type tabulated struct {
	table    *census.Table
	alphabet core.Alphabet // of the table
	choice   censusChoice  // that made the table
}

// A datasetKind is what the window asks of a data set whatever its kind.
type datasetKind interface {
	// studyAlphabet returns the alphabet of a study of the data.
	studyAlphabet() core.Alphabet
	// skippedLines returns how many malformed lines were skipped and
	// the reasons kept.
	skippedLines() (int, []*geo.ParseError)
	// users returns a run's users: each one's datum, the true
	// distribution, and their personal cells by semantic tag.
	users() (data []int, truth []float64, personal map[string][]int)
	// countTable returns the counts of the cells or categories with
	// their descriptive columns, as a release writes them.
	countTable() *core.CountTable
	// studySource records, for a study file, where the data came from
	// (src) and how they were read and binned.
	studySource(src source) *studyfile.Source
	// persons returns the people in the data and the most data of one.
	persons() (people, most int)
	// personStudy returns the data as a study's data: each datum's
	// symbol, its person and the bound each person's data were selected
	// under, for a release's sensitivity (guarantee.StudyCounts).
	personStudy() *core.Study
}

// kind returns what ds is: its checkins or its tabulated table.
func (ds *dataset) kind() datasetKind {
	if ds.tabulated != nil {
		return ds.tabulated
	}
	return ds.checkins
}

// isCensus reports whether ds is a census table, for the views that
// draw a table rather than a map.
func (ds *dataset) isCensus() bool { return ds.tabulated != nil }

func (ds *dataset) studyAlphabet() core.Alphabet           { return ds.kind().studyAlphabet() }
func (ds *dataset) skippedLines() (int, []*geo.ParseError) { return ds.kind().skippedLines() }
func (ds *dataset) countTable() *core.CountTable           { return ds.kind().countTable() }
func (ds *dataset) studySource() *studyfile.Source         { return ds.kind().studySource(ds.src) }
func (ds *dataset) users() ([]int, []float64, map[string][]int) {
	return ds.kind().users()
}
func (ds *dataset) persons() (int, int)      { return ds.kind().persons() }
func (ds *dataset) personStudy() *core.Study { return ds.kind().personStudy() }

func (c *checkins) personStudy() *core.Study { return c.grid.Study(c.res.NoPerson) }

// personStudy: each census record is one person.
func (t *tabulated) personStudy() *core.Study {
	return &core.Study{Alphabet: t.alphabet, Data: t.table.Data, MaxPerPerson: 1}
}

func (c *checkins) persons() (int, int) { return c.grid.Users, c.grid.MaxPerPerson }

// persons: each census record is one person.
func (t *tabulated) persons() (int, int) { return len(t.table.Data), min(1, len(t.table.Data)) }

func (c *checkins) studyAlphabet() core.Alphabet { return c.grid.Grid.Alphabet() }

func (c *checkins) skippedLines() (int, []*geo.ParseError) { return c.res.Skipped, c.res.Errors }

// users gives each user's home cell, when known: what a PUM maps to its
// tag "home", and by default the background its estimator spreads the
// tag's mass with (ULDP §5).
func (c *checkins) users() ([]int, []float64, map[string][]int) {
	var personal map[string][]int
	if c.grid.Homes != nil {
		personal = map[string][]int{"home": c.grid.Homes}
	}
	return c.grid.Cells, c.grid.Distribution(), personal
}

// countTable gives a grid's cells as privmap grid writes them: row,
// column and centre.
func (c *checkins) countTable() *core.CountTable {
	t := &core.CountTable{Values: map[int][]string{}}
	g := c.grid.Grid
	t.Extra = []string{"row", "col", "lat", "lon"}
	for x, n := range c.grid.Counts {
		t.Counts = append(t.Counts, float64(n))
		row, col := g.RowCol(x)
		ctr := g.CellBound(x).Center()
		t.Values[x] = []string{strconv.Itoa(row), strconv.Itoa(col), strconv.FormatFloat(ctr[1], 'f', 6, 64), strconv.FormatFloat(ctr[0], 'f', 6, 64)}
	}
	return t
}

func (c *checkins) studySource(src source) *studyfile.Source {
	s := studyfile.GridSource(src.path, c.res.Format, src.mapping, c.grid)
	s.BlankPerson = src.blank
	if src.personKey == geo.PersonFold {
		s.PersonKey = src.personKey
	}
	if in := src.layout; in != nil {
		s.Format, s.Venues, s.Reviews = in.Format.String(), in.Venues, in.Reviews
	}
	return s
}

func (t *tabulated) studyAlphabet() core.Alphabet { return t.alphabet }

func (t *tabulated) skippedLines() (int, []*geo.ParseError) { return t.table.Skipped, t.table.Errors }

func (t *tabulated) users() ([]int, []float64, map[string][]int) {
	return t.table.Data, t.table.Distribution(), nil
}

// countTable gives each category's count with its label.
func (t *tabulated) countTable() *core.CountTable {
	ct := &core.CountTable{Values: map[int][]string{}, Extra: []string{"label"}}
	for _, c := range t.table.Counts() {
		ct.Counts = append(ct.Counts, float64(c))
	}
	for x, l := range t.alphabet.Labels {
		ct.Values[x] = []string{l}
	}
	return ct
}

func (t *tabulated) studySource(src source) *studyfile.Source {
	return studyfile.CensusSource(src.path, t.table.Format, t.choice.attrs, t.choice.missing)
}
