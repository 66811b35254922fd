package geo

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/paulmach/orb"
)

// A Scan reads a check-in source from its beginning, handing every
// check-in to fn, and returns what it read: typically ScanCheckins over a
// file opened afresh. GridScan calls it once, or twice (opt.Passes) when
// it must fit the box to data it has to bin afterwards.
type Scan func(fn func(Checkin) error) (*Result, error)

// Passes returns how many times GridScan reads the source under opt: once
// when the box is given or when one check-in per user is kept without
// home cells, twice when the box must be fitted to every check-in (All)
// or home cells are asked for before the box is known. Home cells take
// one pass more when the file does not list each user's check-ins
// together (SNAP files do).
func (opt GridOptions) Passes() int {
	if opt.Bound == (orb.Bound{}) && (opt.limit() == 0 || opt.Home) {
		return 2
	}
	return 1
}

// limit returns how many check-ins of each person the rule keeps: 1
// under First, MaxPerUser under All with a bound, 0 for every one.
func (opt GridOptions) limit() int {
	switch {
	case opt.PerUser == First:
		return 1
	case opt.PerUser == All && opt.MaxPerUser > 0:
		return opt.MaxPerUser
	}
	return 0
}

// GridScan grids the check-ins that scan reads as GridCheckins grids a
// slice, with the same result, but keeps no record: only the state of
// each user (the id, the first check-ins kept under First or a bound, the
// home cell under Home) and the cell and person of each datum kept. So a file of any size is gridded
// in memory bounded by its users and data, not its lines. (Home cells of
// a file whose users' check-ins are not together need a map of every
// user's cells, bounded by the distinct (user, cell) pairs.) It returns
// the Result of the last scan.
func GridScan(scan Scan, opt GridOptions) (*Gridded, *Result, error) {
	s := &gridder{opt: opt, ids: make(map[string]int32), limit: opt.limit()}
	res, err := s.read(scan)
	if err != nil {
		return nil, nil, err
	}
	data := s.records
	if s.limit > 0 {
		data = s.binKept()
	}
	outside := data - len(s.cells)
	if outside == data {
		b := s.grid.Bound
		return nil, nil, fmt.Errorf("geo: all %d data lie outside the box %v..%v", data, b.Min, b.Max)
	}
	gd := &Gridded{
		Grid: s.grid, Counts: s.counts, Cells: s.cells,
		Records: s.records, Users: s.persons + s.anon, Data: data, Outside: outside,
		Rule: opt.PerUser, Limit: opt.MaxPerUser, Alike: s.alike, AlikeExample: s.alikeExample,
	}
	if opt.PerUser != All {
		gd.Limit = 0
	}
	gd.People, gd.MaxPerPerson = s.people()
	if opt.Home {
		s.settle()
		if s.unordered {
			if err := s.homesAgain(scan); err != nil {
				return nil, nil, err
			}
		}
		gd.Homes = s.homes()
	}
	return gd, res, nil
}

// read reads the source once, with the grid when the box is given, or
// to fit the box and then again when the data must be binned afterwards.
func (s *gridder) read(scan Scan) (*Result, error) {
	if s.opt.Bound != (orb.Bound{}) {
		g, err := NewGrid(s.opt.Bound, s.opt.CellKm)
		if err != nil {
			return nil, err
		}
		s.grid = g
		s.startBins()
	}
	res, err := scan(s.first)
	if err != nil {
		return nil, err
	}
	if s.records == 0 {
		return nil, errors.New("geo: no check-ins to grid")
	}
	if s.grid != nil {
		return res, nil
	}
	if err := s.fitGrid(); err != nil {
		return nil, err
	}
	if s.opt.Passes() == 2 {
		return s.rescan(scan, s.again)
	}
	return res, nil
}

// rescan reads the source again with fn, which counts the records in
// s.order, and checks that it holds the records of the first scan.
func (s *gridder) rescan(scan Scan, fn func(Checkin) error) (*Result, error) {
	s.order = 0
	res, err := scan(fn)
	if err != nil {
		return nil, err
	}
	if s.order != s.records {
		return nil, fmt.Errorf("geo: the source changed while it was read: %d check-ins, then %d", s.records, s.order)
	}
	return res, nil
}

