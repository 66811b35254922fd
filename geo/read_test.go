package geo

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paulmach/orb"
)

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestReadCheckins(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		format Format
		// want
		detected Format
		n        int
		first    Checkin
		lines    int
	}{
		{
			name: "gowalla SNAP", in: readFile(t, "gowalla_sf.snap.txt"), format: SNAP, detected: SNAP, n: 5, lines: 5,
			first: Checkin{User: "0", Time: time.Date(2010, 8, 19, 20, 51, 29, 0, time.UTC),
				Point: orb.Point{-122.425766587, 37.7615082532}, Location: "28"},
		},
		{
			name: "gowalla SNAP detected", in: readFile(t, "gowalla_nyc.snap.txt"), format: Auto, detected: SNAP, n: 6, lines: 6,
			first: Checkin{User: "0", Time: time.Date(2010, 10, 12, 0, 21, 28, 0, time.UTC),
				Point: orb.Point{-73.78280639649999, 40.6438845363}, Location: "23261"},
		},
		{
			name: "foursquare SNAP-style", in: readFile(t, "foursquare_nyc.snap.txt"), format: Auto, detected: SNAP, n: 4, lines: 4,
			first: Checkin{User: "0", Time: time.Date(2012, 4, 3, 18, 0, 8, 0, time.UTC),
				Point: orb.Point{-73.99228, 40.748939}, Location: "0"},
		},
		{
			name: "Oya et al. TSV with header", in: readFile(t, "sfbox.tsv"), format: Auto, detected: Delimited, n: 5, lines: 6,
			first: Checkin{User: "0", Point: orb.Point{-122.4257665873, 37.7615082532}, Location: "3309"},
		},
		{
			name: "CSV with quoted venue and times", in: readFile(t, "venues.csv"), format: Delimited, detected: Delimited, n: 2, lines: 3,
			first: Checkin{User: "u1", Time: time.Date(2010, 6, 6, 22, 11, 4, 0, time.UTC),
				Point: orb.Point{-122.4075, 37.7825}, Location: "Blue Bottle Coffee, Mint Plaza"},
		},
		{
			name: "plain lat,lon", in: readFile(t, "points.csv"), format: Auto, detected: LatLon, n: 3, lines: 4,
			first: Checkin{Point: orb.Point{-122.425766587, 37.7615082532}},
		},
		{
			name: "BOM and CRLF", in: "\uFEFF" + strings.ReplaceAll(readFile(t, "gowalla_sf.snap.txt"), "\n", "\r\n"),
			format: Auto, detected: SNAP, n: 5, lines: 5,
			first: Checkin{User: "0", Time: time.Date(2010, 8, 19, 20, 51, 29, 0, time.UTC),
				Point: orb.Point{-122.425766587, 37.7615082532}, Location: "28"},
		},
		{
			name: "BOM, CRLF and header", in: "\uFEFFlat,lon\r\n1.5,2.5\r\n", format: Auto, detected: Delimited, n: 1, lines: 2,
			first: Checkin{Point: orb.Point{2.5, 1.5}},
		},
		{
			name: "no final newline, blank lines", in: "\n\n37.1,-122.2\n\n37.3,-122.4", format: Auto, detected: LatLon, n: 2, lines: 5,
			first: Checkin{Point: orb.Point{-122.2, 37.1}},
		},
		{
			name: "Twitter time and 4 fields", in: "7\tTue Apr 03 18:00:09 +0000 2012\t40.7\t-74.0\n", format: Auto, detected: SNAP, n: 1, lines: 1,
			first: Checkin{User: "7", Time: time.Date(2012, 4, 3, 18, 0, 9, 0, time.UTC), Point: orb.Point{-74, 40.7}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := ReadCheckins(strings.NewReader(tc.in), tc.format, Options{})
			if err != nil {
				t.Fatalf("ReadCheckins: %v", err)
			}
			if res.Format != tc.detected {
				t.Errorf("Format = %v, want %v", res.Format, tc.detected)
			}
			if len(res.Checkins) != tc.n {
				t.Fatalf("read %d check-ins, want %d", len(res.Checkins), tc.n)
			}
			if res.Lines != tc.lines {
				t.Errorf("Lines = %d, want %d", res.Lines, tc.lines)
			}
			got := res.Checkins[0]
			if got.User != tc.first.User || !got.Time.Equal(tc.first.Time) || got.Point != tc.first.Point || got.Location != tc.first.Location {
				t.Errorf("first = %+v, want %+v", got, tc.first)
			}
		})
	}
}

