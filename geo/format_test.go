package geo

import (
	"slices"
	"testing"
)

// TestLayoutNames holds every name of every layout to the format it
// parses to, and every format's String to its record's name.
func TestLayoutNames(t *testing.T) {
	seen := map[string]bool{}
	for _, l := range Layouts() {
		for _, n := range l.Names {
			if seen[n] {
				t.Errorf("%q names two layouts", n)
			}
			seen[n] = true
			if f, err := ParseFormat(n); err != nil || f != l.Format {
				t.Errorf("ParseFormat(%q) = %v, %v, want %v", n, f, err, l.Format)
			}
		}
		for _, n := range l.Shown {
			if !slices.Contains(l.Names, n) {
				t.Errorf("%v shows %q, which it does not accept", l.Format, n)
			}
		}
		if l.Name != "" && l.Format.String() != l.Name {
			t.Errorf("%d.String() = %q, want %q", l.Format, l.Format.String(), l.Name)
		}
	}
	if Auto.String() != "auto" || Format(99).String() != "Format(99)" {
		t.Errorf("%v %v", Auto, Format(99))
	}
	_, err := ParseFormat("shapefile")
	if want := `geo: unknown format "shapefile" (want gowalla, foursquare, brightkite, tsmc2014, foursquare-global, weeplaces, yelp, geolife, xlsx, geojson, geoparquet or csv)`; err == nil || err.Error() != want {
		t.Errorf("ParseFormat(shapefile) = %v, want %s", err, want)
	}
}

// TestLayoutRecords holds the records to what their readers assume.
func TestLayoutRecords(t *testing.T) {
	for _, l := range Layouts() {
		switch {
		case l.Line != nil && l.Read != nil:
			t.Errorf("%v: both Line and Read", l.Format)
		case l.Places && !l.FromPath:
			t.Errorf("%v: a join is read from its path", l.Format)
		case l.Import && !l.Tabular:
			t.Errorf("%v: the import dialog maps tables only", l.Format)
		case l.Columns != nil && (l.Delim == 0 || !l.Tabular):
			t.Errorf("%v: columns without a delimiter, or of a non-table", l.Format)
		case l.Person && l.NoPerson:
			t.Errorf("%v: both names people and names none", l.Format)
		}
		if l.Name != "" && layoutOf(l.Format).Name != l.Name {
			t.Errorf("%v: two records name it", l.Format)
		}
	}
}

// TestFormatHelp is grid -format's list, record by record.
func TestFormatHelp(t *testing.T) {
	want := []string{"gowalla", "foursquare", "brightkite (SNAP's layout)", "tsmc2014 (Yang et al.'s NYC and Tokyo check-ins)",
		"foursquare-global (with -venues)", "weeplaces", "yelp (businesses; with -reviews, reviews)", "geolife (a folder of PLT trajectories)",
		"xlsx (an Excel workbook, -sheet)", "geojson (point features)", "geoparquet (a point layer)", "csv"}
	if got := FormatHelp(); !slices.Equal(got, want) {
		t.Errorf("FormatHelp() = %q\nwant %q", got, want)
	}
}

// TestDetect is detection's order: SNAP before TSMC before bare
// coordinates, a delimited file when none claims the line.
func TestDetect(t *testing.T) {
	for line, want := range map[string]Format{
		"0\t2010-10-19T23:55:27Z\t30.2359091167\t-97.7951395833\t22847":                                                                                              SNAP,
		"470\t49bbd6c0f964a520f4531fe3\t4bf58dd8d48988d127951735\tArts & Crafts Store\t40.719810375488535\t-74.00258103213994\t-240\tTue Apr 03 18:00:09 +0000 2012": TSMC,
		"37.7749,-122.4194": LatLon,
		"user,lat,lon":      Delimited,
	} {
		if got := detect(line); got != want {
			t.Errorf("detect(%q) = %v, want %v", line, got, want)
		}
	}
}

// TestLayoutMapping reads a headerless layout's columns from its record.
func TestLayoutMapping(t *testing.T) {
	m := LayoutMapping(TSMC)
	if m == nil || m.Columns["lat"] != "5" || m.Delim != '\t' || m.Header != HeaderNo {
		t.Fatalf("LayoutMapping(TSMC) = %+v", m)
	}
	m.Columns["lat"] = "1" // a copy: the record keeps its own
	if LayoutMapping(TSMC).Columns["lat"] != "5" {
		t.Error("LayoutMapping handed out the record's map")
	}
	if LayoutMapping(GeoJSON) != nil {
		t.Error("GeoJSON has no columns")
	}
}

func TestOrList(t *testing.T) {
	for want, words := range map[string][]string{"": nil, "a": {"a"}, "a or b": {"a", "b"}, "a, b or c": {"a", "b", "c"}} {
		if got := OrList(words); got != want {
			t.Errorf("OrList(%q) = %q, want %q", words, got, want)
		}
	}
}