// known returns the id the first scan gave user, −1 for an anonymous
// check-in, and an error for a user it did not see.
func (s *gridder) known(user string) (int32, error) {
	if user == "" {
		return -1, nil
	}
	id, ok := s.ids[user]
	if !ok {
		return 0, fmt.Errorf("geo: the source changed while it was read: user %q is new", clip(user, 40))
	}
	return id, nil
}

// stamp is a check-in time as seconds and nanoseconds, ordered as
// time.Time.Before orders times without a monotonic reading.
type stamp struct {
	sec  int64
	nsec int32
}

func stampOf(t time.Time) stamp { return stamp{t.Unix(), int32(t.Nanosecond())} }

func (a stamp) before(b stamp) bool { return a.sec < b.sec || a.sec == b.sec && a.nsec < b.nsec }

// firstCheckin is one of a user's first check-ins: the earliest, ties
// going to file order, as FirstPerUser takes the first.
type firstCheckin struct {
	p    orb.Point
	t    stamp
	user int32 // -1 for an anonymous check-in
}

// visit counts a user's check-ins in one cell, for HomeCells' rule.
type visit struct {
	n     int32
	first stamp
	order int
}

// gridder is GridScan's state.
type gridder struct {
	opt  GridOptions
	grid *Grid
	// ids numbers the named users in order of appearance by their ids
	// as written, persons counts them; anon counts the anonymous
	// check-ins, each a user of its own. folded keeps the first id of
	// each folded key (FoldID), the person under PersonFold; alike
	// counts the ids that fold like an earlier, different one.
	ids          map[string]int32
	persons      int
	anon         int
	folded       map[string]foldedID
	alike        int
	alikeExample [2]string
	// records counts the check-ins of the first scan; order the current
	// scan's.
	records, order int
	// limit is how many check-ins of each user are kept (1 under
	// First, 0 for all); kept holds, under a limit, the first check-ins
	// of each user (named or anonymous) by time, in order of first
	// appearance; at[id] is the place of named user id in it.
	limit int
	kept  [][]firstCheckin
	at    []int32
	// box is the box of every check-in, kept under All while the box is
	// to be fitted.
	box orb.Bound
	// counts and cells are the binned data; users the user of each
	// datum in cells (−1 for an anonymous check-in).
	counts, cells []int
	users         []int32
	// Under Home: home[id] is the home cell of user id (−1 if none) once
	// settled; userVisits the visits of user cur, the user being read;
	// visits, for a file whose users are not together (unordered), the
	// visits of user<<32 | cell.
	home       []int32
	settled    []bool
	cur        int32
	userVisits map[int]visit
	unordered  bool
	visits     map[uint64]visit
}

// first is the function of the first scan.
func (s *gridder) first(c Checkin) error {
	id := int32(-1)
	if c.User != "" {
		var ok bool
		if id, ok = s.ids[c.User]; !ok {
			var fresh bool
			if id, fresh, ok = s.newID(c.User); !ok {
				return errors.New("geo: more than 2³¹−1 users")
			}
			if s.limit > 0 && fresh {
				s.at = append(s.at, int32(len(s.kept)))
				s.kept = append(s.kept, []firstCheckin{{c.Point, stampOf(c.Time), id}})
			} else if s.limit > 0 {
				s.keep(s.at[id], firstCheckin{c.Point, stampOf(c.Time), id})
			}
		} else if s.limit > 0 {
			s.keep(s.at[id], firstCheckin{c.Point, stampOf(c.Time), id})
		}
	} else {
		s.anon++
		if s.limit > 0 {
			s.kept = append(s.kept, []firstCheckin{{c.Point, stampOf(c.Time), -1}})
		}
	}
	// The box is fitted to every check-in, whatever the rule keeps, so
	// that grids of one file under different rules line up cell for cell.
	switch {
	case s.grid != nil:
		s.place(c, id)
	case s.records == 0:
		s.box = orb.Bound{Min: c.Point, Max: c.Point}
	default:
		s.box = s.box.Extend(c.Point)
	}
	s.records++
	s.order++
	return nil
}

