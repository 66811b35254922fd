package mapplot

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/paulmach/orb"

	"github.com/privmap/privmap/internal/testtool"
)

func TestRectCellRoundTrip(t *testing.T) {
	m := &Map{Cols: 24, Rows: 16, Values: make([]float64, 24*16)}
	r := Rect{X0: 0.1, Y0: 0.05, X1: 0.8, Y1: 0.9}
	for i := range m.Values {
		cr := r.CellRect(m, i)
		fx, fy := (cr.X0+cr.X1)/2, (cr.Y0+cr.Y1)/2
		if got := r.Cell(m, fx, fy); got != i {
			t.Fatalf("Cell(centre of %d) = %d", i, got)
		}
	}
	if got := r.Cell(m, 0.05, 0.5); got != -1 {
		t.Errorf("Cell(left of map) = %d, want -1", got)
	}
	// Row 0 is south: the bottom-left corner of the data area is cell 0.
	if got := r.Cell(m, 0.1001, 0.8999); got != 0 {
		t.Errorf("Cell(bottom left) = %d, want 0", got)
	}
	if got := r.Cell(m, 0.7999, 0.0501); got != 24*16-1 {
		t.Errorf("Cell(top right) = %d, want %d", got, 24*16-1)
	}
}

func TestImageAspect(t *testing.T) {
	m := &Map{Cols: 24, Rows: 16, Aspect: 1.5, Label: "count",
		Bound: orb.Bound{Min: orb.Point{-122.5153, 37.7228}, Max: orb.Point{-122.3789, 37.7946}}}
	m.Values = make([]float64, 24*16)
	for i := range m.Values {
		m.Values[i] = float64(i % 7)
	}
	m.Values[5] = math.NaN()
	for _, sc := range []Scale{Linear, Sqrt} {
		m.Scale = sc
		img, r := Image(m, 900, 600, 1)
		if b := img.Bounds(); b.Dx() != 900 || b.Dy() != 600 {
			t.Fatalf("image is %v, want 900×600", b)
		}
		w, h := (r.X1-r.X0)*900, (r.Y1-r.Y0)*600
		if math.Abs(w/h-1.5) > 0.01 {
			t.Errorf("scale %d: data area %.1f×%.1f px, aspect %.3f, want 1.5", sc, w, h, w/h)
		}
		if os.Getenv("MAPPLOT_PNG") != "" {
			f, _ := os.Create(os.Getenv("MAPPLOT_PNG"))
			png.Encode(f, img)
			f.Close()
		}
	}
}

// TestImageCells checks the drawn pixels: the centre of every cell has
// the cell's colour, so the cells sit where Rect says, row 0 south.
func TestImageCells(t *testing.T) {
	for _, tc := range []struct {
		cols, rows, w, h int
		pxPerPt          float64
	}{{24, 16, 900, 600, 1}, {7, 5, 640, 480, 2}, {120, 80, 1000, 700, 1.5}} {
		t.Run(fmt.Sprintf("%dx%d at %dx%d", tc.cols, tc.rows, tc.w, tc.h), func(t *testing.T) {
			m := &Map{Cols: tc.cols, Rows: tc.rows, Aspect: float64(tc.cols) / float64(tc.rows), Plain: true,
				Bound: orb.Bound{Min: orb.Point{-122.5153, 37.7228}, Max: orb.Point{-122.3789, 37.7946}}}
			m.Values = make([]float64, tc.cols*tc.rows)
			for i := range m.Values {
				m.Values[i] = float64((i*7919)%101) / 10 // scattered values
			}
			m.Values[1] = math.NaN()
			img, r := Image(m, tc.w, tc.h, tc.pxPerPt)
			cm := Viridis()
			lo, hi := valueRange(m.Values)
			cm.SetMin(lo)
			cm.SetMax(hi)
			want := (&cells{m: m, cm: cm}).colours()
			bad := 0
			for i := range m.Values {
				cr := r.CellRect(m, i)
				x := int((cr.X0 + cr.X1) / 2 * float64(tc.w))
				y := int((cr.Y0 + cr.Y1) / 2 * float64(tc.h))
				got := img.RGBAAt(x, y)
				if w := want[i]; got.R != w.R || got.G != w.G || got.B != w.B {
					bad++
					if bad < 4 {
						t.Errorf("%d×%d: cell %d at pixel (%d, %d) is %v, want %v", tc.cols, tc.rows, i, x, y, got, w)
					}
				}
			}
			if bad > 0 {
				t.Errorf("%d×%d: %d of %d cells have the wrong colour", tc.cols, tc.rows, bad, len(m.Values))
			}
		})
	}
}

