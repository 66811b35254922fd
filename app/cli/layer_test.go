package cli

import (
	"bytes"
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

	"github.com/privmap/privmap/app/studyfile"
	"github.com/privmap/privmap/core"
	"github.com/privmap/privmap/internal/testtool"
)

// layerFixture grids the default check-ins, estimates them with
// intervals and releases the truth: the files of every column a layer
// can hold.
func layerFixture(t *testing.T) (p func(string) string) {
	t.Helper()
	dir := t.TempDir()
	p = func(n string) string { return filepath.Join(dir, n) }
	for _, args := range [][]string{
		{"grid", "-in", "../../assets/default_checkins.snap.txt", "-o", p("t.csv"), "-study-out", p("s.json"), "-preset", "fw-t6"},
		{"simulate", "-study", p("s.json"), "-truth", p("t.csv"), "-n", "3000", "-aggregate", "-o", p("r.csv")},
		{"estimate", "-study", p("s.json"), "-reports", p("r.csv"), "-method", "ibu-m", "-ci", "0.9", "-boot", "20", "-o", p("e.csv")},
		{"release", "-truth", p("t.csv"), "-mechanism", "geometric", "-eps", "1", "-ci", "0.9", "-o", p("rel.csv")},
	} {
		if code, _, errs := run(args...); code != 0 {
			t.Fatalf("%v: %s", args, errs)
		}
	}
	return p
}

// layerColumns reads the fixture's files as the columns the layer must
// hold, by name.
func layerColumns(t *testing.T, p func(string) string) (core.Alphabet, map[string][]float64) {
	t.Helper()
	as, err := studyfile.Open(p("s.json"))
	if err != nil {
		t.Fatal(err)
	}
	a := as.Study.Alphabet
	truth, err := readTruth(p("t.csv"), &a)
	if err != nil {
		t.Fatal(err)
	}
	est, iv, err := readEstimate(p("e.csv"), a)
	if err != nil || iv == nil {
		t.Fatal(err, iv)
	}
	counts, err := readCountFile(p("t.csv"), a)
	if err != nil {
		t.Fatal(err)
	}
	rel, err := readCountFile(p("rel.csv"), a)
	if err != nil {
		t.Fatal(err)
	}
	diff := make([]float64, len(est))
	for x := range diff {
		diff[x] = est[x] - truth[x]
	}
	cols := map[string][]float64{"true_probability": truth, "count": counts.Counts, "probability": est, "difference": diff,
		"lo": iv.Lo, "hi": iv.Hi, "band_lo": iv.BandLo, "band_hi": iv.BandHi, "released": rel.Counts}
	for _, c := range []string{"raw_count", "lo", "hi", "band_lo", "band_hi"} {
		v, err := extraColumnOf(rel, c)
		if err != nil {
			t.Fatal(err)
		}
		cols["released_"+strings.TrimSuffix(c, "_count")] = v
	}
	return a, cols
}

// extraColumnOf reads a release's descriptive column as numbers.
func extraColumnOf(t *core.CountTable, name string) ([]float64, error) {
	v := make([]float64, len(t.Counts))
	for i, e := range t.Extra {
		if e != name {
			continue
		}
		for x, rec := range t.Values {
			f, err := strconv.ParseFloat(rec[i], 64)
			if err != nil {
				return nil, err
			}
			v[x] = f
		}
	}
	return v, nil
}

