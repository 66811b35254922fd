package geo

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A Format names a check-in file layout.
type Format int

// The formats ReadCheckins understands.
const (
	// Auto detects the format from the first data line.
	Auto Format = iota
	// SNAP is user<TAB>time<TAB>lat<TAB>lon[<TAB>location], as in SNAP's
	// loc-gowalla and the SNAP-style Foursquare subsets.
	SNAP
	// Delimited is tab- or comma-separated text with a header line that
	// names its columns.
	Delimited
	// LatLon is headerless "lat,lon" (or tab-separated) lines.
	LatLon
	// TSMC is the eight tab-separated columns of Yang et al.'s
	// Foursquare check-ins of New York and Tokyo (parseTSMC).
	TSMC
	// FoursquareGlobal is the check-ins of Yang et al.'s Foursquare
	// global-scale data set, placed at their venues by Options.Places
	// (parseFoursquareGlobal).
	FoursquareGlobal
	// Yelp is the Yelp Open Dataset's businesses, one JSON object a
	// line, a point each and no person (parseYelpBusiness).
	Yelp
	// YelpReviews is its reviews, placed at their businesses by
	// Options.Places, the reviewer the person (parseYelpReview).
	YelpReviews
	// XLSX is an Excel workbook's sheet (Options.Sheet, the first by
	// default), its rows read as a delimited file's lines (readXLSX).
	XLSX
	// GeoJSON is a GeoJSON FeatureCollection or text sequence of point
	// features (readGeoJSON).
	GeoJSON
	// GeoParquet is a GeoParquet point layer, read from a file by
	// ScanPath (scanGeoParquet).
	GeoParquet
	// GeoLife is a GeoLife trajectory's PLT file, its points the
	// check-ins of Options.User (parseGeoLife); ScanPath reads a folder
	// of them, each user's from the folder's name.
	GeoLife
)

// MaxKeptErrors is how many skipped-line reasons a Result keeps.
const MaxKeptErrors = 20

// Options control ReadCheckins.
type Options struct {
	// SkipBad skips malformed lines instead of failing. Skipped lines are
	// counted in Result.Skipped and the first MaxKeptErrors reasons kept.
	SkipBad bool
	// Mapping, when not nil, reads the file as delimited by it.
	Mapping *Mapping
	// Places places the records of FoursquareGlobal and YelpReviews
	// (ReadPlaces).
	Places *Places
	// User is the person of a GeoLife file's points.
	User string
	// Progress, when set, is told the fraction of a file read by
	// ScanPath where no reader of bytes could tell it: a GeoParquet
	// layer's rows.
	Progress func(float64)
	// BlankPerson says how a record with a blank (or all-space) person
	// id is read in a file that names people: BlankRefuse (the file is
	// refused, the lines named), BlankOwn or BlankSkip.
	BlankPerson string
}

// A Result is what ReadCheckins or ScanCheckins read.
type Result struct {
	// Checkins holds the check-ins ReadCheckins read; ScanCheckins hands
	// them to its function instead and leaves Checkins nil.
	Checkins []Checkin
	// Format is the format read, detected when Auto was asked.
	Format Format
	// Lines is the number of lines read, blank lines and header
	// included; a GeoJSON FeatureCollection's features.
	Lines int
	// Skipped counts malformed lines left out under Options.SkipBad.
	Skipped int
	// Errors holds the reasons of the first MaxKeptErrors skipped lines.
	Errors []*ParseError
	// Delimiter is the field separator of a Delimited file, sniffed from
	// its header; 0 for the other formats.
	Delimiter rune
	// Latin1 reports that some line was not UTF-8 and was read as
	// Latin-1 (ISO 8859-1), each byte its own character.
	Latin1 bool
	// Sheet is the sheet of a workbook read.
	Sheet string
	// NoPerson reports that the file names no person (user) column, so
	// that every row is taken as a person of its own: a Delimited header
	// without one, or LatLon lines.
	NoPerson bool
	// BlankPerson counts the records whose person id was blank in a file
	// that names people: each its own person, or left out, as
	// Options.BlankPerson says.
	BlankPerson int

	// hasPerson is set by a reader that knows the file names people;
	// blankRule is Options.BlankPerson; blankLines the first lines of
	// blank ids.
	hasPerson  bool
	blankRule  string
	blankLines []int

	sink    func(Checkin) error
	records int
	// preview, when set, gets a delimited file's header and rows.
	preview *Preview
}