func BenchmarkImage(b *testing.B) {
	for _, n := range []int{24, 200} {
		m := &Map{Cols: n, Rows: n, Aspect: 1, Bound: orb.Bound{Max: orb.Point{1, 1}}, Values: make([]float64, n*n)}
		for i := range m.Values {
			m.Values[i] = float64(i % 13)
		}
		b.Run(strconv.Itoa(n)+"x"+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Image(m, 900, 600, 1)
			}
		})
	}
}

// TestCategoricalTable draws census-style categories: cells are unit
// squares under their labels, and every cell centre has its colour.
func TestCategoricalTable(t *testing.T) {
	m := &Map{Cols: 5, Rows: 8, Aspect: 5.0 / 8, Label: "people",
		ColLabels: []string{"$0", "$1–14,999", "$15,000–29,999", "$30,000–59,999", "$60,000+"},
		RowLabels: []string{"0", "1–12", "13–19", "20–29", "30–39", "40–49", "50–64", "65+"},
		ColName:   "income", RowName: "age"}
	m.Values = make([]float64, 40)
	for i := range m.Values {
		m.Values[i] = float64(i)
	}
	img, r := Image(m, 700, 600, 1)
	cm := Viridis()
	cm.SetMin(0)
	cm.SetMax(39)
	want := (&cells{m: m, cm: cm}).colours()
	for i := range m.Values {
		cr := r.CellRect(m, i)
		px, py := int((cr.X0+cr.X1)/2*700), int((cr.Y0+cr.Y1)/2*600)
		if got := color.NRGBAModel.Convert(img.At(px, py)).(color.NRGBA); got != want[i] {
			t.Errorf("cell %d at (%d, %d) is %v, want %v", i, px, py, got, want[i])
		}
	}
	if w, h := (r.X1-r.X0)*700, (r.Y1-r.Y0)*600; math.Abs(w/h-5.0/8) > 0.01 {
		t.Errorf("data area aspect %.3f, want 0.625", w/h)
	}
	if os.Getenv("MAPPLOT_PNG") != "" {
		f, _ := os.Create(os.Getenv("MAPPLOT_PNG"))
		png.Encode(f, img)
		f.Close()
	}
}

// TestColoursTable checks that the table a large map's cells take their
// colours from is within one 8-bit step of the colour map read exactly.
func TestColoursTable(t *testing.T) {
	m := &Map{Cols: 120, Rows: 80, Aspect: 1.5}
	m.Values = make([]float64, m.Cols*m.Rows)
	for i := range m.Values {
		m.Values[i] = math.Sqrt(float64((i * 7919) % 9973))
	}
	if len(m.Values) <= lutLevels {
		t.Fatalf("%d cells take the exact path", len(m.Values))
	}
	cm := Viridis()
	lo, hi := valueRange(m.Values)
	cm.SetMin(lo)
	cm.SetMax(hi)
	got := (&cells{m: m, cm: cm}).colours()
	for i, v := range m.Values {
		c, err := cm.At(v)
		if err != nil {
			t.Fatal(err)
		}
		want := color.NRGBAModel.Convert(c).(color.NRGBA)
		d := func(a, b uint8) int { return max(int(a)-int(b), int(b)-int(a)) }
		if d(got[i].R, want.R) > 1 || d(got[i].G, want.G) > 1 || d(got[i].B, want.B) > 1 || got[i].A != want.A {
			t.Fatalf("cell %d (%v): colour %v, the map's %v", i, v, got[i], want)
		}
	}
}

// solid is an Underlay of one colour.
type solid struct{ c color.NRGBA }

func (s solid) Image(_ orb.Bound, w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = s.c.R, s.c.G, s.c.B, s.c.A
	}
	return img
}

func (s solid) Attribution() string { return "© test tiles" }

