package geo

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// delimitedLayout is the record of tab- or comma-separated text with a header
// line that names its columns, or read by a Mapping (layouts).
var delimitedLayout = Layout{Format: Delimited, Name: "delimited", Names: []string{"csv", "tsv", "delimited"},
	Shown: []string{"csv"}, Exts: []string{".csv", ".tsv"}, Read: readDelimited, Tabular: true, Import: true}

// weeplacesLayout names the Weeplaces check-ins' CSV (userid, placeid,
// datetime, lat, lon, city, category), a delimited file whose header
// names are read as they are.
var weeplacesLayout = Layout{Format: Delimited, Names: []string{"weeplaces"}, Shown: []string{"weeplaces"}}

// latLonLayout is the record of headerless "lat,lon" (or tab-separated)
// lines, each a person of its own.
var latLonLayout = Layout{Format: LatLon, Name: "latlon", Names: []string{"latlon"},
	Sniff: func(line string) bool { _, err := parseLatLon(line); return err == nil },
	Line:  parseLatLon, NoPerson: true, Tabular: true, Import: true}

// parseLatLon reads a headerless "lat,lon" line; a tab also separates.
func parseLatLon(line string) (Checkin, error) {
	sep := ","
	if strings.Contains(line, "\t") {
		sep = "\t"
	}
	f := strings.Split(line, sep)
	if len(f) != 2 {
		return Checkin{}, ErrFieldCount
	}
	p, err := parsePoint(f[0], f[1], 1, 2)
	return Checkin{Point: p}, err
}

// columns are the positions of the named columns of a delimited header,
// −1 where absent.
type columns struct {
	lat, lon, user, time, loc int
	// decimalComma: the file separates fields by semicolons, as
	// spreadsheets do where a comma is the decimal mark ("40,5").
	decimalComma bool
	// timeLayout is Mapping.TimeLayout ("": the known forms).
	timeLayout string
	// excelDates reads a number of days from 1 to 2,958,465 in the time
	// column as an Excel date's serial number (a workbook's date cell),
	// not as Unix seconds in January 1970.
	excelDates bool
}

// widest returns the largest column index c reads.
func (c columns) widest() int { return max(c.lat, c.lon, c.user, c.time, c.loc) }

// headerNames lists, per column, the header names that select it, in
// normalForm.
var headerNames = []struct {
	names []string
	set   func(*columns, int)
}{
	// Latitude and longitude also in German, French, Spanish, Italian
	// and Portuguese, as exports in those languages name them.
	{[]string{"lat", "latitude", "breite", "breitengrad", "latitud", "latitudine"}, func(c *columns, i int) { c.lat = i }},
	{[]string{"lon", "lng", "long", "longitude", "länge", "laenge", "längengrad", "longitud", "longitudine"}, func(c *columns, i int) { c.lon = i }},
	{[]string{"user", "userid", "uid", "username", "person", "personid", "member", "memberid"}, func(c *columns, i int) { c.user = i }},
	{[]string{"time", "timestamp", "utctime", "datetime", "checkintime", "date"}, func(c *columns, i int) { c.time = i }},
	{[]string{"loc", "location", "locationid", "venue", "venueid", "poi", "poiid", "placeid", "spotid"}, func(c *columns, i int) { c.loc = i }},
}