// LineUnit names what Lines counts: "lines", "rows" of a workbook's
// sheet or a GeoParquet layer, or "features" of GeoJSON.
func (r *Result) LineUnit() string {
	if l := layoutOf(r.Format); l != nil && l.Unit != "" {
		return l.Unit
	}
	return "lines"
}

// add appends a check-in. Its strings are copied out of the line they
// were cut from, so that the line can be freed, and a user equal to the
// previous record's shares its string, as SNAP files list each user's
// check-ins together.
func (r *Result) add(c Checkin) error {
	if n := len(r.Checkins); n > 0 && r.Checkins[n-1].User == c.User {
		c.User = r.Checkins[n-1].User
	} else {
		c.User = strings.Clone(c.User)
	}
	c.Location = strings.Clone(c.Location)
	r.Checkins = append(r.Checkins, c)
	return nil
}

// record adds c read from a line, or, when err is not nil, returns the
// line's *ParseError, or counts it when skipBad is set.
func (r *Result) record(line int, c Checkin, err error, skipBad bool) error {
	return r.recordAs("", line, c, err, skipBad)
}

// recordAs is record for a record counted in unit (ParseError.Unit).
func (r *Result) recordAs(unit string, line int, c Checkin, err error, skipBad bool) error {
	if err == nil {
		if r.hasPerson && strings.TrimSpace(c.User) == "" {
			r.BlankPerson++
			if len(r.blankLines) < maxBlankLines {
				r.blankLines = append(r.blankLines, line)
			}
			if r.blankRule != BlankOwn {
				return nil // left out, or refused once the file is read
			}
			c.User = "" // a person of its own
		}
		r.records++
		return r.sink(c)
	}
	pe := lineError(line, err)
	pe.Unit = unit
	if !skipBad {
		return pe
	}
	r.skip(pe)
	return nil
}

func (r *Result) skip(e *ParseError) {
	r.Skipped++
	if len(r.Errors) < MaxKeptErrors {
		r.Errors = append(r.Errors, e)
	}
}

// ReadCheckins reads check-ins in format f from r, streaming it once, and
// keeps them all in Result.Checkins. A UTF-8 byte-order mark and CRLF line
// ends are accepted; blank lines are passed over. A malformed line gives a
// *ParseError unless opt.SkipBad is set. A file with no data line gives
// ErrEmpty. ScanCheckins reads without keeping the records.
func ReadCheckins(r io.Reader, f Format, opt Options) (*Result, error) {
	res := &Result{}
	res.sink = res.add
	return scan(context.Background(), r, f, opt, res)
}

// ScanCheckins reads check-ins as ReadCheckins does but hands each to fn
// as it is read, keeping none: memory stays that of one line whatever the
// size of the file. The strings of a Checkin share the memory of its
// line; fn clones what it keeps. An error from fn stops the scan and is
// returned. The scan stops with ctx's error once ctx is done.
func ScanCheckins(ctx context.Context, r io.Reader, f Format, opt Options, fn func(Checkin) error) (*Result, error) {
	return scan(ctx, r, f, opt, &Result{sink: fn})
}

func scan(ctx context.Context, r io.Reader, f Format, opt Options, res *Result) (*Result, error) {
	res.blankRule = opt.BlankPerson
	lr := newLineReader(r)
	lr.ctx = ctx
	var err error
	if f == GeoJSON || f == Auto && isGeoJSON(lr.br) {
		res.Format = GeoJSON
		err = readGeoJSON(lr, res, opt)
		res.Lines = max(res.Lines, lr.line) // a collection counts features
		return finish(res, err)
	}
	if (f == Auto || f == XLSX) && isWorkbook(lr.br) {
		res.Format = XLSX
		res.Lines, err = readXLSX(ctx, lr.br, res, opt)
		return finish(res, err)
	}
	if m := opt.Mapping; m != nil {
		if f != Auto && f != Delimited {
			return nil, fmt.Errorf("geo: %w: for delimited files and workbooks, not %v", ErrMapping, f)
		}
		f, lr.forceLatin1 = Delimited, m.Latin1
	}
	if err := binaryError(lr.br); err != nil {
		return nil, err
	}
	res.Format = f
	if f == Auto {
		first, err := lr.peekDataLine()
		if err != nil {
			return nil, err
		}
		res.Format = detect(first)
	}
	err = readFormat(lr, res, opt)
	if errors.Is(err, errNotRead) {
		return nil, fmt.Errorf("geo: %w %v", ErrUnknownFmt, f)
	}
	res.Lines = lr.line
	res.Latin1 = lr.latin1
	return finish(res, err)
}

