package geo

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestMapping reads files by a column mapping: headerless by numbers
// (the header guessed absent, or said so), a header by names in any
// spelling, a forced delimiter, encoding and time layout; and refuses
// what cannot be met, saying why.
func TestMapping(t *testing.T) {
	tsmc := "470\tv1\tc1\tArts\t40.5\t-74.1\t-240\tTue Apr 03 18:00:09 +0000 2012\n" +
		"979\tv2\tc2\tCaf\xc3\xa9\t40.6\t-74.2\t-240\tTue Apr 03 18:00:25 +0000 2012\n"
	cols, err := ParseColumns("user=1, lat=5,lon=6,time=8,loc=2")
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []Header{HeaderAuto, HeaderNo} {
		res, err := ReadCheckins(strings.NewReader(tsmc), Auto, Options{Mapping: &Mapping{Columns: cols, Header: h}})
		if err != nil {
			t.Fatal(err)
		}
		c := res.Checkins[1]
		if len(res.Checkins) != 2 || res.Format != Delimited || res.Delimiter != '\t' || c.User != "979" || c.Location != "v2" ||
			c.Lat() != 40.6 || !c.Time.Equal(time.Date(2012, 4, 3, 18, 0, 25, 0, time.UTC)) {
			t.Errorf("header %v: %d check-ins, the second %+v", h, len(res.Checkins), c)
		}
	}
	// Latin-1 forced: the UTF-8 é is read as two characters.
	res, err := ReadCheckins(strings.NewReader(tsmc), Auto, Options{Mapping: &Mapping{Columns: map[string]string{"lat": "5", "lon": "6", "loc": "4"}, Latin1: true}})
	if err != nil || res.Checkins[1].Location != "CafÃ©" || !res.Latin1 {
		t.Errorf("Latin-1: %v, %+v", err, res)
	}
	// A header by names, a pipe, a time layout in Unix milliseconds.
	piped := "Person|Y (deg)|X (deg)|When\nann|40.5|-74.1|1333476009000\n"
	res, err = ReadCheckins(strings.NewReader(piped), Auto, Options{Mapping: &Mapping{
		Columns: map[string]string{"user": "person", "lat": "y", "lon": "X (deg)", "time": "when"}, Delim: '|', TimeLayout: "unixms"}})
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Checkins[0]; c.User != "ann" || c.Lon() != -74.1 || !c.Time.Equal(time.Date(2012, 4, 3, 18, 0, 9, 0, time.UTC)) {
		t.Errorf("by names: %+v", c)
	}
	// user=none: no person column though the header names one.
	res, err = ReadCheckins(strings.NewReader("user,lat,lon\nann,40.5,-74.1\n"), Auto, Options{Mapping: &Mapping{Columns: map[string]string{"user": "none"}}})
	if err != nil || !res.NoPerson || res.Checkins[0].User != "" {
		t.Errorf("user=none: %v, %+v", err, res)
	}
	for _, tc := range []struct {
		name, in string
		m        Mapping
		want     string
	}{
		{"a name without a header", tsmc, Mapping{Columns: map[string]string{"lat": "latitude", "lon": "6"}, Header: HeaderNo}, "no header: number it"},
		{"a name not in the header", piped, Mapping{Columns: map[string]string{"lat": "lat", "lon": "x"}}, `lat="lat" is not in the header`},
		{"no coordinates without a header", tsmc, Mapping{Columns: map[string]string{"user": "1"}, Header: HeaderNo}, "give lat and lon by number"},
		{"a column past the header", piped, Mapping{Columns: map[string]string{"lat": "2", "lon": "5"}, Header: HeaderYes}, "column 5 is mapped, but the header has 4 fields"},
		{"a column past the record", tsmc, Mapping{Columns: map[string]string{"lat": "5", "lon": "9"}, Header: HeaderNo}, "wrong number of fields"},
		{"a time layout not met", tsmc, Mapping{Columns: map[string]string{"lat": "5", "lon": "6", "time": "8"}, TimeLayout: time.RFC3339}, "invalid time"},
	} {
		_, err := ReadCheckins(strings.NewReader(tc.in), Auto, Options{Mapping: &tc.m})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one saying %q", tc.name, err, tc.want)
		}
	}
	if _, err := ReadCheckins(strings.NewReader(tsmc), SNAP, Options{Mapping: &Mapping{Columns: cols}}); !errors.Is(err, ErrMapping) {
		t.Errorf("a mapping for a SNAP file: %v", err)
	}
	for _, bad := range []string{"lat", "lat=", "height=3", "lat=1,lat=2", "lat=0", "lat=10001"} {
		if _, err := ParseColumns(bad); !errors.Is(err, ErrMapping) {
			t.Errorf("ParseColumns(%q): %v, want ErrMapping", bad, err)
		}
	}
	for s, want := range map[string]rune{"tab": '\t', "semicolon": ';', "pipe": '|', "comma": ',', "auto": 0, ":": ':'} {
		if got, err := ParseDelimiter(s); got != want || err != nil {
			t.Errorf("ParseDelimiter(%q) = %q, %v", s, got, err)
		}
	}
	if _, err := ParseDelimiter("ab"); err == nil {
		t.Error(`ParseDelimiter("ab") accepted`)
	}
	if h, err := ParseHeader("no"); h != HeaderNo || err != nil {
		t.Errorf("ParseHeader(no) = %v, %v", h, err)
	}
	if l, err := ParseEncoding("ISO-8859-1"); !l || err != nil {
		t.Errorf("ParseEncoding(ISO-8859-1) = %v, %v", l, err)
	}
}

// TestMappingOneColumnTwice refuses two kinds read from one column, by
// number or by a header name and a number (lat=3,lon=3 put every point
// on the diagonal, exit status 0).
func TestMappingOneColumnTwice(t *testing.T) {
	text := "id,Latitude,Longitude\nann,40.7,-74\n"
	for _, cols := range []string{"lat=2,lon=2", "lat=Latitude,lon=2", "user=3,lon=Longitude,lat=2"} {
		m, err := ParseColumns(cols)
		if err != nil {
			t.Fatal(err)
		}
		_, err = ReadCheckins(strings.NewReader(text), Auto, Options{Mapping: &Mapping{Columns: m}})
		if err == nil || !strings.Contains(err.Error(), "both read column") {
			t.Errorf("-cols %s: %v", cols, err)
		}
	}
}
