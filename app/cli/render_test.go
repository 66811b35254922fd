package cli

import (
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paulmach/orb"

	"github.com/privmap/privmap/app/basemap/basemaptest"
)

// renderFixture grids the project's default check-ins and estimates
// them, returning the truth, the estimate and the study.
func renderFixture(t *testing.T) (dir, truth, est, study string) {
	t.Helper()
	dir = t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	truth, est, study = p("t.csv"), p("e.csv"), p("s.json")
	for _, args := range [][]string{
		{"grid", "-in", "../../assets/default_checkins.snap.txt", "-o", truth, "-study-out", study, "-preset", "fw-t6"},
		{"simulate", "-study", study, "-truth", truth, "-n", "3000", "-aggregate", "-o", p("r.csv")},
		{"estimate", "-study", study, "-reports", p("r.csv"), "-method", "ibu-m", "-o", est},
	} {
		if code, _, errs := run(args...); code != 0 {
			t.Fatalf("%v: %s", args, errs)
		}
	}
	return dir, truth, est, study
}

func readPNG(t *testing.T, name string) image.Image {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// TestRender draws the truth alone and the comparison, without a
// basemap, over a generated MBTiles file and over a local XYZ server:
// the basemap's streets must show through the translucent heat map, the
// credit must be in the header, and an SVG must be an SVG.
func TestRender(t *testing.T) {
	dir, truth, est, study := renderFixture(t)
	p := func(n string) string { return filepath.Join(dir, n) }
	if code, _, errs := run("render", "-truth", truth, "-study", study, "-size", "900x600", "-o", p("t.png")); code != 0 {
		t.Fatal(errs)
	}
	// Trimmed to the map: as high or as wide as asked, no larger.
	if b := readPNG(t, p("t.png")).Bounds(); !(b.Dx() == 900 && b.Dy() <= 600 || b.Dy() == 600 && b.Dx() <= 900) {
		t.Errorf("truth picture %v, want 900 wide or 600 high within 900×600", b)
	}
	bare := p("bare.png")
	if code, _, errs := run("render", "-truth", truth, "-estimate", est, "-study", study, "-scale", "sqrt", "-o", bare); code != 0 {
		t.Fatal(errs)
	}
	sf := orb.Bound{Min: orb.Point{-122.52, 37.72}, Max: orb.Point{-122.37, 37.80}}
	mb := p("sf.mbtiles")
	if err := basemaptest.WriteMBTiles(mb, sf, 10, 14, "© test tiles"); err != nil {
		t.Fatal(err)
	}
	srv := basemaptest.NewServer()
	defer srv.Close()
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	for _, base := range []string{mb, srv.Template()} {
		out := p("over.png")
		code, _, errs := run("render", "-truth", truth, "-estimate", est, "-study", study, "-scale", "sqrt",
			"-basemap", base, "-opacity", "0.5", "-o", out)
		if code != 0 || errs != "" {
			t.Fatalf("render over %s: exit %d, %s", base, code, errs)
		}
		if n := changedPixels(readPNG(t, bare), readPNG(t, out)); n < 100000 {
			t.Errorf("over %s: only %d pixels differ from the bare maps: no basemap under them", base, n)
		}
	}
	if srv.Requests.Load() == 0 || srv.Requests.Load() > 64 {
		t.Errorf("%d tile requests", srv.Requests.Load())
	}
	svg := p("m.svg")
	if code, _, errs := run("render", "-truth", truth, "-estimate", est, "-study", study, "-basemap", mb, "-o", svg); code != 0 {
		t.Fatal(errs)
	}
	if b, _ := os.ReadFile(svg); !strings.Contains(string(b), "<svg") || !strings.Contains(string(b), "© test tiles") ||
		!strings.Contains(string(b), "Raw data: the true map shows people&#39;s data themselves") && !strings.Contains(string(b), "Raw data: the true map shows people's data themselves") {
		t.Errorf("SVG without <svg>, the credit or the raw-data caption (%d bytes)", len(b))
	}
	// A study the window saved records its run: the header names it.
	raw, err := os.ReadFile(study)
	if err != nil {
		t.Fatal(err)
	}
	withRun := p("run.json")
	body := strings.TrimSuffix(strings.TrimSpace(string(raw)), "}") + `, "run": {"users": 3000, "seed": 7, "methods": ["gibu", "cem"], "alpha": 0.003}}`
	if err := os.WriteFile(withRun, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := run("render", "-truth", truth, "-estimate", est, "-study", withRun, "-o", svg); code != 0 {
		t.Fatal(errs)
	}
	if b, _ := os.ReadFile(svg); !strings.Contains(string(b), "Run: 3,000 users, seed 7, estimators gibu, cem, α = 0.003") {
		t.Errorf("SVG header without the study's run")
	}
	// A GeoJSON overlay: its line is drawn over the maps.
	gj := p("line.geojson")
	os.WriteFile(gj, []byte(`{"type": "LineString", "coordinates": [[-122.45, 37.70], [-122.45, 37.80]]}`), 0o644)
	withLine := p("line.png")
	if code, _, errs := run("render", "-truth", truth, "-estimate", est, "-study", study, "-scale", "sqrt", "-overlay", gj, "-o", withLine); code != 0 {
		t.Fatal(errs)
	}
	if n := changedPixels(readPNG(t, bare), readPNG(t, withLine)); n < 1000 || n > 50000 {
		t.Errorf("the overlay changed %d pixels; want a line on each of three maps", n)
	}
	os.WriteFile(gj, []byte(`{"type": "LineString", "coordinates": [[0, 0], [0, 95]]}`), 0o644)
	if code, _, errs := run("render", "-truth", truth, "-study", study, "-overlay", gj, "-o", withLine); code != 1 || !strings.Contains(errs, "line.geojson: geo: GeoJSON: vertex") {
		t.Errorf("bad overlay: exit %d, %q", code, errs)
	}
	// An unreachable basemap: drawn without it, the header saying
	// "offline" and stderr the full reason.
	code, _, errs := run("render", "-truth", truth, "-study", study, "-basemap", "http://127.0.0.1:1/{z}/{x}/{y}.png", "-o", p("x.svg"))
	if code != 0 || !strings.Contains(errs, "the maps are drawn without it") || !strings.Contains(errs, "127.0.0.1:1") {
		t.Errorf("unreachable basemap: exit %d, %q", code, errs)
	}
	if b, err := os.ReadFile(p("x.svg")); err != nil || !strings.Contains(string(b), "Basemap: none (offline)") || strings.Contains(string(b), "127.0.0.1") {
		t.Errorf("the figure's header on an unreachable basemap: %v, %s", err, grepLine(string(b), "Basemap"))
	}
}

// changedPixels counts the pixels where a and b differ.
func changedPixels(a, b image.Image) int {
	n := 0
	r := a.Bounds().Intersect(b.Bounds())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if color.NRGBAModel.Convert(a.At(x, y)) != color.NRGBAModel.Convert(b.At(x, y)) {
				n++
			}
		}
	}
	return n
}

