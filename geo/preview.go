package geo

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// A Preview is the first rows of a delimited file as a Mapping reads
// them: what the window's import dialog shows (QGIS's "Add Delimited Text
// Layer" shows the same), so that a person sees each row's outcome
// before the whole file is read.
type Preview struct {
	// Delimiter is the delimiter used, sniffed or mapped.
	Delimiter rune
	// Header holds the header's fields; nil when the first line is data.
	Header []string
	// Columns maps each kind found or mapped (user, lat, lon, time, loc)
	// to its 0-based column.
	Columns map[string]int
	// Width is the most fields of a row shown.
	Width int
	// Latin1 reports that a line shown was not UTF-8 (or that the
	// mapping asks for Latin-1) and was read as Latin-1.
	Latin1 bool
	// Rows are the rows under the header, in order.
	Rows []PreviewRow
	// limit is the rows asked for.
	limit int
	// Guessed reports that the latitude and longitude columns were
	// guessed from the values of a file whose header names none: every
	// line shown holds coordinates in them.
	Guessed bool
	// Sheet is the sheet shown of a workbook, one of its Sheets; "" for
	// a text file.
	Sheet  string
	Sheets []string
	// Err says why the file cannot be read this way (no coordinate
	// columns, a mapped name not in the header); its Rows then hold the
	// fields only. nil when it can.
	Err error
}

// A PreviewRow is one row of a Preview and its outcome.
type PreviewRow struct {
	// Line is the row's 1-based line number in the file.
	Line int
	// Fields are the row's fields as split.
	Fields []string
	// Checkin is what the row reads as, when Err is nil.
	Checkin Checkin
	// Err is why the row would fail (a *ParseError), nil when it reads.
	Err error
}

// PreviewDelimited reads the first n data rows of a delimited file (the
// header not counted) by the mapping m (nil: the guesses alone) and
// returns each row's outcome. Only those lines are read: at most n+1
// lines of maxLine bytes each. Binary files and files with no data
// line are errors, as for ReadCheckins; a file that cannot be read by m
// is not: Preview.Err says why, so that the mapping can be changed.
func PreviewDelimited(r io.Reader, m *Mapping, n int) (*Preview, error) {
	lr := newLineReader(r)
	if m != nil {
		lr.forceLatin1 = m.Latin1
	}
	if isWorkbook(lr.br) {
		return previewWorkbook(lr.br, m, n)
	}
	if err := binaryError(lr.br); err != nil {
		return nil, err
	}
	buf, lines, err := firstLines(lr, n+1)
	if err != nil {
		return nil, err
	}
	mm := Mapping{}
	if m != nil {
		mm = *m
	}
	mm.Latin1 = false // the lines are read already
	p, err := previewLines(buf, &mm)
	if errors.Is(err, ErrNoColumns) && mm.Columns["lat"] == "" && mm.Columns["lon"] == "" {
		p, err = guessCoordinates(buf, lines, mm, p, err)
	}
	p.Latin1 = lr.latin1
	if err != nil && !errors.Is(err, ErrEmpty) {
		p.split(lines, err)
	}
	if len(p.Rows) > n {
		p.Rows = p.Rows[:n]
	}
	return p, nil
}

// previewWorkbook previews the first n rows under the header of a
// workbook's sheet (m.Sheet, or the first). The workbook is held in
// memory, at most MaxWorkbookBytes, so that a sheet whose header cannot
// be read is shown again as its cells.
func previewWorkbook(r io.Reader, m *Mapping, n int) (*Preview, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxWorkbookBytes+1))
	if err != nil {
		return nil, err
	}
	p := &Preview{limit: n}
	res := &Result{sink: func(Checkin) error { return nil }, preview: p}
	_, err = readXLSX(context.Background(), bytes.NewReader(b), res, Options{SkipBad: true, Mapping: m})
	var pe *ParseError
	switch {
	case errors.As(err, &pe) && res.Sheet != "":
		// The header cannot be read so: show the cells as they are.
		p.Err, p.Header, p.Columns, p.Rows = err, nil, nil, nil
		raw := &Preview{limit: n}
		every := &Mapping{Header: HeaderNo, Sheet: res.Sheet, Columns: map[string]string{"lat": "1", "lon": "2"}}
		res = &Result{sink: func(Checkin) error { return nil }, preview: raw, Sheet: res.Sheet}
		_, _ = readXLSX(context.Background(), bytes.NewReader(b), res, Options{SkipBad: true, Mapping: every})
		var recs [][]string
		for _, row := range raw.Rows {
			p.Rows = append(p.Rows, PreviewRow{Line: row.Line, Fields: row.Fields})
			p.Width = max(p.Width, len(row.Fields))
			recs = append(recs, row.Fields)
		}
		if g := guessWorkbook(b, m, recs, res.Sheet, n); g != nil && errors.Is(err, ErrNoColumns) {
			p = g
		}
	case err != nil:
		return nil, err
	}
	p.Sheet = res.Sheet
	if len(p.Rows) > n {
		p.Rows = p.Rows[:n]
	}
	return p, nil
}