// TestBasemapUnderlay checks that the basemap shows whole under cells
// with no value, mixed at the opacity under the others, and that its
// credit is written in the map's corner.
func TestBasemapUnderlay(t *testing.T) {
	blue := color.NRGBA{0, 0, 255, 255}
	m := &Map{Cols: 2, Rows: 1, Bound: orb.Bound{Min: orb.Point{-122.5, 37.7}, Max: orb.Point{-122.3, 37.8}},
		Values: []float64{math.NaN(), 1}, Aspect: 2, Lo: 0, Hi: 1, Plain: true}
	bare, r := Image(m, 800, 400, 1)
	m.Basemap, m.Opacity = solid{blue}, 0.5
	img, _ := Image(m, 800, 400, 1)
	at := func(img image.Image, fx, fy float64) color.NRGBA {
		x := int((r.X0 + fx*(r.X1-r.X0)) * 800)
		y := int((r.Y0 + fy*(r.Y1-r.Y0)) * 400)
		return color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
	}
	if c := at(bare, 0.25, 0.3); c != nanColour {
		t.Errorf("without a basemap an empty cell is %v", c)
	}
	if c := at(img, 0.25, 0.3); c != blue {
		t.Errorf("empty cell shows %v, want the basemap's %v", c, blue)
	}
	tc := at(bare, 0.75, 0.3)
	half := func(v uint8, b float64) uint8 { return uint8(math.Round(0.5*float64(v) + 0.5*b)) }
	want := color.NRGBA{half(tc.R, 0), half(tc.G, 0), half(tc.B, 255), 255}
	if c := at(img, 0.75, 0.3); c != want {
		t.Errorf("full cell %v at opacity 0.5 over blue shows %v, want %v", tc, c, want)
	}
	// The credit's band changes the bottom-right corner, not the cell above.
	if c := at(img, 0.995, 0.99); c == want {
		t.Errorf("bottom-right corner %v: no attribution band", c)
	}
	if c := at(img, 0.995, 0.5); c != want {
		t.Errorf("cell above the credit %v, want %v", c, want)
	}
}

// TestOutlines checks that an outline is drawn where its vertices are
// and clipped to the map.
func TestOutlines(t *testing.T) {
	m := &Map{Cols: 2, Rows: 2, Bound: orb.Bound{Min: orb.Point{0, 0}, Max: orb.Point{1, 1}},
		Values: []float64{1, 1, 1, 1}, Aspect: 1, Lo: 0, Hi: 2, Plain: true}
	bare, r := Image(m, 600, 600, 1)
	// A vertical line at longitude 0.3, reaching beyond the box.
	m.Outlines = []orb.LineString{{{0.3, -1}, {0.3, 2}}}
	img, _ := Image(m, 600, 600, 1)
	px := func(fx, fy float64) (int, int) {
		return int((r.X0 + fx*(r.X1-r.X0)) * 600), int((r.Y0 + fy*(r.Y1-r.Y0)) * 600)
	}
	x, y := px(0.3, 0.5)
	if img.At(x, y) == bare.At(x, y) {
		t.Errorf("no outline at its longitude: %v", img.At(x, y))
	}
	x, y = px(0.6, 0.5)
	if img.At(x, y) != bare.At(x, y) {
		t.Error("the outline is drawn away from its longitude")
	}
	// Above the map (the title's band) the clipped line is absent.
	x, y = px(0.3, -0.02)
	if img.At(x, y) != bare.At(x, y) {
		t.Error("the outline runs past the map")
	}
}

// TestScaleBar checks the scale bar's length for boxes from a city block
// to a country, and that it and the north arrow are drawn unless Plain.
func TestScaleBar(t *testing.T) {
	for _, tc := range []struct {
		b    orb.Bound
		want float64
	}{
		// San Francisco's 12 km box: a fifth is 2.4 km.
		{orb.Bound{Min: orb.Point{-122.5153, 37.7228}, Max: orb.Point{-122.3789, 37.7946}}, 2},
		// New York's 47 km box: a fifth is 9.4 km.
		{orb.Bound{Min: orb.Point{-74.2585, 40.4844}, Max: orb.Point{-73.7020, 40.9175}}, 5},
		// 0.01° at the equator, 1.1 km: a fifth is 222 m.
		{orb.Bound{Min: orb.Point{0, 0}, Max: orb.Point{0.01, 0.01}}, 0.2},
		{orb.Bound{Min: orb.Point{-10, 35}, Max: orb.Point{10, 55}}, 200},
	} {
		if got := ScaleBarKm(tc.b); math.Abs(got-tc.want) > 1e-9*tc.want {
			t.Errorf("%v: %v km, want %v", tc.b, got, tc.want)
		}
	}
	m := &Map{Cols: 4, Rows: 4, Aspect: 1, Values: make([]float64, 16), Lo: 0, Hi: 1,
		Bound: orb.Bound{Min: orb.Point{-122.5, 37.7}, Max: orb.Point{-122.4, 37.8}}}
	with, r := Image(m, 600, 600, 1)
	m.Plain = true
	plain, _ := Image(m, 600, 600, 1)
	for _, corner := range [][2]float64{{0.04, 0.97}, {0.98, 0.03}} {
		x, y := int((r.X0+corner[0]*(r.X1-r.X0))*600), int((r.Y0+corner[1]*(r.Y1-r.Y0))*600)
		if with.At(x, y) == plain.At(x, y) {
			t.Errorf("nothing drawn at %v (pixel %d, %d)", corner, x, y)
		}
	}
}

