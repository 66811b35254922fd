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