// normalForm is a header name as parseHeader compares it: surrounding
// quotes and spaces dropped, a unit in parentheses or brackets dropped
// ("Latitude (WGS84)"), lower case, and spaces, underscores, hyphens and
// dots removed: "User ID", "userId" and "user_id" are all "userid".
func normalForm(name string) string {
	name = strings.Trim(strings.TrimSpace(name), `"'`)
	if i := strings.IndexAny(name, "(["); i > 0 {
		name = name[:i]
	}
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		switch r {
		case ' ', '_', '-', '.', '\t':
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// headerColumns finds the columns of a header, −1 where absent. The first
// match of each kind wins. Names compare in normalForm.
func headerColumns(fields []string) columns {
	c := columns{lat: -1, lon: -1, user: -1, time: -1, loc: -1}
	for i := len(fields) - 1; i >= 0; i-- { // backwards, so that the first match is set last
		name := normalForm(fields[i])
		for _, h := range headerNames {
			if slices.Contains(h.names, name) {
				h.set(&c, i)
			}
		}
	}
	return c
}

// xyHint is the advice for a header with x and y fields, which may be
// projected metres and so are read as degrees only when told to; "" for
// a header without them.
func xyHint(hdr []string) string {
	x, y := XYColumns(hdr)
	if x < 0 || y < 0 {
		return ""
	}
	return fmt.Sprintf("; if %s and %s are longitude and latitude in degrees, say so with -cols lat=%s,lon=%s", hdr[x], hdr[y], hdr[y], hdr[x])
}

// XYColumns returns the 0-based columns of a header named x and y, in
// any case and with a unit ("X (m)"), −1 where absent: coordinates that
// may be projected metres, which privmap reads as degrees only when told
// to (grid's -cols, the import dialog's check box).
func XYColumns(hdr []string) (x, y int) {
	return slices.IndexFunc(hdr, isName("x")), slices.IndexFunc(hdr, isName("y"))
}

// isName returns whether a header field is name in normalForm.
func isName(name string) func(string) bool {
	return func(field string) bool { return normalForm(field) == name }
}

// sniffDelimiter returns the delimiter of a header line: whichever of
// tab, comma, semicolon and pipe occurs most often outside quotes, in
// that order on a tie; a comma when none occurs.
func sniffDelimiter(head string) rune {
	counts := map[rune]int{}
	quoted := false
	for _, r := range head {
		switch {
		case r == '"':
			quoted = !quoted
		case !quoted && strings.ContainsRune("\t,;|", r):
			counts[r]++
		}
	}
	best := ','
	for _, r := range []rune{'|', ';', ',', '\t'} {
		if counts[r] >= counts[best] && counts[r] > 0 {
			best = r
		}
	}
	return best
}

// row converts one record by the header's columns.
func (c columns) row(rec []string, width int) (Checkin, error) {
	if width >= 0 && len(rec) != width || width < 0 && len(rec) <= c.widest() {
		return Checkin{}, ErrFieldCount
	}
	lat, lon := rec[c.lat], rec[c.lon]
	if c.decimalComma {
		lat, lon = decimalPoint(lat), decimalPoint(lon)
	}
	p, err := parsePoint(lat, lon, c.lat+1, c.lon+1)
	if err != nil {
		return Checkin{}, err
	}
	ck := Checkin{Point: p}
	if c.user >= 0 {
		ck.User = strings.TrimSpace(rec[c.user])
	}
	if c.loc >= 0 {
		ck.Location = strings.TrimSpace(rec[c.loc])
	}
	if c.time >= 0 && c.excelDates {
		if t, ok := excelTime(rec[c.time]); ok {
			ck.Time = t
			return ck, nil
		}
	}
	if c.time >= 0 {
		t, err := timeParser(c.timeLayout)(rec[c.time])
		if err != nil {
			return Checkin{}, &fieldErr{c.time + 1, err}
		}
		ck.Time = t
	}
	return ck, nil
}

// readDelimited reads a header line and the records under it with
// encoding/csv, so that quoted fields (venue names with commas) work.
// The delimiter is sniffed from the header (sniffDelimiter) unless the
// mapping gives it.
func readDelimited(lr *lineReader, res *Result, opt Options) error {
	head, err := lr.peekDataLine()
	if err != nil {
		return err
	}
	m := opt.Mapping
	comma := sniffDelimiter(head)
	if m != nil && m.Delim != 0 {
		comma = m.Delim
	}
	res.Delimiter = comma
	res.preview.previewDelimiter(comma)
	cr := csv.NewReader(&lineSource{lr: lr})
	cr.Comma = comma
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true
	cr.ReuseRecord = true
	src := &csvRecords{cr: cr, headLine: lr.line}
	// With semicolons a comma is the decimal mark ("40,5"), as
	// spreadsheets write it.
	return readRecords(src, res, opt, table{how: "split at " + DelimiterName(comma), decimalComma: comma == ';'})
}

// records yields a table's records: a delimited file's lines or a
// sheet's rows.
type records interface {
	// read returns the next record and its 1-based line (or row)
	// number, io.EOF after the last; a *rowError for a malformed
	// record, which may be skipped; any other error stops the reading.
	read() ([]string, int, error)
}

// rowError is a record that could not be split.
type rowError struct{ err error }

func (e *rowError) Error() string { return e.err.Error() }

// csvRecords are the records of a delimited file whose first data line
// is headLine.
type csvRecords struct {
	cr       *csv.Reader
	headLine int
}

func (s *csvRecords) read() ([]string, int, error) {
	rec, err := s.cr.Read()
	if pe := (*csv.ParseError)(nil); errors.As(err, &pe) {
		return nil, pe.Line + s.headLine - 1, &rowError{pe.Err}
	}
	if err != nil {
		return nil, 0, err
	}
	line, _ := s.cr.FieldPos(0)
	return rec, line + s.headLine - 1, nil
}

// A table says how a table's records are read beyond their columns.
type table struct {
	// how says how the header's fields were found, for the error of a
	// header without coordinates ("split at commas").
	how string
	// decimalComma reads "40,5" as 40.5; excelDates reads date cells
	// (columns.excelDates).
	decimalComma, excelDates bool
}

// readRecords reads a header record and the records under it.
func readRecords(src records, res *Result, opt Options, t table) error {
	first, headLine, err := src.read()
	if err == io.EOF {
		return fmt.Errorf("geo: %w", ErrEmpty)
	}
	var re *rowError
	if errors.As(err, &re) {
		return &ParseError{Line: headLine, Err: re.err}
	}
	if err != nil {
		return err
	}
	cols, width, err := firstLine(first, opt.Mapping, t.how)
	if err != nil {
		return &ParseError{Line: headLine, Err: err}
	}
	res.NoPerson, res.hasPerson = cols.user < 0, cols.user >= 0
	cols.decimalComma, cols.excelDates = t.decimalComma, t.excelDates
	res.preview.previewHeader(first, width >= 0, cols)
	if width < 0 { // no header: the first line is data
		c, err := cols.row(first, width)
		res.preview.previewRow(headLine, first, c, err)
		if err := res.record(headLine, c, err, opt.SkipBad); err != nil {
			return err
		}
	}
	for {
		rec, line, err := src.read()
		if err == io.EOF {
			return nil
		}
		var c Checkin
		if errors.As(err, &re) {
			err = re.err
		} else if err != nil {
			return err
		} else {
			c, err = cols.row(rec, width)
		}
		res.preview.previewRow(line, rec, c, err)
		if err := res.record(line, c, err, opt.SkipBad); err != nil {
			return err
		}
	}
}

// firstLine reads a delimited file's first line as its header, or as
// data when the mapping m says there is none (HeaderNo, or HeaderAuto and
// the mapped coordinate columns hold coordinates): the columns and the
// fields a record must have, −1 (at least the mapped ones) without a
// header.
func firstLine(first []string, m *Mapping, how string) (columns, int, error) {
	header := m == nil || m.Header == HeaderYes || m.Header == HeaderAuto && !m.numbered(first)
	c := columns{lat: -1, lon: -1, user: -1, time: -1, loc: -1}
	width := -1
	if header {
		c, width = headerColumns(first), len(first)
	}
	if err := m.applyTo(&c, first, header); err != nil {
		return c, 0, err
	}
	switch {
	case (c.lat < 0 || c.lon < 0) && !header:
		return c, 0, fmt.Errorf("%w: the file has no header: give lat and lon by number (-cols lat=N,lon=M)", ErrMapping)
	case c.lat < 0 || c.lon < 0:
		shown := make([]string, len(first))
		for i, h := range first {
			shown[i] = strings.TrimSpace(h)
		}
		return c, 0, fmt.Errorf("%w (the header's %d fields %s: %s)%s", ErrNoColumns, len(first), how, clip(strings.Join(shown, " · "), 60), xyHint(shown))
	case header && c.widest() >= width:
		return c, 0, fmt.Errorf("%w: column %d is mapped, but the header has %d fields", ErrMapping, c.widest()+1, width)
	}
	return c, width, nil
}

// lineSource feeds encoding/csv from a lineReader, so that BOM handling,
// CRLF, the line limit and the peeked header are shared with the other
// formats. csv skips the blank lines itself.
type lineSource struct {
	lr  *lineReader
	buf []byte
}

func (s *lineSource) Read(p []byte) (int, error) {
	for len(s.buf) == 0 {
		line, err := s.lr.next()
		if err != nil {
			return 0, err
		}
		s.buf = append(s.buf[:0], line...)
		s.buf = append(s.buf, '\n')
	}
	n := copy(p, s.buf)
	s.buf = s.buf[n:]
	return n, nil
}

// DelimiterName names a delimiter in the plural, for messages and
// summaries: "commas", "semicolons", "tabs", "pipes", or the character
// quoted.
func DelimiterName(r rune) string {
	switch r {
	case ',':
		return "commas"
	case '\t':
		return "tabs"
	case ';':
		return "semicolons"
	case '|':
		return "pipes"
	}
	return strconv.QuoteRune(r)
}

// NoPersonNote says what a file without a person column means
// (Result.NoPerson), as grid and the Data screen print it.
const NoPersonNote = "no person column: every row is treated as a person"

// decimalPoint turns one decimal comma into a point ("40,5" → "40.5")
// in a number that has no point.
func decimalPoint(s string) string {
	if strings.Count(s, ",") == 1 && !strings.Contains(s, ".") {
		return strings.Replace(s, ",", ".", 1)
	}
	return s
}
