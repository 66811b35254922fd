package geo

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func addSeeds(f *testing.F) {
	files, _ := filepath.Glob("testdata/*")
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(string(b))
		}
	}
	f.Add("")
	f.Add("\uFEFFlat\tlon\r\n1\t2\r\n")
	f.Add("\"a\nb\",1\nlat,lon\n")
}

// checkResult asserts what every successful read must satisfy.
func checkResult(t *testing.T, res *Result, in string) {
	t.Helper()
	for _, c := range res.Checkins {
		if math.IsNaN(c.Lat()) || math.Abs(c.Lat()) > 90 || math.IsNaN(c.Lon()) || math.Abs(c.Lon()) > 180 {
			t.Fatalf("read invalid point %v from %q", c.Point, in)
		}
	}
	if res.Skipped < len(res.Errors) || len(res.Errors) > MaxKeptErrors {
		t.Fatalf("skipped %d with %d reasons", res.Skipped, len(res.Errors))
	}
	lines := strings.Count(in, "\n") + 1
	if res.Format == GeoJSON && res.Lines > 0 && strings.Contains(in, "FeatureCollection") {
		lines = res.Lines // a collection counts its features
	}
	if len(res.Checkins)+res.Skipped > lines || res.Lines > lines {
		t.Fatalf("%d check-ins and %d skipped from %d lines (%d counted)", len(res.Checkins), res.Skipped, lines, res.Lines)
	}
	for _, e := range res.Errors {
		if e.Line < 1 || e.Line > res.Lines {
			t.Fatalf("reason %v outside lines 1..%d", e, res.Lines)
		}
	}
}

func fuzzFormat(f *testing.F, format Format) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, in string) {
		for _, skip := range []bool{false, true} {
			res, err := ReadCheckins(strings.NewReader(in), format, Options{SkipBad: skip})
			if err != nil {
				continue
			}
			checkResult(t, res, in)
		}
	})
}

func FuzzReadSNAP(f *testing.F)      { fuzzFormat(f, SNAP) }
func FuzzReadDelimited(f *testing.F) { fuzzFormat(f, Delimited) }
func FuzzReadLatLon(f *testing.F)    { fuzzFormat(f, LatLon) }
func FuzzReadAuto(f *testing.F)      { fuzzFormat(f, Auto) }

func FuzzReadTSMC(f *testing.F) { fuzzFormat(f, TSMC) }

// FuzzMapping reads a file by a fuzzed column mapping: a malformed
// mapping is refused, a read one satisfies checkResult.
func FuzzMapping(f *testing.F) {
	f.Add("user=1,lat=5,lon=6,time=8", "tab", "no", "470\tv\tc\tx\t40.5\t-74.1\t-240\tTue Apr 03 18:00:09 +0000 2012\n")
	f.Add("lat=Latitude (WGS84),lon=2", "semicolon", "auto", "Latitude (WGS84);lon\n40,5;-74,1\n")
	f.Add("lat=1,lon=2", "auto", "yes", "a,b\n1,2\n")
	f.Fuzz(func(t *testing.T, cols, delim, header, in string) {
		var m Mapping
		var err error
		if m.Columns, err = ParseColumns(cols); err != nil {
			return
		}
		if m.Delim, err = ParseDelimiter(delim); err != nil {
			return
		}
		if m.Header, err = ParseHeader(header); err != nil {
			return
		}
		for _, skip := range []bool{false, true} {
			res, err := ReadCheckins(strings.NewReader(in), Auto, Options{SkipBad: skip, Mapping: &m})
			if err != nil {
				continue
			}
			checkResult(t, res, in)
		}
	})
}

func FuzzReadYelp(f *testing.F) {
	f.Add(yelpBusinesses)
	fuzzFormat(f, Yelp)
}

func FuzzReadGeoLife(f *testing.F) {
	f.Add(pltHeader + "39.984702,116.318417,0,492,39744.1201851852,2008-10-23,02:53:04\r\n")
	fuzzFormat(f, GeoLife)
}

// FuzzPlacesJoin reads fuzzed venues and check-ins joined with them: a
// read join satisfies checkResult, each check-in at a venue read.
func FuzzPlacesJoin(f *testing.F) {
	f.Add(fsqVenues, fsqCheckins)
	f.Add("a\t1\t2\n", "u\ta\tTue Apr 03 18:00:06 +0000 2012\t0\n")
	f.Fuzz(func(t *testing.T, venues, checkins string) {
		places, err := ReadPlaces(context.Background(), strings.NewReader(venues), FoursquareGlobal, true)
		if err != nil {
			return
		}
		if places.Len() == 0 || places.Skipped < len(places.Errors) {
			t.Fatalf("%d places, %d skipped with %d reasons", places.Len(), places.Skipped, len(places.Errors))
		}
		for _, skip := range []bool{false, true} {
			res, err := ReadCheckins(strings.NewReader(checkins), FoursquareGlobal, Options{SkipBad: skip, Places: places})
			if err != nil {
				continue
			}
			checkResult(t, res, checkins)
			for _, c := range res.Checkins {
				if p, ok := places.lookup(c.Location); !ok || p != c.Point {
					t.Fatalf("check-in %+v not at its venue", c)
				}
			}
		}
	})
}

// FuzzPreview previews fuzzed text: the rows shown are at most those
// asked for, each read row a valid point, and a file that reads has its
// coordinate columns.
func FuzzPreview(f *testing.F) {
	addSeeds(f)
	f.Add("\xef\xbb\xbfUser ID;Latitude;Longitude\nu;40,5;-73,9\n")
	f.Fuzz(func(t *testing.T, in string) {
		p, err := PreviewDelimited(strings.NewReader(in), nil, 5)
		if err != nil {
			return
		}
		if len(p.Rows) > 5 {
			t.Fatalf("%d rows shown, want at most 5", len(p.Rows))
		}
		if p.Err == nil {
			if _, ok := p.Columns["lat"]; !ok {
				t.Fatalf("read without a latitude column: %+v", p)
			}
		}
		for _, r := range p.Rows {
			if r.Err == nil && p.Err == nil && (math.Abs(r.Checkin.Lat()) > 90 || math.Abs(r.Checkin.Lon()) > 180 || math.IsNaN(r.Checkin.Lat())) {
				t.Fatalf("row %+v read as an invalid point", r)
			}
		}
	})
}
