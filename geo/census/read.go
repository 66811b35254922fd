package census

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/privmap/privmap/geo"
)

// A Format names a census file layout.
type Format int

// The formats a Reader understands.
const (
	// Adult is UCI Adult's adult.data or adult.test.
	Adult Format = iota + 1
	// Census1990 is UCI US Census 1990's recoded USCensus1990.data.txt.
	Census1990
)

// AdultColumns are the fields of an Adult line, as adult.names lists them;
// the last, unnamed there, is the income class.
var AdultColumns = []string{
	"age", "workclass", "fnlwgt", "education", "education-num",
	"marital-status", "occupation", "relationship", "race", "sex",
	"capital-gain", "capital-loss", "hours-per-week", "native-country",
	"income",
}

// Errors that a *geo.ParseError from a Reader wraps.
var (
	ErrNoHeader  = errors.New("no caseid header line")
	ErrDupColumn = errors.New("column named twice")
)

// maxLine bounds a line; the longest real line is under 300 bytes.
const maxLine = 1 << 20

// A Reader streams the records of a census file. It is not safe for
// concurrent use.
type Reader struct {
	format  Format
	sc      *bufio.Scanner
	columns []string
	line    int
	fields  []string
}

// NewReader returns a Reader of r in format f. For Census1990 it reads the
// header line, whose column names the records then follow.
func NewReader(r io.Reader, f Format) (*Reader, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	rd := &Reader{format: f, sc: sc}
	switch f {
	case Adult:
		rd.columns = AdultColumns
	case Census1990:
		if err := rd.readHeader(); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("census: %w %v", ErrUnknownFormat, f)
	}
	return rd, nil
}

// Format returns the format read.
func (r *Reader) Format() Format { return r.format }

// Columns returns the names of a record's fields. The caller must not
// modify it.
func (r *Reader) Columns() []string { return r.columns }

// Line returns the number of lines read so far.
func (r *Reader) Line() int { return r.line }

// nextLine returns the next line that carries data: blank lines and, in
// Adult, comment lines starting with "|" are passed over.
func (r *Reader) nextLine() (string, error) {
	for r.sc.Scan() {
		r.line++
		s := r.sc.Text()
		if r.line == 1 {
			s = strings.TrimPrefix(s, "\ufeff")
		}
		s = strings.TrimRight(s, "\r")
		if strings.TrimSpace(s) == "" || r.format == Adult && strings.HasPrefix(s, "|") {
			continue
		}
		return s, nil
	}
	if err := r.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return "", &geo.ParseError{Line: r.line + 1, Err: geo.ErrLineTooLong}
		}
		return "", err
	}
	return "", io.EOF
}

func (r *Reader) readHeader() error {
	s, err := r.nextLine()
	if err == io.EOF {
		return fmt.Errorf("census: %w", geo.ErrEmpty)
	}
	if err != nil {
		return err
	}
	cols := splitFields(s, nil)
	if !strings.EqualFold(cols[0], "caseid") {
		return &geo.ParseError{Line: r.line, Column: 1, Err: fmt.Errorf("%q: %w", clip(cols[0]), ErrNoHeader)}
	}
	seen := make(map[string]bool, len(cols))
	for i, c := range cols {
		if seen[strings.ToLower(c)] {
			return &geo.ParseError{Line: r.line, Column: i + 1, Err: fmt.Errorf("%q: %w", c, ErrDupColumn)}
		}
		seen[strings.ToLower(c)] = true
	}
	r.columns = cols
	return nil
}

// Next returns the fields of the next record, trimmed of spaces, with
// Adult's class label stripped of the full stop adult.test ends it with.
// The slice is reused by the following call. At the end it returns io.EOF;
// a record with the wrong number of fields gives a *geo.ParseError
// wrapping geo.ErrFieldCount, after which reading may go on.
func (r *Reader) Next() ([]string, error) {
	s, err := r.nextLine()
	if err != nil {
		return nil, err
	}
	r.fields = splitFields(s, r.fields[:0])
	if len(r.fields) != len(r.columns) {
		return nil, &geo.ParseError{Line: r.line, Err: fmt.Errorf("%d fields, want %d: %w", len(r.fields), len(r.columns), geo.ErrFieldCount)}
	}
	if r.format == Adult {
		last := len(r.fields) - 1
		r.fields[last] = strings.TrimSuffix(r.fields[last], ".")
	}
	return r.fields, nil
}

// splitFields appends the comma-separated fields of s, trimmed, to dst.
// Neither format quotes its fields.
func splitFields(s string, dst []string) []string {
	for {
		i := strings.IndexByte(s, ',')
		if i < 0 {
			return append(dst, strings.TrimSpace(s))
		}
		dst = append(dst, strings.TrimSpace(s[:i]))
		s = s[i+1:]
	}
}

func clip(s string) string {
	if len(s) <= 40 {
		return s
	}
	return s[:40] + "…"
}

// DetectReader is Detect on the first line buffered in br, peeked, not
// consumed: a reader can then read the file from its start.
func DetectReader(br *bufio.Reader) (Format, bool) {
	b, _ := br.Peek(br.Size())
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	return Detect(string(b))
}

// Detect recognises a census file from its first line: a header starting
// with "caseid," is Census1990; a "|" comment line or a line of 15
// comma-separated fields whose first is a whole number and last an
// income class (<=50K or >50K, with or without adult.test's full stop) is
// Adult.
func Detect(firstLine string) (Format, bool) {
	s := strings.TrimSpace(strings.TrimPrefix(firstLine, "\ufeff"))
	if strings.HasPrefix(strings.ToLower(s), "caseid,") {
		return Census1990, true
	}
	if strings.HasPrefix(s, "|1x3 Cross validator") {
		return Adult, true
	}
	f := splitFields(s, nil)
	if len(f) != len(AdultColumns) {
		return 0, false
	}
	if _, err := strconv.Atoi(f[0]); err != nil {
		return 0, false
	}
	switch strings.TrimSuffix(f[len(f)-1], ".") {
	case "<=50K", ">50K":
		return Adult, true
	}
	return 0, false
}