// guessWorkbook previews a sheet with the latitude and longitude columns
// coordinatePair finds in its rows recs, when m maps neither; nil when
// none are found or the sheet cannot be read by them.
func guessWorkbook(b []byte, m *Mapping, recs [][]string, sheet string, n int) *Preview {
	g := Mapping{Sheet: sheet}
	if m != nil {
		g = *m
		g.Sheet = sheet
	}
	lat, lon, ok := coordinatePair(recs)
	if !ok || g.Columns["lat"] != "" || g.Columns["lon"] != "" {
		return nil
	}
	g.Columns = withCoordinates(g.Columns, lat, lon)
	p := &Preview{limit: n, Guessed: true}
	res := &Result{sink: func(Checkin) error { return nil }, preview: p}
	if _, err := readXLSX(context.Background(), bytes.NewReader(b), res, Options{SkipBad: true, Mapping: &g}); err != nil {
		return nil
	}
	return p
}

// firstLines reads lines until n are not blank: their text (blank lines
// kept, so that line numbers hold) and the non-blank ones.
func firstLines(lr *lineReader, n int) ([]byte, []string, error) {
	var buf bytes.Buffer
	var lines []string
	for len(lines) < n {
		s, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		buf.WriteString(s)
		buf.WriteByte('\n')
		if !isBlank(s) {
			lines = append(lines, s)
		}
	}
	if len(lines) == 0 {
		return nil, nil, fmt.Errorf("geo: %w", ErrEmpty)
	}
	return buf.Bytes(), lines, nil
}

// guessCoordinates previews buf with the latitude and longitude columns
// that coordinateColumns finds in lines, when no header names them; p
// and err, the preview without them, when none are found.
func guessCoordinates(buf []byte, lines []string, m Mapping, p *Preview, err error) (*Preview, error) {
	lat, lon, ok := coordinateColumns(lines, p.Delimiter)
	if !ok {
		return p, err
	}
	m.Columns = withCoordinates(m.Columns, lat, lon)
	gp, gerr := previewLines(buf, &m)
	if gerr != nil {
		return p, err
	}
	gp.Guessed = true
	return gp, nil
}

// split shows lines split at the delimiter, as a file that cannot be
// read for err.
func (p *Preview) split(lines []string, err error) {
	p.Err, p.Header, p.Columns, p.Rows = err, nil, nil, nil
	if p.Delimiter == 0 {
		p.Delimiter = sniffDelimiter(lines[0])
	}
	cr := csv.NewReader(strings.NewReader(strings.Join(lines, "\n")))
	cr.Comma, cr.FieldsPerRecord, cr.LazyQuotes = p.Delimiter, -1, true
	for i := range lines {
		rec, err := cr.Read()
		if err != nil && rec == nil {
			rec = []string{lines[i]}
		}
		p.Rows = append(p.Rows, PreviewRow{Fields: rec})
		p.Width = max(p.Width, len(rec))
	}
}

// previewLines previews the lines of buf by m: the Preview and the
// error that stopped the reading, nil when it read.
func previewLines(buf []byte, m *Mapping) (*Preview, error) {
	p := &Preview{}
	res := &Result{sink: func(Checkin) error { return nil }, preview: p}
	_, err := scan(context.Background(), bytes.NewReader(buf), Delimited, Options{SkipBad: true, Mapping: m}, res)
	return p, err
}

// coordinateColumns finds two neighbouring columns that hold a latitude
// and a longitude, each written with a decimal point, on every line:
// the leftmost such pair, 0-based. A first line naming x and y gives
// none.
func coordinateColumns(lines []string, delim rune) (lat, lon int, ok bool) {
	var recs [][]string
	for _, l := range lines {
		cr := csv.NewReader(strings.NewReader(l))
		cr.Comma, cr.LazyQuotes = delim, true
		rec, err := cr.Read()
		if err != nil {
			return 0, 0, false
		}
		recs = append(recs, rec)
	}
	return coordinatePair(recs)
}

