package geo

import (
	"encoding/csv"
	"errors"
	"io"
	"strings"
)

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
}

// headerNames lists, per column, the header names that select it.
var headerNames = []struct {
	names []string
	set   func(*columns, int)
}{
	{[]string{"lat", "latitude"}, func(c *columns, i int) { c.lat = i }},
	{[]string{"lon", "lng", "long", "longitude"}, func(c *columns, i int) { c.lon = i }},
	{[]string{"user", "user_id", "userid", "uid"}, func(c *columns, i int) { c.user = i }},
	{[]string{"time", "timestamp", "utc_time", "datetime", "check-in time", "checkin_time"}, func(c *columns, i int) { c.time = i }},
	{[]string{"loc", "location", "location_id", "venue", "venue_id", "venueid", "poi", "poi_id"}, func(c *columns, i int) { c.loc = i }},
}

// parseHeader finds the columns of a header. The first match of each kind
// wins. Names compare case-insensitively, surrounding quotes and spaces
// ignored.
func parseHeader(fields []string) (columns, error) {
	c := columns{-1, -1, -1, -1, -1}
	for i, f := range fields {
		name := strings.ToLower(strings.Trim(strings.TrimSpace(f), `"'`))
		for _, h := range headerNames {
			for _, n := range h.names {
				if name == n {
					h.set(&c, i)
				}
			}
		}
	}
	if c.lat < 0 || c.lon < 0 {
		return c, ErrNoColumns
	}
	return c, nil
}

// row converts one record by the header's columns.
func (c columns) row(rec []string, width int) (Checkin, error) {
	if len(rec) != width {
		return Checkin{}, ErrFieldCount
	}
	p, err := parsePoint(rec[c.lat], rec[c.lon], c.lat+1, c.lon+1)
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
	if c.time >= 0 {
		t, err := parseTime(rec[c.time])
		if err != nil {
			return Checkin{}, &fieldErr{c.time + 1, err}
		}
		ck.Time = t
	}
	return ck, nil
}

// readDelimited reads a header line and the records under it with
// encoding/csv, so that quoted fields (venue names with commas) work.
// The delimiter is a tab if the header holds one, else a comma.
func readDelimited(lr *lineReader, res *Result, opt Options) error {
	head, err := lr.peekDataLine()
	if err != nil {
		return err
	}
	comma := ','
	if strings.Contains(head, "\t") {
		comma = '\t'
	}
	headLine := lr.line
	cr := csv.NewReader(&lineSource{lr: lr})
	cr.Comma = comma
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true
	cr.ReuseRecord = true
	hdr, err := cr.Read()
	if err != nil {
		return &ParseError{Line: headLine, Err: err}
	}
	cols, err := parseHeader(hdr)
	if err != nil {
		return &ParseError{Line: headLine, Err: err}
	}
	width := len(hdr)
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		var line int
		var c Checkin
		if pe := (*csv.ParseError)(nil); errors.As(err, &pe) {
			line, err = pe.Line, pe.Err
		} else if err != nil {
			return err
		} else {
			line, _ = cr.FieldPos(0)
			c, err = cols.row(rec, width)
		}
		if err := res.record(line+headLine-1, c, err, opt.SkipBad); err != nil {
			return err
		}
	}
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