// TestRenderLayerGeoJSON writes every map as a GeoJSON layer: one
// feature a cell, empty cells included, its polygon inside the grid's
// box, and every property equal to the files' numbers exactly.
func TestRenderLayerGeoJSON(t *testing.T) {
	p := layerFixture(t)
	code, out, errs := run("render", "-study", p("s.json"), "-truth", p("t.csv"), "-estimate", p("e.csv"), "-release", p("rel.csv"), "-o", p("m.geojson"))
	if code != 0 {
		t.Fatal(errs)
	}
	var line struct {
		Cells   int
		Columns []string
	}
	if err := json.Unmarshal([]byte(out), &line); err != nil {
		t.Fatal(out, err)
	}
	a, cols := layerColumns(t, p)
	if line.Cells != a.Len() || len(line.Columns) != len(cols) {
		t.Errorf("summary %s: want %d cells and the columns %v", out, a.Len(), cols)
	}
	b, err := os.ReadFile(p("m.geojson"))
	if err != nil {
		t.Fatal(err)
	}
	fc, err := geojson.UnmarshalFeatureCollection(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(fc.Features) != a.Len() {
		t.Fatalf("%d features for %d cells", len(fc.Features), a.Len())
	}
	box := orb.Bound{Min: orb.Point{a.West, a.South}, Max: orb.Point{a.East, a.North}}
	for x, f := range fc.Features {
		fb := f.Geometry.Bound()
		if !box.Contains(fb.Min) || !box.Contains(fb.Max) || f.Properties.MustInt("cell") != x {
			t.Fatalf("feature %d: %v outside the box %v or the wrong cell", x, fb, box)
		}
		lat := a.South + (float64(x/a.Cols)+0.5)*(a.North-a.South)/float64(a.Rows)
		if c := fb.Center(); math.Abs(c[1]-lat) > 1e-9 {
			t.Fatalf("feature %d centred at latitude %v, the CSV's cell at %v", x, c[1], lat)
		}
		for name, v := range cols {
			if got := f.Properties.MustFloat64(name, math.NaN()); got != v[x] {
				t.Fatalf("feature %d: %s = %v, want %v", x, name, got, v[x])
			}
		}
	}
}

// TestRenderLayerGDAL writes the GeoPackage and the GeoTIFF and reads
// them with GDAL: the features' properties equal the files' numbers,
// and the raster's corners are the grid's box within 1e−9°.
func TestRenderLayerGDAL(t *testing.T) {
	ogr2ogr, gdalinfo := testtool.Need(t, "ogr2ogr", "gdal-bin"), testtool.Need(t, "gdalinfo", "gdal-bin")
	p := layerFixture(t)
	a, cols := layerColumns(t, p)
	if code, _, errs := run("render", "-study", p("s.json"), "-truth", p("t.csv"), "-estimate", p("e.csv"), "-release", p("rel.csv"), "-o", p("m.gpkg")); code != 0 {
		t.Fatal(errs)
	}
	out, err := exec.Command(ogr2ogr, "-f", "CSV", "/vsistdout/", p("m.gpkg")).Output()
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(out)).ReadAll()
	if err != nil || len(rows) != a.Len()+1 {
		t.Fatalf("ogr2ogr: %d rows (%v), want %d cells", len(rows), err, a.Len())
	}
	for name, v := range cols {
		i := -1
		for j, h := range rows[0] {
			if h == name {
				i = j
			}
		}
		if i < 0 {
			t.Fatalf("the GeoPackage has no column %s: %v", name, rows[0])
		}
		for x, rec := range rows[1:] {
			got, err := strconv.ParseFloat(rec[i], 64)
			if err != nil || math.Abs(got-v[x]) > 1e-14*math.Max(1, math.Abs(v[x])) {
				t.Fatalf("cell %d: %s = %q, want %v", x, name, rec[i], v[x])
			}
		}
	}
	if code, _, errs := run("render", "-study", p("s.json"), "-estimate", p("e.csv"), "-o", p("m.tif")); code != 0 {
		t.Fatal(errs)
	}
	out, err = exec.Command(gdalinfo, "-json", p("m.tif")).Output()
	if err != nil {
		t.Fatal(err)
	}
	var info struct {
		CornerCoordinates map[string][]float64 `json:"cornerCoordinates"`
		Bands             []struct{ Description string }
	}
	if err := json.Unmarshal(out, &info); err != nil {
		t.Fatal(err)
	}
	ul, lr := info.CornerCoordinates["upperLeft"], info.CornerCoordinates["lowerRight"]
	if len(ul) != 2 || len(lr) != 2 || math.Abs(ul[0]-a.West) > 1e-9 || math.Abs(ul[1]-a.North) > 1e-9 ||
		math.Abs(lr[0]-a.East) > 1e-9 || math.Abs(lr[1]-a.South) > 1e-9 {
		t.Errorf("corners %v, %v; want the box %v–%v N, %v–%v E", ul, lr, a.South, a.North, a.West, a.East)
	}
	if len(info.Bands) != 5 || info.Bands[0].Description != "probability" || info.Bands[4].Description != "band_hi" {
		t.Errorf("bands %+v, want probability, lo, hi, band_lo, band_hi", info.Bands)
	}
}

// TestRenderLayerRefusals: a picture's flags, no map, a census table,
// a release on a picture, and a failure that leaves the earlier layer as it
// was.
func TestRenderLayerRefusals(t *testing.T) {
	p := layerFixture(t)
	if code, _, errs := run("render", "-study", p("s.json"), "-truth", p("t.csv"), "-o", p("m.geojson")); code != 0 {
		t.Fatal(errs)
	}
	before, _ := os.ReadFile(p("m.geojson"))
	if err := os.WriteFile(p("bad.csv"), []byte("cell,probability,count\n0,0,x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-truth", p("t.csv"), "-scale", "log", "-o", p("m.geojson")}, 2, "-scale shapes a picture"},
		{[]string{"-o", p("m.geojson")}, 2, "needs a map"},
		{[]string{"-truth", p("t.csv"), "-release", p("rel.csv"), "-o", p("m.png")}, 2, "-release adds a release's counts to a GIS layer"},
		{[]string{"-truth", p("t.csv"), "-release", p("bad.csv"), "-o", p("m.geojson")}, 1, "bad.csv"},
	} {
		code, _, errs := run(append([]string{"render", "-study", p("s.json")}, c.args...)...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", c.args, code, errs, c.code, c.want)
		}
	}
	if after, _ := os.ReadFile(p("m.geojson")); !bytes.Equal(before, after) {
		t.Error("a failed render changed the earlier layer")
	}
	truth, study := p("ct.csv"), p("cs.json")
	if code, _, errs := run("grid", "-format", "adult", "-in", adultSample, "-attrs", "age,sex", "-o", truth, "-study-out", study); code != 0 {
		t.Fatal(errs)
	}
	if code, _, errs := run("render", "-study", study, "-truth", truth, "-o", p("c.gpkg")); code != 1 || !strings.Contains(errs, "latitude–longitude box") {
		t.Errorf("census layer: exit %d, %q", code, errs)
	}
}