func TestRenderErrors(t *testing.T) {
	dir, truth, _, study := renderFixture(t)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-truth", truth, "-study", study, "-o", filepath.Join(dir, "x.gif")}, 2, "want a .png or .svg file"},
		{[]string{"-truth", truth, "-study", study, "-size", "50x50", "-o", filepath.Join(dir, "x.png")}, 2, "each from 100 to 10000 pixels"},
		{[]string{"-truth", truth, "-study", study, "-opacity", "1.5", "-o", filepath.Join(dir, "x.png")}, 2, "want a number in (0, 1]"},
		{[]string{"-truth", truth, "-study", study, "-scale", "cubic", "-o", filepath.Join(dir, "x.png")}, 2, "want linear, sqrt or log"},
		{[]string{"-truth", truth, "-study", study, "-basemap", "tiles.zip", "-o", filepath.Join(dir, "x.png")}, 2, "want an .mbtiles file or a URL template"},
		{[]string{"-truth", truth, "-study", study, "-basemap", filepath.Join(dir, "none.mbtiles"), "-o", filepath.Join(dir, "x.png")}, 1, "none.mbtiles: no such file"},
		{[]string{"-truth", truth, "-study", study, "-o", truth}, 2, "name the same file"},
	} {
		code, _, errs := run(append([]string{"render"}, tc.args...)...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", tc.args, code, errs, tc.code, tc.want)
		}
	}
}

