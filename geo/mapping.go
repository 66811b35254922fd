package geo

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A Mapping says how a delimited file is read where the guesses would
// not do (privmap grid's -cols, -delim, -header, -encoding and
// -time-format; QGIS's "Add Delimited Text Layer" asks the same): which
// column holds each kind of value, by header name or 1-based number,
// the delimiter, whether the first line is a header, the encoding and
// the time layout. Kinds it leaves out are found by their header names
// as without it.
type Mapping struct {
	// Columns maps a kind (user, lat, lon, time, loc) to a header name,
	// a 1-based column number or "none".
	Columns map[string]string
	// Delim is the delimiter; 0 sniffs it from the first line.
	Delim rune
	// Header says whether the first line is a header: HeaderAuto takes
	// it for one unless the mapped latitude and longitude columns of it
	// hold coordinates.
	Header Header
	// Latin1 reads every line as Latin-1, UTF-8 or not.
	Latin1 bool
	// TimeLayout is a Go time layout for the time column ("" the forms
	// parseTime knows); "unix" and "unixms" name Unix seconds and
	// milliseconds.
	TimeLayout string
	// Sheet names a workbook's sheet ("" the first); ignored for text.
	Sheet string
}

// LayoutMapping returns the mapping that reads a file of a headerless
// layout f as a delimited file: SNAP's user, time, latitude, longitude
// and location, TSMC's eight columns (Layout.Columns); nil for the
// other formats.
func LayoutMapping(f Format) *Mapping {
	if l := layoutOf(f); l != nil && l.Columns != nil {
		return &Mapping{Columns: maps.Clone(l.Columns), Delim: l.Delim, Header: HeaderNo}
	}
	return nil
}

// Header says whether a delimited file's first line is a header.
type Header int

// The choices of Mapping.Header.
const (
	HeaderAuto Header = iota
	HeaderYes
	HeaderNo
)

// ErrMapping is the reason of a malformed or unmet Mapping.
var ErrMapping = errors.New("column mapping")

// columnKinds are the kinds a Mapping names.
var columnKinds = []string{"user", "lat", "lon", "time", "loc"}

// ParseColumns parses a -cols value, "user=1,lat=5,lon=6,time=8" or
// with header names ("lat=Latitude (WGS84)"): kind=column pairs
// separated by commas, each kind once; "none" reads a kind from no
// column even when the header names one (user=none: no person column).
func ParseColumns(s string) (map[string]string, error) {
	m := map[string]string{}
	for _, pair := range strings.Split(s, ",") {
		kind, col, ok := strings.Cut(pair, "=")
		kind, col = strings.ToLower(strings.TrimSpace(kind)), strings.TrimSpace(col)
		switch {
		case !ok || col == "":
			return nil, fmt.Errorf("geo: %w %q: want kind=column, e.g. lat=5", ErrMapping, pair)
		case !slices.Contains(columnKinds, kind):
			return nil, fmt.Errorf("geo: %w: unknown kind %q (want user, lat, lon, time or loc)", ErrMapping, kind)
		case m[kind] != "":
			return nil, fmt.Errorf("geo: %w: %s named twice", ErrMapping, kind)
		}
		if n, err := strconv.Atoi(col); err == nil && (n < 1 || n > maxColumns) {
			return nil, fmt.Errorf("geo: %w: %s=%d: columns are numbered from 1 to %d", ErrMapping, kind, n, maxColumns)
		}
		m[kind] = col
	}
	return m, nil
}

// maxColumns bounds a column number, checked before a record is read.
const maxColumns = 10000

// ParseDelimiter parses a -delim value: tab, comma, semicolon, pipe,
// auto (0) or one character.
func ParseDelimiter(s string) (rune, error) {
	switch strings.ToLower(s) {
	case "", "auto":
		return 0, nil
	case "tab", `\t`:
		return '\t', nil
	case "comma":
		return ',', nil
	case "semicolon":
		return ';', nil
	case "pipe":
		return '|', nil
	}
	if r := []rune(s); len(r) == 1 && r[0] != '"' && r[0] != '\n' && r[0] != '\r' {
		return r[0], nil
	}
	return 0, fmt.Errorf("geo: %w: delimiter %q (want tab, comma, semicolon, pipe, auto or one character)", ErrMapping, s)
}

