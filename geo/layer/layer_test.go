package layer

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geojson"

	"github.com/privmap/privmap/internal/testtool"
)

// testLayer is a 4×3 grid over San Francisco with a probability column
// whose values have all 17 digits, a count column and a negative one.
func testLayer() *Layer {
	l := &Layer{Name: "privmap", Software: "privmap 0.1.0 (commit 'abc')", Grid: Grid{Cols: 4, Rows: 3, South: 37.7228, West: -122.5153, North: 37.7946, East: -122.3789}}
	k := l.Grid.Len()
	p, c, d := make([]float64, k), make([]float64, k), make([]float64, k)
	for x := range k {
		p[x] = float64(x*x) / 506 // Σ x² over 0..11 = 506
		c[x] = float64(x * 7 % 5)
		d[x] = p[x] - 1.0/12
	}
	l.Columns = []Column{{Name: "probability", Values: p}, {Name: "count", Values: c, Integer: true}, {Name: "difference", Values: d}}
	return l
}

// gdalTool returns the path of one of GDAL's programs (testtool.Need).
func gdalTool(t *testing.T, name string) string { return testtool.Need(t, name, "gdal-bin") }

func run(t *testing.T, name string, args ...string) []byte {
	t.Helper()
	var stderr bytes.Buffer
	cmd := exec.Command(gdalTool(t, name), args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, stderr.String())
	}
	if s := stderr.String(); strings.Contains(s, "Warning") || strings.Contains(s, "ERROR") {
		t.Fatalf("%s %v warned: %s", name, args, s)
	}
	return out
}