// TestZoomView checks zooming and panning a view, and that a zoomed map
// finds and places its cells in the view.
func TestZoomView(t *testing.T) {
	b := orb.Bound{Min: orb.Point{-122.52, 37.72}, Max: orb.Point{-122.36, 37.80}}
	c := orb.Point{-122.40, 37.78}
	v := Zoom(b, orb.Bound{}, c, 0.5)
	if w, h := v.Max[0]-v.Min[0], v.Max[1]-v.Min[1]; math.Abs(w-0.08) > 1e-12 || math.Abs(h-0.04) > 1e-12 {
		t.Errorf("half zoom: %v×%v", w, h)
	}
	// The point under the cursor stays put: c was at 3/4 across and 3/4 up.
	if fx := (c[0] - v.Min[0]) / (v.Max[0] - v.Min[0]); math.Abs(fx-0.75) > 1e-9 {
		t.Errorf("cursor moved to %v across", fx)
	}
	if got := Zoom(b, v, c, 100); got != b {
		t.Errorf("zooming out past the map: %v", got)
	}
	if got := Zoom(b, b, c, 1e-9); math.Abs((got.Max[0]-got.Min[0])-0.16/64) > 1e-12 {
		t.Errorf("zooming in past 1/64: %v", got)
	}
	p := Pan(b, v, 1, 1) // far north-east: clamped to the corner
	if p.Max != b.Max || math.Abs((p.Max[0]-p.Min[0])-0.08) > 1e-12 {
		t.Errorf("pan past the corner: %v", p)
	}

	m := &Map{Cols: 16, Rows: 8, Bound: b, Values: make([]float64, 128), Aspect: 2, View: v}
	r := Rect{X0: 0.1, Y0: 0.1, X1: 0.9, Y1: 0.9}
	// The view spans 0.375–0.875 of the map each way: columns 6–13,
	// rows 3–6.
	if got := r.Cell(m, 0.1001, 0.8999); got != 3*16+6 {
		t.Errorf("bottom-left of the view is cell %d, want %d", got, 3*16+6)
	}
	if got := r.Cell(m, 0.8999, 0.1001); got != 6*16+13 {
		t.Errorf("top-right of the view is cell %d, want %d", got, 6*16+13)
	}
	for _, i := range []int{3*16 + 6, 6*16 + 13, 4*16 + 9} {
		cr := r.CellRect(m, i)
		if got := r.Cell(m, (cr.X0+cr.X1)/2, (cr.Y0+cr.Y1)/2); got != i {
			t.Errorf("cell %d's centre reads as %d", i, got)
		}
	}
	if cr := r.CellRect(m, 0); cr.X1-cr.X0 != 0 {
		t.Errorf("cell 0, outside the view, has rect %v", cr)
	}
	img, _ := Image(m, 400, 300, 1)
	if img.Bounds().Dx() != 400 {
		t.Fatal("no image")
	}
}

// TestOutlineOfAMillion draws an outline of 10⁶ vertices, a coastline's
// detail (it took minutes): thinned to the canvas, it is drawn the same
// as its vertices every 1,000 (a straight zigzag the thinning keeps), and
// in seconds.
func TestOutlineOfAMillion(t *testing.T) {
	m := &Map{Cols: 2, Rows: 2, Bound: orb.Bound{Min: orb.Point{0, 0}, Max: orb.Point{1, 1}},
		Values: []float64{1, 1, 1, 1}, Aspect: 1, Lo: 0, Hi: 2, Plain: true}
	const n = 1_000_000
	line := make(orb.LineString, n)
	for i := range line {
		f := float64(i) / (n - 1)
		line[i] = orb.Point{0.1 + 0.8*f, 0.5 + 0.2*math.Sin(6*math.Pi*f)}
	}
	start := testtool.CPUTime()
	m.Outlines = []orb.LineString{line}
	img, _ := Image(m, 600, 600, 1)
	if d := testtool.CPUTime() - start; d > 10*time.Second {
		t.Errorf("a 10⁶-vertex outline took %v of processor time", d)
	}
	coarse := make(orb.LineString, 0, n/1000+1)
	for i := 0; i < n; i += 1000 {
		coarse = append(coarse, line[i])
	}
	coarse = append(coarse, line[n-1])
	m.Outlines = []orb.LineString{coarse}
	want, _ := Image(m, 600, 600, 1)
	diff := 0
	for i := range img.Pix {
		if d := int(img.Pix[i]) - int(want.Pix[i]); d > 64 || d < -64 {
			diff++
		}
	}
	if diff > len(img.Pix)/200 {
		t.Errorf("the thinned outline differs from its coarse twin in %d of %d bytes", diff, len(img.Pix))
	}
}