func TestReadCheckinsErrors(t *testing.T) {
	const good = "0\t2010-08-19T20:51:29Z\t37.76\t-122.42\t28\n"
	tests := []struct {
		name     string
		in       string
		format   Format
		want     error
		line     int
		column   int
		contains string
	}{
		{"empty", "", Auto, ErrEmpty, 0, 0, ""},
		{"only blank lines", "\n \r\n\t\n", Auto, ErrEmpty, 0, 0, ""},
		{"header only", "lat,lon\n", Auto, ErrEmpty, 0, 0, ""},
		{"bad latitude", good + "1\t2010-08-19T20:51:29Z\tabc\t-122.4\t3\n", SNAP, ErrBadLatitude, 2, 3, `"abc"`},
		{"latitude out of range", good + "1\t2010-08-19T20:51:29Z\t91\t-122.4\t3\n", SNAP, ErrBadLatitude, 2, 3, ""},
		{"NaN longitude", good + good + "1\t2010-08-19T20:51:29Z\t37\tNaN\t3\n", SNAP, ErrBadLongitude, 3, 4, ""},
		{"longitude out of range", good + "1\t2010-08-19T20:51:29Z\t37\t-181\t3\n", SNAP, ErrBadLongitude, 2, 4, ""},
		{"bad time", good + "1\tyesterday\t37\t-122\t3\n", SNAP, ErrBadTime, 2, 2, ""},
		{"too few fields", good + "1\t2010-08-19T20:51:29Z\t37\n", SNAP, ErrFieldCount, 2, 0, ""},
		{"too many fields", good + good[:len(good)-1] + "\textra\n", SNAP, ErrFieldCount, 2, 0, ""},
		{"header without coordinates", "name,value\nx,1\n", Auto, ErrNoColumns, 1, 0, "2 fields split at commas: name · value"},
		{"x and y only when told", "id;X;Y\n1;-74;40\n", Auto, ErrNoColumns, 1, 0, "if X and Y are longitude and latitude in degrees, say so with -cols lat=Y,lon=X"},
		{"PNG image", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", Auto, ErrBinary, 0, 0, "a PNG image"},
		{"xlsx workbook", "PK\x03\x04\x14\x00\x06\x00", Auto, ErrBinary, 0, 0, "Excel .xlsx"},
		{"PDF", "%PDF-1.7\n", Delimited, ErrBinary, 0, 0, "a PDF document"},
		{"Parquet", "PAR1\x15\x04", Auto, ErrBinary, 0, 0, "a Parquet file"},
		{"NUL bytes", "lat,lon\n1,2\x00\n", Auto, ErrBinary, 0, 0, "binary data"},
		{"short CSV row", "lat,lon,user\n1,2,a\n3,4\n", Auto, ErrFieldCount, 3, 0, ""},
		{"bad CSV latitude after blank lines", "\n\nuser,lat,lon\n\na,x,1\n", Auto, ErrBadLatitude, 5, 2, ""},
		{"plain line with three numbers", "1,2\n1,2,3\n", LatLon, ErrFieldCount, 2, 0, ""},
		{"line too long", "1,2\n" + strings.Repeat("9", maxLine+10) + "\n", LatLon, ErrLineTooLong, 2, 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadCheckins(strings.NewReader(tc.in), tc.format, Options{})
			if !errors.Is(err, tc.want) {
				t.Fatalf("error = %v, want %v", err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.contains) {
				t.Errorf("error %q does not contain %q", err, tc.contains)
			}
			if tc.line == 0 {
				return
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *ParseError", err)
			}
			if pe.Line != tc.line || pe.Column != tc.column {
				t.Errorf("error at line %d, field %d, want line %d, field %d", pe.Line, pe.Column, tc.line, tc.column)
			}
			if !strings.Contains(err.Error(), tc.contains) {
				t.Errorf("error %q does not contain %q", err, tc.contains)
			}
		})
	}
}

func TestReadCheckinsSkipBad(t *testing.T) {
	var b strings.Builder
	for i := range 30 {
		if i%3 == 1 {
			b.WriteString("x\t2010-08-19T20:51:29Z\tnorth\t-122.4\t1\n")
			continue
		}
		b.WriteString("u\t2010-08-19T20:51:29Z\t37.7\t-122.4\t1\n")
	}
	res, err := ReadCheckins(strings.NewReader(b.String()), Auto, Options{SkipBad: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Checkins) != 20 || res.Skipped != 10 || len(res.Errors) != 10 {
		t.Fatalf("read %d, skipped %d with %d reasons; want 20, 10, 10", len(res.Checkins), res.Skipped, len(res.Errors))
	}
	if e := res.Errors[0]; e.Line != 2 || !errors.Is(e, ErrBadLatitude) {
		t.Errorf("first reason = %v, want line 2 invalid latitude", e)
	}
	// More bad lines than are kept: all counted, MaxKeptErrors kept.
	bad := strings.Repeat("1,2,3\n", MaxKeptErrors+5)
	res, err = ReadCheckins(strings.NewReader("1,2\n"+bad), LatLon, Options{SkipBad: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Skipped != MaxKeptErrors+5 || len(res.Errors) != MaxKeptErrors {
		t.Errorf("skipped %d with %d reasons, want %d with %d", res.Skipped, len(res.Errors), MaxKeptErrors+5, MaxKeptErrors)
	}
	// A file of bad lines only is not an empty file.
	res, err = ReadCheckins(strings.NewReader("a,b\n"), LatLon, Options{SkipBad: true})
	if err != nil || res.Skipped != 1 || len(res.Checkins) != 0 {
		t.Errorf("bad-only file: %v, %+v", err, res)
	}
}

func TestParseFormat(t *testing.T) {
	for name, want := range map[string]Format{"": Auto, "gowalla": SNAP, "Foursquare": SNAP, "csv": Delimited, "latlon": LatLon} {
		if got, err := ParseFormat(name); err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %v, %v, want %v", name, got, err, want)
		}
	}
	if _, err := ParseFormat("shapefile"); !errors.Is(err, ErrUnknownFmt) {
		t.Errorf("ParseFormat(shapefile) error = %v, want ErrUnknownFmt", err)
	}
}

func TestParseTime(t *testing.T) {
	want := time.Date(2010, 10, 19, 23, 55, 27, 0, time.UTC)
	for _, s := range []string{"2010-10-19T23:55:27Z", "2010-10-19 23:55:27", "2010-10-19T16:55:27-07:00", "1287532527", " Tue Oct 19 23:55:27 +0000 2010 "} {
		got, err := parseTime(s)
		if err != nil || !got.Equal(want) {
			t.Errorf("parseTime(%q) = %v, %v, want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"", "19/10/2010", "-5", "1e300"} {
		if _, err := parseTime(s); !errors.Is(err, ErrBadTime) {
			t.Errorf("parseTime(%q) error = %v, want ErrBadTime", s, err)
		}
	}
}

// errReader fails after its content, as a cancelled or broken source does.
type errReader struct {
	s   *strings.Reader
	err error
}

func (r *errReader) Read(p []byte) (int, error) {
	if r.s.Len() == 0 {
		return 0, r.err
	}
	return r.s.Read(p)
}

func TestReadCheckinsReaderError(t *testing.T) {
	boom := errors.New("boom")
	for _, in := range []string{"1,2\n3,4\n", "lat,lon\n1,2\n"} {
		_, err := ReadCheckins(&errReader{strings.NewReader(in), boom}, Auto, Options{SkipBad: true})
		if !errors.Is(err, boom) {
			t.Errorf("read of %q then failure: error %v, want %v", in, err, boom)
		}
	}
}

// TestReadDelimitedSniffing reads the headers and delimiters files come
// with from spreadsheets and exports: a BOM and semicolons, pipes, names
// with spaces, capitals and units; and says when no column names a
// person.
func TestReadDelimitedSniffing(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		delim    rune
		users    []string // the users read, "" where none
		noPerson bool
	}{
		{"BOM, semicolons and decimal commas", "\xEF\xBB\xBFUser ID;Latitude (WGS84);Longitude (WGS84)\r\nu1;40,5;-74,1\r\n", ';', []string{"u1"}, false},
		{"semicolons with decimal points", "user_id;lat;lng\nu1;40.5;-74.1\nu2;40.6;-74.2\n", ';', []string{"u1", "u2"}, false},
		{"pipes", "userId|LAT|Long\nu1|40.5|-74.1\n", '|', []string{"u1"}, false},
		{"tabs beat commas inside fields", "user\tlat\tlon\tvenue\nu1\t40.5\t-74.1\tCafé, Inc.\n", '\t', []string{"u1"}, false},
		{"no person column", "id,lat,long\n1,40.5,-74.1\n2,40.6,-74.2\n", ',', []string{"", ""}, true},
		{"check-in time and venue id", "Check-in Time,Venue_ID,Person ID,lat,lon\n2012-04-03T18:00:09Z,v1,p1,40.5,-74.1\n", ',', []string{"p1"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := ReadCheckins(strings.NewReader(tc.in), Auto, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Delimiter != tc.delim || res.NoPerson != tc.noPerson || res.Format != Delimited {
				t.Errorf("delimiter %q, no person %v, format %v; want %q, %v, delimited", res.Delimiter, res.NoPerson, res.Format, tc.delim, tc.noPerson)
			}
			var users []string
			for _, c := range res.Checkins {
				users = append(users, c.User)
			}
			if !slices.Equal(users, tc.users) {
				t.Errorf("users %q, want %q", users, tc.users)
			}
			if c := res.Checkins[0]; c.Lat() != 40.5 || c.Lon() != -74.1 {
				t.Errorf("first point (%v, %v), want (40.5, -74.1)", c.Lat(), c.Lon())
			}
		})
	}
	res, err := ReadCheckins(strings.NewReader("40.5,-74.1\n"), Auto, Options{})
	if err != nil || !res.NoPerson {
		t.Errorf("lat,lon lines: no person %v (%v), want true", res != nil && res.NoPerson, err)
	}
}

// TestReadTSMC reads Yang et al.'s Foursquare layout (TSMC 2014) in a
// file made here: eight tab-separated columns, Twitter's time, Latin-1
// venue names; detected and named.
func TestReadTSMC(t *testing.T) {
	in := "470\t49bbd6c0f964a520f4531fe3\t4bf58dd8d48988d127951735\tArts & Crafts Store\t40.719810375488535\t-74.00258103213994\t-240\tTue Apr 03 18:00:09 +0000 2012\n" +
		"979\t4a43c0aef964a520c6a61fe3\t4bf58dd8d48988d1df941735\tCaf\xe9\t40.60679958140643\t-74.04416981025437\t-240\tTue Apr 03 18:00:25 +0000 2012\n"
	for _, f := range []Format{Auto, TSMC} {
		res, err := ReadCheckins(strings.NewReader(in), f, Options{})
		if err != nil {
			t.Fatal(err)
		}
		c := res.Checkins[1]
		if res.Format != TSMC || res.Format.String() != "tsmc2014" || len(res.Checkins) != 2 || !res.Latin1 || res.NoPerson {
			t.Fatalf("format %v, %d check-ins, Latin-1 %v, no person %v", res.Format, len(res.Checkins), res.Latin1, res.NoPerson)
		}
		if c.User != "979" || c.Location != "4a43c0aef964a520c6a61fe3" || c.Lat() != 40.60679958140643 || !c.Time.Equal(time.Date(2012, 4, 3, 18, 0, 25, 0, time.UTC)) {
			t.Errorf("second check-in %+v", c)
		}
	}
	if f, err := ParseFormat("tsmc2014"); f != TSMC || err != nil {
		t.Errorf("ParseFormat(tsmc2014) = %v, %v", f, err)
	}
	// Unix milliseconds and RFC 1123 times.
	for s, want := range map[string]time.Time{
		"1333476009000":                   time.Date(2012, 4, 3, 18, 0, 9, 0, time.UTC),
		"1333476009":                      time.Date(2012, 4, 3, 18, 0, 9, 0, time.UTC),
		"Tue, 03 Apr 2012 18:00:09 +0000": time.Date(2012, 4, 3, 18, 0, 9, 0, time.UTC),
	} {
		if got, err := parseTime(s); err != nil || !got.Equal(want) {
			t.Errorf("parseTime(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
}

// TestReadPresetLayouts reads small files made here in the layouts of
// SNAP's Brightkite check-ins (loc-brightkite_totalCheckins.txt: user,
// time, lat, lon, location id, tab-separated) and of the Weeplaces
// check-ins (a CSV headed userid,placeid,datetime,lat,lon,city,category),
// named by their -format.
func TestReadPresetLayouts(t *testing.T) {
	for _, tc := range []struct {
		format, in string
		want       Format
	}{
		{"brightkite", "0\t2010-10-17T01:48:53Z\t39.747652\t-104.99251\t88c46bf20db295831bd2d1718ad7e6f5\n" +
			"0\t2010-10-16T06:02:04Z\t39.891383\t-105.070814\t7a0f88982aa015062b95e3b4843f9ca2\n", SNAP},
		{"weeplaces", "userid,placeid,datetime,lat,lon,city,category\n" +
			"fred-wilson,tompkins-square-park-new-york,2010-10-22T23:44:29,40.7262,-73.9817,New York,Parks\n" +
			"fred-wilson,union-square-cafe-new-york,2010-10-23T01:12:00,40.7368,-73.9882,New York,Food:American\n", Delimited},
	} {
		f, err := ParseFormat(tc.format)
		if err != nil || f != tc.want {
			t.Fatalf("ParseFormat(%s) = %v, %v", tc.format, f, err)
		}
		res, err := ReadCheckins(strings.NewReader(tc.in), f, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if c := res.Checkins[1]; len(res.Checkins) != 2 || res.NoPerson || c.User == "" || c.Location == "" || c.Time.IsZero() || c.Lat() < 39 {
			t.Errorf("%s: %d check-ins, the second %+v", tc.format, len(res.Checkins), c)
		}
	}
}