// TestRenderTables draws a census study's truth and estimate as a table
// of two attributes, as bars of one (-cols none), and a linear study as
// bars over its symbols; refuses a basemap, an unknown attribute and
// -rows on a study without attributes.
func TestRenderTables(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	for _, args := range [][]string{
		{"grid", "-format", "adult", "-in", adultSample, "-attrs", "age,sex,income,marital", "-o", p("t.csv"), "-study-out", p("s.json"), "-preset", "cem"},
		{"simulate", "-study", p("s.json"), "-truth", p("t.csv"), "-n", "2000", "-aggregate", "-o", p("r.csv")},
		{"estimate", "-study", p("s.json"), "-reports", p("r.csv"), "-method", "gibu", "-o", p("e.csv")},
	} {
		if code, _, errs := run(args...); code != 0 {
			t.Fatalf("%v: %s", args, errs)
		}
	}
	for _, extra := range [][]string{nil, {"-rows", "marital", "-cols", "age"}, {"-rows", "income", "-cols", "none"}} {
		out := p("table.png")
		args := append([]string{"render", "-truth", p("t.csv"), "-estimate", p("e.csv"), "-study", p("s.json"), "-o", out}, extra...)
		if code, _, errs := run(args...); code != 0 {
			t.Fatalf("%v: %s", extra, errs)
		}
		img := readPNG(t, out)
		colours := map[color.RGBA]bool{}
		b := img.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y += 2 {
			for x := b.Min.X; x < b.Max.X; x += 2 {
				r, g, bl, _ := img.At(x, y).RGBA()
				colours[color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8), 0}] = true
			}
		}
		if len(colours) < 40 {
			t.Errorf("%v: %d colours: not a drawn table", extra, len(colours))
		}
	}
	linear := p("linear.json")
	os.WriteFile(linear, []byte(`{"alphabet": {"kind": "linear", "size": 12}, "mechanisms": [{"id": "g", "kind": "geometric", "epsilon": 1}]}`), 0o644)
	os.WriteFile(p("lt.csv"), []byte("cell,probability\n0,0.5\n3,0.25\n11,0.25\n"), 0o644)
	if code, _, errs := run("render", "-truth", p("lt.csv"), "-study", linear, "-o", p("linear.svg")); code != 0 {
		t.Fatal(errs)
	}
	if b, _ := os.ReadFile(p("linear.svg")); !strings.Contains(string(b), "<svg") || !strings.Contains(string(b), "Alphabet: linear, 12 symbols") {
		t.Errorf("linear SVG lacks the drawing or its header")
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-study", p("s.json"), "-truth", p("t.csv"), "-basemap", p("x.mbtiles")}, "draw under and over a grid's maps"},
		{[]string{"-study", p("s.json"), "-truth", p("t.csv"), "-rows", "height"}, `-rows "height": not an attribute of the study (age, sex, income, marital)`},
		{[]string{"-study", p("s.json"), "-truth", p("t.csv"), "-rows", "age", "-cols", "age"}, "both \"age\""},
		{[]string{"-study", linear, "-truth", p("lt.csv"), "-cols", "age"}, "this study's alphabet has none"},
	} {
		code, _, errs := run(append(append([]string{"render"}, tc.args...), "-o", p("x.png"))...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, errs, tc.want)
		}
	}
}

// TestRenderUncertainty renders an estimate written with -ci: the figure
// gains the uncertainty map, fourth, titled so; its SVG says so.
func TestRenderUncertainty(t *testing.T) {
	dir, truth, _, study := renderFixture(t)
	reports, est := filepath.Join(dir, "r.csv"), filepath.Join(dir, "ci.csv")
	if code, _, errs := run("simulate", "-study", study, "-truth", truth, "-n", "2000", "-aggregate", "-o", reports); code != 0 {
		t.Fatal(errs)
	}
	if code, _, errs := run("estimate", "-study", study, "-reports", reports, "-ci", "0.9", "-boot", "20", "-o", est); code != 0 {
		t.Fatal(errs)
	}
	svg := filepath.Join(dir, "u.svg")
	if code, _, errs := run("render", "-truth", truth, "-estimate", est, "-study", study, "-o", svg); code != 0 {
		t.Fatal(errs)
	}
	b, _ := os.ReadFile(svg)
	for _, want := range []string{"| uncertainty", "Uncertainty: interval half-width", "± probability"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
}

// grepLine returns the first line of s that holds sub, for messages.
func grepLine(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return "(no line with " + sub + ")"
}