// ParseHeader parses a -header value: yes, no or auto.
func ParseHeader(s string) (Header, error) {
	switch strings.ToLower(s) {
	case "", "auto":
		return HeaderAuto, nil
	case "yes", "true":
		return HeaderYes, nil
	case "no", "false":
		return HeaderNo, nil
	}
	return HeaderAuto, fmt.Errorf("geo: %w: header %q (want yes, no or auto)", ErrMapping, s)
}

// ParseEncoding parses an -encoding value: utf-8 or auto (false: lines
// that are not UTF-8 are read as Latin-1) or latin-1 (true).
func ParseEncoding(s string) (latin1 bool, err error) {
	switch strings.ToLower(strings.ReplaceAll(s, "_", "-")) {
	case "", "auto", "utf-8", "utf8":
		return false, nil
	case "latin-1", "latin1", "iso-8859-1", "iso8859-1":
		return true, nil
	}
	return false, fmt.Errorf("geo: %w: encoding %q (want utf-8, latin-1 or auto)", ErrMapping, s)
}

// applyTo applies the mapping (nil: none) to the columns of a file whose
// first record is first, a header when header is set.
func (m *Mapping) applyTo(c *columns, first []string, header bool) error {
	if m == nil {
		return nil
	}
	var hdr []string
	if header {
		hdr = first
	}
	return m.apply(c, hdr)
}

// apply sets c's columns from the mapping: numbers directly, names by
// their normalForm among the header's fields (hdr nil: none). Two kinds
// read from one column are refused (lat=3,lon=3 put every point on the
// diagonal).
func (m *Mapping) apply(c *columns, hdr []string) error {
	used := map[int]string{}
	for _, kind := range columnKinds {
		col, ok := m.Columns[kind]
		if !ok {
			continue
		}
		i := -1
		if n, err := strconv.Atoi(col); err == nil {
			i = n - 1
		} else if strings.EqualFold(col, "none") {
			// No such column, though the header may name one.
		} else if hdr == nil {
			return fmt.Errorf("%w: %s=%q names a column, but the file has no header: number it", ErrMapping, kind, col)
		} else {
			i = slices.IndexFunc(hdr, isName(normalForm(col)))
			if i < 0 {
				return fmt.Errorf("%w: %s=%q is not in the header (%s)", ErrMapping, kind, col, clip(strings.Join(hdr, " · "), 60))
			}
		}
		if other, ok := used[i]; ok && i >= 0 {
			return fmt.Errorf("%w: %s and %s both read column %d: give each its own", ErrMapping, other, kind, i+1)
		}
		used[i] = kind
		switch kind {
		case "user":
			c.user = i
		case "lat":
			c.lat = i
		case "lon":
			c.lon = i
		case "time":
			c.time = i
		case "loc":
			c.loc = i
		}
	}
	c.timeLayout = m.TimeLayout
	return nil
}

// numbered reports whether the mapping gives latitude and longitude by
// number, and those columns of rec hold coordinates: rec is data, not a
// header.
func (m *Mapping) numbered(rec []string) bool {
	lat, err1 := strconv.Atoi(m.Columns["lat"])
	lon, err2 := strconv.Atoi(m.Columns["lon"])
	if err1 != nil || err2 != nil || min(lat, lon) < 1 || lat > len(rec) || lon > len(rec) {
		return false
	}
	_, err := parsePoint(rec[lat-1], rec[lon-1], lat, lon)
	return err == nil
}

// timeParser returns the parser of a time column: by layout
// (Mapping.TimeLayout), or the forms parseTime knows when layout is "".
func timeParser(layout string) func(string) (time.Time, error) {
	if layout == "" {
		return parseTime
	}
	return func(s string) (time.Time, error) { return parseTimeLayout(s, layout) }
}

// parseTimeLayout parses s by layout, "unix" or "unixms".
func parseTimeLayout(s, layout string) (time.Time, error) {
	s = strings.TrimSpace(s)
	switch layout {
	case "unix", "unixms":
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || v < 0 || v >= 1e15 {
			return time.Time{}, fieldError(ErrBadTime, s)
		}
		if layout == "unixms" {
			return time.UnixMilli(int64(v)).UTC(), nil
		}
		return time.Unix(int64(v), 0).UTC(), nil
	}
	t, err := time.Parse(layout, s)
	if err != nil {
		return time.Time{}, fieldError(ErrBadTime, s)
	}
	return t, nil
}