// finish ends a scan that stopped with err: the result, or the error,
// or ErrEmpty for a file without records.
func finish(res *Result, err error) (*Result, error) {
	res.sink = nil
	if err != nil {
		return nil, err
	}
	if res.BlankPerson > 0 && res.blankRule == BlankRefuse {
		return nil, res.blankError()
	}
	if res.records == 0 && res.Skipped == 0 {
		return nil, fmt.Errorf("geo: %w", ErrEmpty)
	}
	return res, nil
}

// maxBlankLines is how many lines of blank person ids an error names.
const maxBlankLines = 10

// blankError refuses a file with blank person ids, naming their lines.
func (r *Result) blankError() error {
	lines := make([]string, len(r.blankLines))
	for i, l := range r.blankLines {
		lines[i] = strconv.Itoa(l)
	}
	more := ""
	if r.BlankPerson > len(r.blankLines) {
		more = ", …"
	}
	unit := r.LineUnit()
	what := fmt.Sprintf("%d records name", r.BlankPerson)
	if r.BlankPerson == 1 {
		what, unit = "1 record names", strings.TrimSuffix(unit, "s")
	}
	return fmt.Errorf("geo: %w: %s no person (%s %s%s), in a file that names people: "+
		"say whether each is a person of its own (-blank-person own) or is left out (-blank-person skip)",
		ErrBlankPerson, what, unit, strings.Join(lines, ", "), more)
}

// errNotRead is readFormat's error for a format it does not read.
var errNotRead = errors.New("not read")

// readFormat reads the lines of lr in res.Format into res.
func readFormat(lr *lineReader, res *Result, opt Options) error {
	l := layoutOf(res.Format)
	switch {
	case l == nil || l.Line == nil && l.Read == nil:
		return errNotRead
	case l.Places && opt.Places == nil:
		return fmt.Errorf("geo: %v: %w (the venues or businesses to join with)", res.Format, ErrNoPlaces)
	}
	res.hasPerson = res.hasPerson || l.Person
	res.NoPerson = res.NoPerson || l.NoPerson
	if l.Line != nil {
		return readLines(lr, res, opt, l.Line)
	}
	return l.Read(lr, res, opt)
}

// binaryError is the error of a binary file (binaryKind), nil for text.
func binaryError(br *bufio.Reader) error {
	if kind := binaryKind(br); kind != "" {
		return fmt.Errorf("geo: %w: this is %s; check-ins are read from text (CSV, TSV or SNAP lines)", ErrBinary, kind)
	}
	return nil
}

// binaryKind names the kind of a binary file from its first bytes (its
// magic number), or says "binary data" for a NUL byte among the first
// 512; "" for text.
func binaryKind(br *bufio.Reader) string {
	head, _ := br.Peek(512)
	for _, m := range []struct{ magic, kind string }{
		{"\x89PNG\r\n\x1a\n", "a PNG image"},
		{"\xff\xd8\xff", "a JPEG image"},
		{"%PDF-", "a PDF document"},
		{"PK\x03\x04", "a ZIP archive (an Excel .xlsx workbook is one)"},
		{"PAR1", "a Parquet file (privmap grid reads a GeoParquet layer from its path)"},
		{"\x1f\x8b", "a gzip-compressed file (decompress it first)"},
		{"SQLite format 3\x00", "an SQLite database"},
		{"\xd0\xcf\x11\xe0", "an old Office document (.xls)"},
	} {
		if bytes.HasPrefix(head, []byte(m.magic)) {
			return m.kind
		}
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return "binary data"
	}
	return ""
}

// DetectFormat returns the format ReadCheckins reads r as when asked for
// Auto, from its first data line (only that line is read) or a
// workbook's first bytes, or the error of a binary or empty file.
func DetectFormat(r io.Reader) (Format, error) {
	lr := newLineReader(r)
	if isWorkbook(lr.br) {
		return XLSX, nil
	}
	if isGeoJSON(lr.br) {
		return GeoJSON, nil
	}
	if err := binaryError(lr.br); err != nil {
		return Auto, err
	}
	first, err := lr.peekDataLine()
	if err != nil {
		return Auto, err
	}
	return detect(first), nil
}

