package geo

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// pointsGeoJSON is a FeatureCollection of points on one line, as GDAL and
// most exporters write it, with a polygon among them.
const pointsGeoJSON = `{"type": "FeatureCollection", "name": "visits", "crs": {"type": "name", "properties": {"name": "urn:ogc:def:crs:OGC:1.3:CRS84"}}, "features": [` +
	`{"type": "Feature", "properties": {"User ID": "ann", "visited_at": "2024-01-02T10:00:00Z", "venue": "Café", "time": "2024-01-02T10:00:00Z"}, "geometry": {"type": "Point", "coordinates": [-122.419416, 37.774929]}},` +
	`{"type": "Feature", "properties": {"User ID": "bob", "time": 1704189600, "venue": 7}, "geometry": {"type": "Point", "coordinates": [-122.42, 37.78, 12.5]}},` +
	`{"type": "Feature", "properties": {"User ID": "cat"}, "geometry": {"type": "Polygon", "coordinates": [[[-122.4, 37.7], [-122.3, 37.7], [-122.3, 37.8], [-122.4, 37.7]]]}}` +
	`]}`

// TestReadGeoJSON reads a FeatureCollection (found in Auto) and a text
// sequence of features: the point from the geometry, the person, time
// and place from the properties by their names or a mapping's; a
// polygon is refused by its feature's number.
func TestReadGeoJSON(t *testing.T) {
	_, err := ReadCheckins(strings.NewReader(pointsGeoJSON), Auto, Options{})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Unit != "feature" || pe.Line != 3 || !errors.Is(err, ErrNotPoint) || err.Error() != "feature 3: geometry is not a point: a Polygon" {
		t.Fatalf("a polygon: %v", err)
	}
	res, err := ReadCheckins(strings.NewReader(pointsGeoJSON), Auto, Options{SkipBad: true})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Checkins[0]
	if res.Format != GeoJSON || len(res.Checkins) != 2 || res.Skipped != 1 || res.Lines != 3 || res.NoPerson ||
		c.User != "ann" || c.Location != "Café" || c.Lon() != -122.419416 || c.Lat() != 37.774929 || !c.Time.Equal(time.Date(2024, 1, 2, 10, 0, 0, 0, time.UTC)) ||
		res.Checkins[1].Location != "7" || !res.Checkins[1].Time.Equal(time.Unix(1704189600, 0)) {
		t.Fatalf("%+v, first %+v", res, c)
	}
	// A mapping names the properties: visited_at as the time, no place.
	m := &Mapping{Columns: map[string]string{"time": "visited_at", "loc": "none"}}
	res, err = ReadCheckins(strings.NewReader(pointsGeoJSON), GeoJSON, Options{SkipBad: true, Mapping: m})
	if err != nil || res.Checkins[0].Location != "" || !res.Checkins[1].Time.IsZero() {
		t.Fatalf("mapped: %v, %+v", err, res)
	}
	seq := "\x1e{\"type\":\"Feature\",\"properties\":{\"id\":1},\"geometry\":{\"type\":\"Point\",\"coordinates\":[2.35,48.85]}}\n" +
		"\x1e{\"type\":\"Feature\",\"properties\":{\"id\":2},\"geometry\":{\"type\":\"Point\",\"coordinates\":[2.36,48.86]}}\n"
	res, err = ReadCheckins(strings.NewReader(seq), Auto, Options{})
	if err != nil || res.Format != GeoJSON || len(res.Checkins) != 2 || !res.NoPerson || res.Lines != 2 || res.Checkins[1].Lat() != 48.86 {
		t.Fatalf("a text sequence: %v, %+v", err, res)
	}
	defer func(n int64) { maxFeature = n }(maxFeature)
	maxFeature = 1 << 16
	for name, tc := range map[string]struct {
		in   string
		m    *Mapping
		want string
	}{
		"coordinates mapped":  {pointsGeoJSON, &Mapping{Columns: map[string]string{"lat": "y"}}, "coordinates come from its geometry"},
		"a numbered property": {pointsGeoJSON, &Mapping{Columns: map[string]string{"user": "2"}}, "attributes have names, not numbers"},
		"cut short":           {pointsGeoJSON[:300], nil, "feature 1: not a GeoJSON feature: unexpected EOF"},
		"latitude 95":         {`{"type":"FeatureCollection","features":[{"type":"Feature","properties":null,"geometry":{"type":"Point","coordinates":[0,95]}}]}`, nil, `feature 1: "95": invalid latitude`},
		"a feature too large": {`{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"a":"` + strings.Repeat("x", 1<<17) + `"}}]}`, nil, "feature 1: not a GeoJSON feature: a feature of more than 65536 bytes"},
		"no geometry":         {`{"type":"FeatureCollection","features":[{"type":"Feature","properties":{},"geometry":null}]}`, nil, "feature 1: geometry is not a point: it has none"},
	} {
		_, err := ReadCheckins(strings.NewReader(tc.in), GeoJSON, Options{Mapping: tc.m})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
}

// FuzzReadGeoJSON reads fuzzed GeoJSON: a result's points are valid, and
// its features (a collection's lines) count what was read and skipped.
func FuzzReadGeoJSON(f *testing.F) {
	f.Add(pointsGeoJSON)
	f.Add("\x1e{\"type\":\"Feature\",\"properties\":{\"user\":1},\"geometry\":{\"type\":\"Point\",\"coordinates\":[2.35,48.85]}}\n")
	f.Fuzz(func(t *testing.T, in string) {
		for _, skip := range []bool{false, true} {
			res, err := ReadCheckins(strings.NewReader(in), GeoJSON, Options{SkipBad: skip})
			if err != nil {
				continue
			}
			for _, c := range res.Checkins {
				if math.IsNaN(c.Lat()) || math.Abs(c.Lat()) > 90 || math.IsNaN(c.Lon()) || math.Abs(c.Lon()) > 180 {
					t.Fatalf("read invalid point %v", c.Point)
				}
			}
			if len(res.Checkins)+res.Skipped > res.Lines || res.Skipped < len(res.Errors) {
				t.Fatalf("%d read and %d skipped of %d", len(res.Checkins), res.Skipped, res.Lines)
			}
		}
	})
}

// TestGeoJSONDetection finds GeoJSON by parsing its first object's
// members, not by a string in its first kilobyte: a collection whose
// "features" come before its "type", one indented with tabs, one whose
// long "name" comes first (read as a CSV of thousands of fields), and a
// text sequence whose features carry a property "type":
// "FeatureCollection" (read as a collection). A JSON object that says
// neither is not GeoJSON, and a collection with two "features" members
// is refused (both were read).
func TestGeoJSONDetection(t *testing.T) {
	pt := func(lon, lat float64) string {
		return fmt.Sprintf(`{"type": "Feature", "geometry": {"type": "Point", "coordinates": [%g, %g]}, "properties": {"user": "ann"}}`, lon, lat)
	}
	two := pt(-74, 40.7) + ",\n" + pt(-73.9, 40.8)
	for name, text := range map[string]string{
		"features first":  `{"features": [` + two + `], "type": "FeatureCollection"}`,
		"tabs":            "{\n\t\"type\":\t\"FeatureCollection\",\n\t\"features\":\t[\n\t\t" + two + "\n\t]\n}\n",
		"long name first": `{"name": "` + strings.Repeat("a,", 20_000) + `", "type": "FeatureCollection", "features": [` + two + `]}`,
		"sequence":        "\x1e" + strings.ReplaceAll(pt(-74, 40.7), `"user": "ann"`, `"user": "ann", "type": "FeatureCollection"`) + "\n\x1e" + pt(-73.9, 40.8) + "\n",
	} {
		res, err := ReadCheckins(strings.NewReader(text), Auto, Options{})
		if err != nil || res.Format != GeoJSON || len(res.Checkins) != 2 || res.Checkins[1].Lat() != 40.8 {
			t.Errorf("%s: %v, %+v", name, err, res)
		}
	}
	if k := geoJSONKind([]byte(`{"alphabet": {"kind": "grid"}, "mechanisms": []}`)); k != notGeoJSON {
		t.Errorf("a study file read as GeoJSON (%d)", k)
	}
	dup := `{"type": "FeatureCollection", "features": [` + pt(-74, 40.7) + `], "features": [` + pt(-73.9, 40.8) + `]}`
	if _, err := ReadCheckins(strings.NewReader(dup), Auto, Options{}); err == nil || !strings.Contains(err.Error(), `a FeatureCollection with two "features" members`) {
		t.Errorf("two features members: %v", err)
	}
}