// foldedID is the first id written of a folded key, and its person.
type foldedID struct {
	first string
	id    int32
}

// newID numbers the id user, not seen before as written: a new person,
// or under PersonFold the person of an earlier id that folds alike.
// It counts the ids that fold like an earlier one, and reports whether
// the person is new; ok is false past 2³¹−1 people.
func (s *gridder) newID(user string) (id int32, fresh, ok bool) {
	user = strings.Clone(user)
	key := FoldID(user)
	if s.folded == nil {
		s.folded = make(map[string]foldedID)
	}
	f, seen := s.folded[key]
	if seen {
		if s.alike == 0 {
			s.alikeExample = [2]string{f.first, user}
		}
		s.alike++
		if s.opt.PersonKey == PersonFold {
			s.ids[user] = f.id
			return f.id, false, true
		}
	}
	if s.persons == 1<<31-1 {
		return 0, false, false
	}
	id = int32(s.persons)
	s.persons++
	s.ids[user] = id
	if !seen {
		s.folded[key] = foldedID{user, id}
	}
	return id, true, true
}

// again is the function of the second scan, once the grid is known.
func (s *gridder) again(c Checkin) error {
	if s.order >= s.records {
		s.order++
		return nil
	}
	id, err := s.known(c.User)
	if err != nil {
		return err
	}
	s.place(c, id)
	s.order++
	return nil
}

// keep adds f to the check-ins kept of the user at place i, which stay
// the limit's earliest by time, ties going to file order.
func (s *gridder) keep(i int32, f firstCheckin) {
	k := s.kept[i]
	if len(k) == s.limit && !f.t.before(k[len(k)-1].t) {
		return
	}
	at := len(k)
	for at > 0 && f.t.before(k[at-1].t) {
		at--
	}
	if len(k) < s.limit {
		k = append(k, firstCheckin{})
	}
	copy(k[at+1:], k[at:])
	k[at] = f
	s.kept[i] = k
}

// place bins check-in c of user id when every check-in is kept, and
// counts its visit under Home.
func (s *gridder) place(c Checkin, id int32) {
	cell, ok := s.grid.Index(c.Point)
	if !ok {
		return
	}
	if s.limit == 0 {
		s.counts[cell]++
		s.cells = append(s.cells, cell)
		s.users = append(s.users, id)
	}
	if s.opt.Home && id >= 0 {
		s.visit(id, cell, stampOf(c.Time))
	}
}

// better reports whether visit v beats b for home, by HomeCells' rule:
// more check-ins, then the earlier first time, then the earlier record.
func better(v, b visit) bool {
	return b.n == 0 || v.n > b.n || v.n == b.n &&
		(v.first.before(b.first) || v.first == b.first && v.order < b.order)
}

// visit counts a check-in of user id in cell at time t. Files list a
// user's check-ins together (SNAP's order), so the visits of one user at
// a time are kept and the user's home settled when the next user starts:
// memory bounded by the cells of one user. A user coming back later
// means the file is in another order: the visits are then counted afresh
// in one map of every (user, cell) by another scan (homesAgain).
func (s *gridder) visit(id int32, cell int, t stamp) {
	if s.unordered {
		if s.visits == nil {
			return // counted by homesAgain
		}
		k := uint64(id)<<32 | uint64(cell)
		v := s.visits[k]
		s.visits[k] = s.count(v, t)
		return
	}
	for int(id) >= len(s.home) { // users are numbered as they come
		s.home, s.settled = append(s.home, -1), append(s.settled, false)
	}
	if id != s.cur {
		s.settle()
		if s.settled[id] {
			s.unordered = true
			return
		}
		s.cur = id
	}
	s.userVisits[cell] = s.count(s.userVisits[cell], t)
}

// count adds a check-in at time t, the current record, to v.
func (s *gridder) count(v visit, t stamp) visit {
	if v.n == 0 {
		return visit{n: 1, first: t, order: s.order}
	}
	v.n++
	if t.before(v.first) {
		v.first, v.order = t, s.order
	}
	return v
}

