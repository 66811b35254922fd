package geo

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestReadOutlines(t *testing.T) {
	fc := `{"type": "FeatureCollection", "features": [
	  {"type": "Feature", "properties": {"name": "a"}, "geometry": {"type": "Polygon", "coordinates": [[[-122.5, 37.7], [-122.4, 37.7], [-122.4, 37.8], [-122.5, 37.7]], [[-122.46, 37.74], [-122.44, 37.74], [-122.44, 37.76], [-122.46, 37.74]]]}},
	  {"type": "Feature", "properties": {}, "geometry": {"type": "MultiLineString", "coordinates": [[[-122.5, 37.75], [-122.3, 37.75]], [[0, 0], [1, 1], [2, 0]]]}},
	  {"type": "Feature", "properties": {}, "geometry": {"type": "Point", "coordinates": [-122.4, 37.7]}}
	]}`
	ls, err := ReadOutlines(context.Background(), strings.NewReader(fc))
	if err != nil {
		t.Fatal(err)
	}
	if len(ls) != 4 || len(ls[0]) != 4 || len(ls[3]) != 3 {
		t.Fatalf("outlines %v", ls)
	}
	for _, tc := range []struct{ in, want string }{
		{`{"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [0, 1], [0, 0]]]}`, ""},
		{`{"type": "Feature", "geometry": {"type": "LineString", "coordinates": [[0, 0], [1, 1]]}}`, ""},
		{`{"type": "LineString", "coordinates": [[0, 0], [200, 1]]}`, "is not a longitude and latitude"},
		{`{"coordinates": []}`, `no "type" member`},
		{`{"type": "FeatureCollection", "features": [`, "GeoJSON"},
		{`[1, 2]`, "GeoJSON"},
	} {
		_, err := ReadOutlines(context.Background(), strings.NewReader(tc.in))
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v, want %q", tc.in, err, tc.want)
		}
	}
}

// FuzzReadOutlines reads arbitrary text as GeoJSON: an error, or
// outlines of at least two vertices inside the world, never a panic.
func FuzzReadOutlines(f *testing.F) {
	f.Add(`{"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [0, 1], [0, 0]]]}`)
	f.Add(`{"type": "FeatureCollection", "features": [{"type": "Feature", "geometry": {"type": "MultiPolygon", "coordinates": [[[[0, 0], [1, 0], [0, 0]]]]}}]}`)
	f.Add(`{"type": "GeometryCollection", "geometries": [{"type": "LineString", "coordinates": [[0, 0], [1, 1]]}]}`)
	f.Fuzz(func(t *testing.T, in string) {
		ls, err := ReadOutlines(context.Background(), strings.NewReader(in))
		if err != nil {
			return
		}
		for _, l := range ls {
			if len(l) < 2 {
				t.Fatalf("outline %v", l)
			}
			for _, p := range l {
				if !(p[0] >= -180 && p[0] <= 180 && p[1] >= -90 && p[1] <= 90) {
					t.Fatalf("vertex %v", p)
				}
			}
		}
	})
}

// TestOutlineWork reads GeoJSON files within the byte limit whose work
// is not: 25 million empty polygons (refused from their bytes, before
// decoding), 60,000 two-vertex lines and a line of 2,000,001 vertices.
func TestOutlineWork(t *testing.T) {
	for _, tc := range []struct {
		name, kind, element string
		n                   int
		want                string
	}{
		{"5·10⁶ empty polygons", "MultiPolygon", "[]", 5_000_000, "arrays (vertices, rings, polygons), more than"},
		{"60,000 lines", "MultiLineString", "[[0,0],[1,1]]", 60_000, "more than 50000 lines"},
		{"2,000,001 vertices", "LineString", "[0,0]", MaxOutlinePoints + 1, "more than 2000000 vertices"},
	} {
		doc := `{"type":"` + tc.kind + `","coordinates":[` + strings.Repeat(tc.element+",", tc.n-1) + tc.element + "]}"
		if _, err := ReadOutlines(context.Background(), strings.NewReader(doc)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

// TestReadOutlinesCancel stops reading an overlay when ctx ends: a
// line of 10⁶ vertices (seconds to decode on a loaded machine, deaf to
// SIGTERM) gives ctx's error, cancelled before and as it is read.
func TestReadOutlinesCancel(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"type": "LineString", "coordinates": [`)
	for i := range 1_000_000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "[%.5f,%.5f]", -122.5+float64(i%1000)*1e-4, 37.7+float64(i/1000)*1e-4)
	}
	b.WriteString("]}")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ReadOutlines(ctx, strings.NewReader(b.String())); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	ls, err := ReadOutlines(context.Background(), strings.NewReader(b.String()))
	if err != nil || len(ls) != 1 || len(ls[0]) != 1_000_000 {
		t.Errorf("%d lines, %v", len(ls), err)
	}
}
