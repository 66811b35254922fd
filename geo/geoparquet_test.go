package geo

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/wkb"
)

// visitRow is a row of a GeoParquet point layer as GDAL or GeoPandas
// write it: a WKB geometry and attributes.
type visitRow struct {
	Geometry []byte    `parquet:"geometry"`
	Person   string    `parquet:"person_id"`
	Seen     time.Time `parquet:"timestamp,timestamp(millisecond)"`
	Venue    int64     `parquet:"venue"`
}

// nativeRow is a row in GeoParquet 1.1's native point encoding.
type nativeRow struct {
	Geometry struct {
		X float64 `parquet:"x"`
		Y float64 `parquet:"y"`
	} `parquet:"geometry"`
	Name string `parquet:"name"`
}

// writeParquet writes rows with the "geo" metadata geo to a file in dir.
func writeParquet[T any](t *testing.T, dir, name, geo string, rows []T) string {
	return writeParquetTB(t, dir, name, geo, rows)
}

func writeParquetTB[T any](t testing.TB, dir, name, geo string, rows []T) string {
	t.Helper()
	path := filepath.Join(dir, name)
	fh, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	w := parquet.NewGenericWriter[T](fh, parquet.KeyValueMetadata("geo", geo))
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReadGeoParquet reads GeoParquet point layers, WKB and native, found
// by their first bytes: the person, time (a timestamp column) and place
// from the attributes; a polygon is refused by its row; a projected
// layer, a plain Parquet file and a mapping of coordinates are refused.
func TestReadGeoParquet(t *testing.T) {
	dir := t.TempDir()
	point := func(lon, lat float64) []byte {
		b, err := wkb.Marshal(orb.Point{lon, lat})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	poly, _ := wkb.Marshal(orb.Polygon{{{0, 0}, {1, 0}, {1, 1}, {0, 0}}})
	meta := `{"version": "1.1.0", "primary_column": "geometry", "columns": {"geometry": {"encoding": "WKB", "geometry_types": ["Point"]}}}`
	t0 := time.Date(2024, 1, 2, 10, 0, 0, 0, time.UTC)
	path := writeParquet(t, dir, "visits.parquet", meta, []visitRow{
		{point(-122.419416, 37.774929), "ann", t0, 7},
		{point(-122.42, 37.78), "bob", t0.Add(time.Hour), 8},
		{poly, "cat", t0, 9},
	})
	var got []Checkin
	collect := func(c Checkin) error { got = append(got, c); return nil }
	_, err := ScanPath(context.Background(), path, Auto, Options{}, collect)
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Unit != "row" || pe.Line != 3 || err.Error() != "row 3: geometry is not a point: a Polygon" {
		t.Fatalf("a polygon: %v", err)
	}
	got = nil
	res, err := ScanPath(context.Background(), path, Auto, Options{SkipBad: true}, collect)
	if err != nil {
		t.Fatal(err)
	}
	if res.Format != GeoParquet || res.Lines != 3 || res.Skipped != 1 || len(got) != 2 || res.NoPerson ||
		got[0].User != "ann" || got[0].Lat() != 37.774929 || got[0].Location != "7" || !got[1].Time.Equal(t0.Add(time.Hour)) {
		t.Fatalf("%+v, read %+v", res, got)
	}

	native := writeParquet(t, dir, "stops.parquet", `{"version": "1.1.0", "primary_column": "geometry", "columns": {"geometry": {"encoding": "point"}}}`,
		[]nativeRow{{Geometry: struct {
			X float64 `parquet:"x"`
			Y float64 `parquet:"y"`
		}{2.35, 48.85}, Name: "A"}})
	got = nil
	res, err = ScanPath(context.Background(), native, GeoParquet, Options{Mapping: &Mapping{Columns: map[string]string{"loc": "name"}}}, collect)
	if err != nil || len(got) != 1 || got[0].Lon() != 2.35 || got[0].Location != "A" || !res.NoPerson {
		t.Fatalf("native points: %v, %+v", err, got)
	}

	for name, tc := range map[string]struct {
		path string
		opt  Options
		want string
	}{
		"projected": {writeParquet(t, dir, "utm.parquet", `{"version": "1.1.0", "primary_column": "geometry", "columns": {"geometry": {"encoding": "WKB", "crs": {"id": {"authority": "EPSG", "code": 32610}}}}}`,
			[]visitRow{{Geometry: point(550000, 4180000)}}), Options{}, "not in longitude and latitude"},
		"plain Parquet":   {writeParquet(t, dir, "plain.parquet", "", []visitRow{{Person: "x"}}), Options{}, `without GeoParquet's "geo" metadata`},
		"coordinates":     {path, Options{Mapping: &Mapping{Columns: map[string]string{"lat": "person_id"}}}, "coordinates come from its geometry"},
		"unknown columns": {path, Options{Mapping: &Mapping{Columns: map[string]string{"user": "owner"}}}, `user="owner" is not in the header`},
	} {
		_, err := ScanPath(context.Background(), tc.path, Auto, tc.opt, collect)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
	if f, err := ParseFormat("geoparquet"); f != GeoParquet || err != nil {
		t.Errorf("ParseFormat(geoparquet) = %v, %v", f, err)
	}
}

// FuzzReadGeoParquet reads fuzzed files as GeoParquet layers: an error,
// or valid points and counts that add up.
func FuzzReadGeoParquet(f *testing.F) {
	dir := f.TempDir()
	b, _ := wkb.Marshal(orb.Point{2.35, 48.85})
	seed := writeParquetTB(f, dir, "seed.parquet", `{"version": "1.1.0", "primary_column": "geometry", "columns": {"geometry": {"encoding": "WKB"}}}`,
		[]visitRow{{Geometry: b, Person: "a"}, {Geometry: b[:5], Person: "b"}})
	data, err := os.ReadFile(seed)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Fuzz(func(t *testing.T, in []byte) {
		path := filepath.Join(t.TempDir(), "f.parquet")
		if err := os.WriteFile(path, in, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, skip := range []bool{false, true} {
			n := 0
			res, err := ScanPath(context.Background(), path, GeoParquet, Options{SkipBad: skip}, func(c Checkin) error {
				if math.IsNaN(c.Lat()) || math.Abs(c.Lat()) > 90 || math.Abs(c.Lon()) > 180 {
					t.Fatalf("read invalid point %v", c.Point)
				}
				n++
				return nil
			})
			if err == nil && n+res.Skipped != res.Lines {
				t.Fatalf("%d read and %d skipped of %d rows", n, res.Skipped, res.Lines)
			}
		}
	})
}

// TestWKBNested refuses a WKB GeometryCollection nested 4 million deep
// (36 MB) by its header, where orb's decoder recursed into each member
// and overflowed the goroutine stack (1 GB), and names the geometry
// types whose codes carry ISO's or EWKB's dimensions.
func TestWKBNested(t *testing.T) {
	b := append(bytes.Repeat([]byte{1, 7, 0, 0, 0, 1, 0, 0, 0}, 4_000_000), 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
	if _, err := wkbPoint(b); err == nil || err.Error() != "geometry is not a point: a GeometryCollection" {
		t.Errorf("a collection nested 4 million deep: %v", err)
	}
	for _, tc := range []struct {
		b    []byte
		want string
	}{
		{[]byte{0, 0, 0, 0x0b, 0xbe}, "geometry is not a point: a MultiPolygon"}, // ISO 3006: MultiPolygon Z M
		{[]byte{1, 2, 0, 0, 0x80}, "geometry is not a point: a LineString"},      // EWKB LineString Z
		{[]byte{1, 99, 0, 0, 0}, "geometry is not a point: a WKB geometry of type 99"},
		{[]byte{2, 1, 0, 0, 0}, "geometry is not a point: its WKB cannot be read: 5 bytes without a byte order and type"},
	} {
		if _, err := wkbPoint(tc.b); err == nil || err.Error() != tc.want {
			t.Errorf("% x: %v, want %q", tc.b, err, tc.want)
		}
	}
}

// FuzzWKB reads any bytes as a WKB point: an error, or a point from at
// least the 21 bytes of a 2-D one; never a panic or a stack overflow.
func FuzzWKB(f *testing.F) {
	p, _ := wkb.Marshal(orb.Point{2.35, 48.85})
	f.Add(p)
	c, _ := wkb.Marshal(orb.Collection{orb.Point{1, 2}, orb.Collection{orb.Point{3, 4}}})
	f.Add(c)
	f.Add(append(bytes.Repeat([]byte{1, 7, 0, 0, 0, 1, 0, 0, 0}, 100), p...))
	f.Fuzz(func(t *testing.T, b []byte) {
		pt, err := wkbPoint(b)
		if err == nil && len(b) < 21 {
			t.Errorf("% x, %d bytes, read as the point %v", b, len(b), pt)
		}
	})
}