// settle fixes the home of the current user from its visits.
func (s *gridder) settle() {
	if s.cur < 0 {
		return
	}
	var best visit
	for cell, v := range s.userVisits {
		if better(v, best) {
			best, s.home[s.cur] = v, int32(cell)
		}
	}
	s.settled[s.cur] = true
	clear(s.userVisits)
	s.cur = -1
}

func (s *gridder) startBins() {
	s.counts = make([]int, s.grid.Len())
	if s.opt.Home {
		s.cur = -1
		s.userVisits = make(map[int]visit)
	}
}

// fitGrid makes the grid over the box of every check-in read, whatever
// the per-person rule keeps of them.
func (s *gridder) fitGrid() error {
	b := s.box
	if !(b.Min[0] < b.Max[0] && b.Min[1] < b.Max[1]) {
		return fmt.Errorf("geo: the %d check-ins span no area (%v to %v); give a bounding box", s.records, b.Min, b.Max)
	}
	g, err := NewGrid(b, s.opt.CellKm)
	if err != nil {
		return err
	}
	s.grid = g
	s.startBins()
	return nil
}

// binKept bins the check-ins kept, user by user in order of first
// appearance and each user's by time, and returns how many were kept.
func (s *gridder) binKept() int {
	n := 0
	for _, k := range s.kept {
		n += len(k)
	}
	s.cells = make([]int, 0, n)
	for _, k := range s.kept {
		for _, f := range k {
			if cell, ok := s.grid.Index(f.p); ok {
				s.counts[cell]++
				s.cells = append(s.cells, cell)
				s.users = append(s.users, f.user)
			}
		}
	}
	s.kept = nil
	return n
}

// people numbers the person of every datum, parallel to cells: the named
// users with data kept 0, 1, … in order of appearance, then each
// anonymous check-in a person of its own, so that users whose check-ins
// the box dropped leave no gap (a study's people are 0…P−1). It returns
// the numbers and the most data of one person.
func (s *gridder) people() ([]int, int) {
	rank := make([]int32, s.persons)
	for _, id := range s.users {
		if id >= 0 {
			rank[id] = 1
		}
	}
	next := 0
	for id, kept := range rank {
		rank[id] = int32(next)
		next += int(kept)
	}
	out := make([]int, len(s.cells))
	per := make(map[int]int)
	most := 0
	for i, id := range s.users {
		p := next
		if id >= 0 {
			p = int(rank[id])
		} else {
			next++
		}
		out[i] = p
		per[p]++
		most = max(most, per[p])
	}
	return out, most
}

// homes returns the home cell of every datum's user, parallel to cells,
// by HomeCells' rule: the cell of most of the user's check-ins inside the
// grid, ties going to the cell checked in at first (by time, then order).
func (s *gridder) homes() []int {
	out := make([]int, len(s.cells))
	for i, cell := range s.cells {
		out[i] = cell
		if id := s.users[i]; id >= 0 {
			out[i] = int(s.home[id])
		}
	}
	return out
}

// homesAgain counts the visits of every (user, cell) in one map by another
// scan, for a file whose users are not listed together, and settles
// every home from them.
func (s *gridder) homesAgain(scan Scan) error {
	s.visits = make(map[uint64]visit)
	if _, err := s.rescan(scan, func(c Checkin) error {
		id, err := s.known(c.User)
		if err != nil {
			return err
		}
		if cell, ok := s.grid.Index(c.Point); ok && id >= 0 {
			s.visit(id, cell, stampOf(c.Time))
		}
		s.order++
		return nil
	}); err != nil {
		return err
	}
	best := make([]visit, s.persons)
	s.home = slices.Repeat([]int32{-1}, s.persons)
	for k, v := range s.visits {
		id, cell := k>>32, int32(k&(1<<32-1))
		if better(v, best[id]) {
			best[id], s.home[id] = v, cell
		}
	}
	s.visits = nil
	return nil
}