// detect guesses the format of a file from its first data line: the
// first layout whose Sniff claims it. A header-less delimited file is
// a CSV whose header we could not find; readDelimited reports that with
// the line number.
func detect(line string) Format {
	for _, l := range layouts {
		if l.Sniff != nil && l.Sniff(line) {
			return l.Format
		}
	}
	return Delimited
}

// readLines applies parse to every non-blank line.
func readLines(lr *lineReader, res *Result, opt Options, parse func(string) (Checkin, error)) error {
	for {
		line, err := lr.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if isBlank(line) {
			continue
		}
		c, err := parse(line)
		if err := res.record(lr.line, c, err, opt.SkipBad); err != nil {
			return err
		}
	}
}

// fieldErr ties an error to a 1-based field number.
type fieldErr struct {
	col int
	err error
}

func (e *fieldErr) Error() string { return e.err.Error() }

// lineError makes the *ParseError of a line, taking the field number from
// a *fieldErr.
func lineError(line int, err error) *ParseError {
	pe := &ParseError{Line: line, Err: err}
	var fe *fieldErr
	if errors.As(err, &fe) {
		pe.Column, pe.Err = fe.col, fe.err
	}
	return pe
}

// isBlank reports whether s holds only white space and byte-order marks
// (a stray U+FEFF, as a file of two BOMs has, is no datum: FuzzPreview).
func isBlank(s string) bool { return strings.TrimSpace(strings.ReplaceAll(s, "\ufeff", "")) == "" }

// maxLine bounds one line, so that a binary file read by mistake fails
// fast instead of exhausting memory.
const maxLine = 1 << 20

var bom = []byte{0xEF, 0xBB, 0xBF}

// lineReader yields lines without their end (LF or CRLF), strips a leading
// byte-order mark and counts lines from 1.
type lineReader struct {
	ctx    context.Context
	br     *bufio.Reader
	line   int
	peeked *string
	buf    []byte
	latin1 bool // a line was not UTF-8 and was read as Latin-1
	// forceLatin1 reads every line as Latin-1 (Mapping.Latin1).
	forceLatin1 bool
}

func newLineReader(r io.Reader) *lineReader {
	br := bufio.NewReaderSize(r, 64<<10)
	if b, err := br.Peek(3); err == nil && bytes.Equal(b, bom) {
		_, _ = br.Discard(3)
	}
	return &lineReader{br: br}
}

// next returns the next line, or io.EOF after the last one.
func (lr *lineReader) next() (string, error) {
	if lr.peeked != nil {
		s := *lr.peeked
		lr.peeked = nil
		return s, nil
	}
	if lr.line&1023 == 0 && lr.ctx != nil {
		if err := lr.ctx.Err(); err != nil {
			return "", err
		}
	}
	lr.buf = lr.buf[:0]
	for {
		frag, err := lr.br.ReadSlice('\n')
		lr.buf = append(lr.buf, frag...)
		if len(lr.buf) > maxLine {
			return "", &ParseError{Line: lr.line + 1, Err: ErrLineTooLong}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF && len(lr.buf) == 0 {
			return "", io.EOF
		}
		if err != nil && err != io.EOF {
			return "", err
		}
		lr.line++
		b := bytes.TrimSuffix(lr.buf, []byte("\n"))
		b = bytes.TrimSuffix(b, []byte("\r"))
		if lr.forceLatin1 || !utf8.Valid(b) {
			// Not UTF-8: Latin-1, as the TSMC files and older exports
			// are written, where every byte is its code point.
			lr.latin1 = true
			r := make([]rune, len(b))
			for i, c := range b {
				r[i] = rune(c)
			}
			return string(r), nil
		}
		return string(b), nil
	}
}

// peekDataLine returns the first non-blank line without consuming it
// (blank lines before it are consumed and counted).
func (lr *lineReader) peekDataLine() (string, error) {
	for {
		s, err := lr.next()
		if err == io.EOF {
			return "", fmt.Errorf("geo: %w", ErrEmpty)
		}
		if err != nil {
			return "", err
		}
		if !isBlank(s) {
			lr.peeked = &s
			return s, nil
		}
	}
}
