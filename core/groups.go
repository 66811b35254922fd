package core

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// A Group is Count users of mechanism Mech (an index into the study's
// mechanisms) who sent the same report. Estimators work on groups, so
// that an iteration costs the same for a thousand users as for a million
// (FW §6).
type Group struct {
	Mech   int
	Report Report
	Count  int
}

// Groups are the reports of a study's users, grouped.
type Groups struct {
	// List holds one group per (mechanism, report) seen, in the order of
	// mechanism and then report (symbol, or bit vector), whatever the
	// order the reports came in: per-user and aggregated reports of the
	// same users give the same groups, and so bit-identical estimates.
	List []Group
	// Users holds n^A, the number of users of each mechanism.
	Users []int
}

// N returns the number of users n = Σ n^A.
func (g *Groups) N() int { return sum(g.Users) }

func newGroups(mechs int) *Groups { return &Groups{Users: make([]int, mechs)} }

// add counts c more users of mechanism j who reported r; index finds an
// existing group.
func (g *Groups) add(index map[Group]int, j int, r Report, c int) {
	key := Group{Mech: j, Report: r}
	if i, ok := index[key]; ok {
		g.List[i].Count += c
	} else {
		index[key] = len(g.List)
		g.List = append(g.List, Group{Mech: j, Report: r, Count: c})
	}
	g.Users[j] += c
}

// GroupReports groups reports: reports[i] sent by a user of mechanism
// mech[i], of mechs mechanisms.
func GroupReports(mechs int, mech []int, reports []Report) *Groups {
	g := newGroups(mechs)
	index := make(map[Group]int)
	for i, r := range reports {
		g.add(index, mech[i], r, 1)
	}
	g.sort()
	return g
}

// sort orders the groups by mechanism and report.
func (g *Groups) sort() {
	slices.SortFunc(g.List, func(a, b Group) int {
		return cmp.Or(cmp.Compare(a.Mech, b.Mech), cmp.Compare(a.Report.Seed, b.Report.Seed), cmp.Compare(a.Report.Symbol, b.Report.Symbol),
			cmp.Compare(a.Report.Bits.n, b.Report.Bits.n), strings.Compare(a.Report.Bits.data, b.Report.Bits.data))
	})
}

// ReadReports reads a reports file (docs/FILES.md) of the study s
// whose mechanisms are built as mechs: a CSV with header mechanism,report and
// optionally a leading user column (one row per user), or
// mechanism,report,count (aggregated). Errors carry the line.
func ReadReports(r io.Reader, s *Study, mechs []Mechanism) (*Groups, error) {
	var t *ReportTable
	err := readRecords(r, "reports", func(head []string) (err error) {
		t, err = NewReportTable(head, s, mechs)
		if err != nil {
			err = fmt.Errorf("line 1: %w", err)
		}
		return err
	}, func(rec []string) error { return t.Add(rec) })
	if err != nil {
		return nil, err
	}
	return t.Groups()
}

// MaxReports bounds the users of a reports table, 2⁵³, so that every
// count and sum of counts is exact in a float64.
const MaxReports = 1 << 53

// A ReportTable groups the rows of a reports table as they are read, from
// a CSV file (ReadReports) or a columnar one: rows of mechanism, report
// and, in an aggregated table, count, in any column order.
type ReportTable struct {
	head  []string
	rr    *reportReader
	g     *Groups
	index map[Group]int
}

// NewReportTable starts a reports table of the study s, whose mechanisms
// are built as mechs, with the column names head: mechanism and report,
// optionally count and any other (such as user), case and spaces aside.
func NewReportTable(head []string, s *Study, mechs []Mechanism) (*ReportTable, error) {
	rr, err := newReportReader(head, s, mechs)
	if err != nil {
		return nil, err
	}
	return &ReportTable{head: slices.Clone(head), rr: rr, g: newGroups(len(mechs)), index: make(map[Group]int)}, nil
}

// Columns returns the column names the table was started with.
func (t *ReportTable) Columns() []string { return t.head }

// Add counts one row, its fields in the order of the header.
func (t *ReportTable) Add(rec []string) error {
	j, rep, c, err := t.rr.row(rec)
	if err != nil || c == 0 {
		return err
	}
	if c > MaxReports-t.g.N() {
		return fmt.Errorf("count %d brings the reports beyond 2⁵³", c)
	}
	t.g.add(t.index, j, rep, c)
	return nil
}

// Groups returns the groups counted, in the order of mechanism and
// report, or an error if there was none.
func (t *ReportTable) Groups() (*Groups, error) {
	if t.g.N() == 0 {
		return nil, errors.New("core: reports: no reports")
	}
	t.g.sort()
	return t.g, nil
}

// reportReader parses the rows of a reports file.
type reportReader struct {
	width, mech, report, count int // count −1 without a count column
	ids                        map[string]int
	mechs                      []Mechanism
}

func newReportReader(head []string, s *Study, mechs []Mechanism) (*reportReader, error) {
	col := map[string]int{}
	for i, h := range head {
		col[strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))] = i
	}
	mc, ok1 := col["mechanism"]
	rc, ok2 := col["report"]
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("header %q lacks mechanism and report columns", strings.Join(head, ","))
	}
	rr := &reportReader{width: len(head), mech: mc, report: rc, count: -1, ids: map[string]int{}, mechs: mechs}
	if cc, ok := col["count"]; ok {
		rr.count = cc
	}
	for j, m := range s.Mechanisms {
		rr.ids[m.ID] = j
	}
	return rr, nil
}

// row returns the mechanism, report and count of a row.
func (rr *reportReader) row(rec []string) (int, Report, int, error) {
	if len(rec) != rr.width {
		return 0, Report{}, 0, fmt.Errorf("%d fields, want %d", len(rec), rr.width)
	}
	id := strings.TrimSpace(rec[rr.mech])
	j, ok := rr.ids[id]
	if !ok {
		return 0, Report{}, 0, fmt.Errorf("no mechanism %q in the study", clip(id, 40))
	}
	rep, err := ParseReport(rr.mechs[j], strings.TrimSpace(rec[rr.report]))
	if err != nil {
		return 0, Report{}, 0, fmt.Errorf("mechanism %q: %s", id, strings.TrimPrefix(err.Error(), "core: "))
	}
	c := 1
	if rr.count >= 0 {
		c, err = strconv.Atoi(strings.TrimSpace(rec[rr.count]))
		if err != nil || c < 0 {
			return 0, Report{}, 0, fmt.Errorf("count %q is not a whole number ≥ 0", clip(rec[rr.count], 40))
		}
	}
	return j, rep, c, nil
}

// mechName names mechanism j for errors: its id when the study is known.
// mechKind names the kind of mechanism j of s for errors.
func mechKind(s *Study, j int) MechanismKind {
	if s != nil && j < len(s.Mechanisms) {
		return s.Mechanisms[j].Kind
	}
	return "of another kind"
}

// mechName names mechanism j of s for errors: its id, else its number.
func mechName(s *Study, j int) string {
	if s != nil && j < len(s.Mechanisms) {
		return strconv.Quote(s.Mechanisms[j].ID)
	}
	return strconv.Itoa(j + 1)
}
