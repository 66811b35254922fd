package geo

import (
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
	if lines := strings.Count(in, "\n") + 1; len(res.Checkins)+res.Skipped > lines || res.Lines > lines {
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