// coordinatePair is coordinateColumns over records: over all of them,
// or, the first being a header whose names are not known, the others.
func coordinatePair(recs [][]string) (lat, lon int, ok bool) {
	if len(recs) == 0 || slices.ContainsFunc(recs[0], isName("x")) || slices.ContainsFunc(recs[0], isName("y")) {
		return 0, 0, false // x and y are read only when the person says so
	}
	if lat, lon, ok := pairIn(recs); ok || len(recs) < 2 {
		return lat, lon, ok
	}
	return pairIn(recs[1:])
}

// pairIn is coordinatePair over every record of recs.
func pairIn(recs [][]string) (lat, lon int, ok bool) {
	if len(recs) == 0 {
		return 0, 0, false
	}
	decimal := func(s string) bool { return strings.Contains(s, ".") }
	for i := 0; i+1 < len(recs[0]); i++ {
		all := true
		for _, rec := range recs {
			if i+1 >= len(rec) || !decimal(rec[i]) || !decimal(rec[i+1]) {
				all = false
				break
			}
			if _, err := parsePoint(rec[i], rec[i+1], i+1, i+2); err != nil {
				all = false
				break
			}
		}
		if all {
			return i, i + 1, true
		}
	}
	return 0, 0, false
}

// previewDelimiter records the delimiter readDelimited settled on. The
// preview methods do nothing on a nil *Preview: a file read, not
// previewed.
func (p *Preview) previewDelimiter(r rune) {
	if p != nil {
		p.Delimiter = r
	}
}

// previewHeader records the header and columns readDelimited settled on.
func (p *Preview) previewHeader(first []string, header bool, c columns) {
	if p == nil {
		return
	}
	if header {
		p.Header = slices.Clone(first)
		p.Width = len(first)
	}
	p.Columns = map[string]int{}
	for kind, i := range map[string]int{"user": c.user, "lat": c.lat, "lon": c.lon, "time": c.time, "loc": c.loc} {
		if i >= 0 {
			p.Columns[kind] = i
		}
	}
}

// previewRow records one row's fields and outcome.
func (p *Preview) previewRow(line int, rec []string, c Checkin, err error) {
	if p == nil {
		return
	}
	if err != nil {
		err = lineError(line, err)
	}
	p.Rows = append(p.Rows, PreviewRow{Line: line, Fields: slices.Clone(rec), Checkin: c, Err: err})
	p.Width = max(p.Width, len(rec))
}

// Text returns the mapping as grid's flags write it: the -cols value (the
// kinds it maps, in the order user, lat, lon, time, loc) and the -delim,
// -header, -encoding and -time-format values, "auto" or "" for the
// guesses. ParseColumns, ParseDelimiter, ParseHeader and ParseEncoding
// read them back.
func (m *Mapping) Text() (cols, delim, header, encoding, timeFormat string) {
	var parts []string
	for _, kind := range columnKinds {
		if col, ok := m.Columns[kind]; ok {
			parts = append(parts, kind+"="+col)
		}
	}
	delim = "auto"
	switch m.Delim {
	case 0:
	case '\t':
		delim = "tab"
	case ',':
		delim = "comma"
	case ';':
		delim = "semicolon"
	case '|':
		delim = "pipe"
	default:
		delim = string(m.Delim)
	}
	header = [...]string{HeaderAuto: "auto", HeaderYes: "yes", HeaderNo: "no"}[m.Header]
	encoding = "auto"
	if m.Latin1 {
		encoding = "latin-1"
	}
	return strings.Join(parts, ","), delim, header, encoding, m.TimeLayout
}

// withCoordinates returns a copy of cols with latitude and longitude
// mapped to the 0-based columns lat and lon: a guess, which leaves the
// mapping it was made from as it was.
func withCoordinates(cols map[string]string, lat, lon int) map[string]string {
	c := maps.Clone(cols)
	if c == nil {
		c = map[string]string{}
	}
	c["lat"], c["lon"] = ColumnNumber(lat), ColumnNumber(lon)
	return c
}

// ColumnNumber is the -cols form of a 0-based column: its 1-based number.
func ColumnNumber(i int) string { return strconv.Itoa(i + 1) }