func write(t *testing.T, l *Layer, name string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	var b bytes.Buffer
	var err error
	switch filepath.Ext(name) {
	case ".geojson":
		err = WriteGeoJSON(&b, l)
	case ".gpkg":
		err = WriteGeoPackage(context.Background(), &b, l)
	case ".tif":
		err = WriteGeoTIFF(&b, l)
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestGeoJSONCells reads the layer back with orb: one feature a cell, its
// polygon the cell's box, counter-clockwise, and its properties the
// columns exactly.
func TestGeoJSONCells(t *testing.T) {
	l := testLayer()
	var b bytes.Buffer
	if err := WriteGeoJSON(&b, l); err != nil {
		t.Fatal(err)
	}
	fc, err := geojson.UnmarshalFeatureCollection(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	g := l.Grid
	if len(fc.Features) != g.Len() {
		t.Fatalf("%d features, want %d", len(fc.Features), g.Len())
	}
	for x, f := range fc.Features {
		poly, ok := f.Geometry.(orb.Polygon)
		if !ok || len(poly) != 1 || len(poly[0]) != 5 {
			t.Fatalf("feature %d: %v, want a polygon of one closed ring of 4 corners", x, f.Geometry)
		}
		if poly[0].Orientation() != orb.CCW {
			t.Errorf("feature %d: the ring is clockwise; RFC 7946 wants exterior rings counter-clockwise", x)
		}
		if got, want := poly.Bound(), g.Cell(x); got != want {
			t.Errorf("feature %d: box %v, want %v", x, got, want)
		}
		r, c := x/g.Cols, x%g.Cols
		if f.Properties.MustInt("cell") != x || f.Properties.MustInt("row") != r || f.Properties.MustInt("col") != c {
			t.Errorf("feature %d: cell/row/col %v", x, f.Properties)
		}
		for _, col := range l.Columns {
			if got := f.Properties.MustFloat64(col.Name); got != col.Values[x] {
				t.Errorf("feature %d: %s = %v, want %v", x, col.Name, got, col.Values[x])
			}
		}
	}
	// The corners of the grid are the box's exactly.
	b0, bk := g.Cell(0), g.Cell(g.Len()-1)
	if b0.Min != (orb.Point{g.West, g.South}) || bk.Max != (orb.Point{g.East, g.North}) {
		t.Errorf("corners %v and %v, want the box", b0.Min, bk.Max)
	}
}

// TestVectorLayersWithOGR reads the GeoJSON and the GeoPackage with
// GDAL's ogr2ogr: as many features as cells, its extent the grid's box,
// every property equal to the columns (to the 15 significant digits of
// OGR's CSV), and no warning from the GeoPackage driver.
func TestVectorLayersWithOGR(t *testing.T) {
	l := testLayer()
	for _, name := range []string{"map.geojson", "map.gpkg"} {
		t.Run(name, func(t *testing.T) {
			path := write(t, l, name)
			info := string(run(t, "ogrinfo", "-ro", "-al", "-so", path))
			if !strings.Contains(info, "Feature Count: 12") {
				t.Errorf("ogrinfo: %s", info)
			}
			if !strings.Contains(info, "Extent: (-122.515300, 37.722800) - (-122.378900, 37.794600)") {
				t.Errorf("ogrinfo extent: %s", info)
			}
			if !strings.Contains(info, `ID["EPSG",4326]`) {
				t.Errorf("ogrinfo: not in WGS 84: %s", info)
			}
			// The program that wrote it: the GeoJSON's generator member
			// (ogrinfo does not list it), the GeoPackage's description.
			if b, _ := os.ReadFile(path); name == "map.geojson" && !bytes.Contains(b, []byte(`"generator":"privmap 0.1.0 (commit 'abc')"`)) ||
				name == "map.gpkg" && !strings.Contains(info, "DESCRIPTION=privmap grid of 4×3 cells, written by privmap 0.1.0 (commit 'abc')") {
				t.Errorf("%s does not name the program that wrote it: %s", name, info)
			}
			rows, err := csv.NewReader(bytes.NewReader(run(t, "ogr2ogr", "-f", "CSV", "/vsistdout/", path, "-lco", "GEOMETRY=AS_WKT"))).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			checkRows(t, l, rows)
		})
	}
}

// checkRows compares OGR's CSV of a layer with its columns.
func checkRows(t *testing.T, l *Layer, rows [][]string) {
	t.Helper()
	if len(rows) != l.Grid.Len()+1 {
		t.Fatalf("%d rows, want a header and %d", len(rows), l.Grid.Len())
	}
	at := map[string]int{}
	for i, h := range rows[0] {
		at[h] = i
	}
	for x, rec := range rows[1:] {
		cell, _ := strconv.Atoi(rec[at["cell"]])
		if cell != x {
			t.Fatalf("row %d holds cell %d", x, cell)
		}
		for _, c := range append([]Column{{Name: "row", Values: rowsOf(l.Grid)}}, l.Columns...) {
			v, err := strconv.ParseFloat(rec[at[c.Name]], 64)
			if err != nil || math.Abs(v-c.Values[x]) > 1e-14*math.Max(1, math.Abs(c.Values[x])) {
				t.Errorf("cell %d: %s = %q, want %v", x, c.Name, rec[at[c.Name]], c.Values[x])
			}
		}
		// The outline, to the 15 digits of OGR's WKT.
		var ring []float64
		for _, f := range strings.FieldsFunc(rec[at["WKT"]], func(r rune) bool { return !strings.ContainsRune("-.0123456789", r) }) {
			v, _ := strconv.ParseFloat(f, 64)
			ring = append(ring, v)
		}
		b := l.Grid.Cell(x)
		want := []float64{b.Min[0], b.Min[1], b.Max[0], b.Min[1], b.Max[0], b.Max[1], b.Min[0], b.Max[1], b.Min[0], b.Min[1]}
		for i := range want {
			if len(ring) != len(want) || math.Abs(ring[i]-want[i]) > 1e-9 {
				t.Fatalf("cell %d: %s, want the cell's box %v", x, rec[at["WKT"]], b)
			}
		}
	}
}

func rowsOf(g Grid) []float64 {
	v := make([]float64, g.Len())
	for x := range v {
		v[x] = float64(x / g.Cols)
	}
	return v
}

// TestGeoTIFFWithGDAL reads the raster with gdalinfo and gdal_translate:
// its corners are the grid's box within 1e−9°, in EPSG:4326, one band a
// column with its name, and every pixel its cell's value, the first
// row of pixels the northern row of cells.
func TestGeoTIFFWithGDAL(t *testing.T) {
	l := testLayer()
	path := write(t, l, "map.tif")
	var info struct {
		Metadata          map[string]map[string]string `json:"metadata"`
		Size              []int                        `json:"size"`
		CoordinateSystem  struct{ Wkt string }         `json:"coordinateSystem"`
		CornerCoordinates map[string][]float64         `json:"cornerCoordinates"`
		Bands             []struct {
			Type        string `json:"type"`
			Description string `json:"description"`
		} `json:"bands"`
	}
	if err := json.Unmarshal(run(t, "gdalinfo", "-json", path), &info); err != nil {
		t.Fatal(err)
	}
	if got := info.Metadata[""]["TIFFTAG_SOFTWARE"]; got != l.Software {
		t.Errorf("TIFFTAG_SOFTWARE %q, want %q", got, l.Software)
	}
	g := l.Grid
	if len(info.Size) != 2 || info.Size[0] != g.Cols || info.Size[1] != g.Rows {
		t.Errorf("size %v, want %d×%d", info.Size, g.Cols, g.Rows)
	}
	if !strings.Contains(info.CoordinateSystem.Wkt, `ID["EPSG",4326]`) {
		t.Errorf("coordinate system %s, want EPSG:4326", info.CoordinateSystem.Wkt)
	}
	want := map[string][2]float64{"upperLeft": {g.West, g.North}, "lowerLeft": {g.West, g.South}, "upperRight": {g.East, g.North}, "lowerRight": {g.East, g.South}}
	for name, w := range want {
		c := info.CornerCoordinates[name]
		if len(c) != 2 || math.Abs(c[0]-w[0]) > 1e-9 || math.Abs(c[1]-w[1]) > 1e-9 {
			t.Errorf("%s corner %v, want %v", name, c, w)
		}
	}
	if len(info.Bands) != len(l.Columns) {
		t.Fatalf("%d bands, want %d", len(info.Bands), len(l.Columns))
	}
	for i, c := range l.Columns {
		if info.Bands[i].Type != "Float64" || info.Bands[i].Description != c.Name {
			t.Errorf("band %d: %+v, want Float64 %s", i+1, info.Bands[i], c.Name)
		}
		// GDAL's reading of the band, written back as raw little-endian
		// float64s (ENVI), row by row from the top.
		raw := filepath.Join(t.TempDir(), "band.bin")
		run(t, "gdal_translate", "-q", "-of", "ENVI", "-b", strconv.Itoa(i+1), path, raw)
		data, err := os.ReadFile(raw)
		if err != nil || len(data) != 8*g.Len() {
			t.Fatalf("band %d: %d bytes (%v), want 8 a cell", i+1, len(data), err)
		}
		for p := range g.Len() {
			v := math.Float64frombits(binary.LittleEndian.Uint64(data[8*p:]))
			// Pixel p is row p/Cols from the top: grid row Rows−1−p/Cols.
			x := (g.Rows-1-p/g.Cols)*g.Cols + p%g.Cols
			if v != c.Values[x] {
				t.Errorf("band %d pixel %d: %v, want cell %d's %v", i+1, p, v, x, c.Values[x])
			}
		}
	}
}

// TestCheck refuses what no format can hold.
func TestCheck(t *testing.T) {
	cases := map[string]func(l *Layer){
		"not finite":      func(l *Layer) { l.Columns[0].Values[3] = math.NaN() },
		"length":          func(l *Layer) { l.Columns[1].Values = l.Columns[1].Values[:5] },
		"reserved name":   func(l *Layer) { l.Columns[0].Name = "cell" },
		"duplicate name":  func(l *Layer) { l.Columns[1].Name = "probability" },
		"quoted name":     func(l *Layer) { l.Columns[0].Name = `a"b` },
		"not whole":       func(l *Layer) { l.Columns[1].Values[0] = 0.5 },
		"no box":          func(l *Layer) { l.Grid.North = l.Grid.South },
		"too many cells":  func(l *Layer) { l.Grid.Cols, l.Grid.Rows = 4096, 4096 },
		"no columns":      func(l *Layer) { l.Columns = nil },
		"bad layer name":  func(l *Layer) { l.Name = "my layer" },
		"latitude beyond": func(l *Layer) { l.Grid.North = 91 },
	}
	for name, spoil := range cases {
		l := testLayer()
		spoil(l)
		if l.Check() == nil {
			t.Errorf("%s: accepted", name)
		}
		if WriteGeoJSON(&bytes.Buffer{}, l) == nil || WriteGeoTIFF(&bytes.Buffer{}, l) == nil || WriteGeoPackage(context.Background(), &bytes.Buffer{}, l) == nil {
			t.Errorf("%s: written", name)
		}
	}
	if err := testLayer().Check(); err != nil {
		t.Error(err)
	}
}
