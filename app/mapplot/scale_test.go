package mapplot

import (
	"errors"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/paulmach/orb"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// colourOf returns the colour m gives value v.
func colourOf(m *Map, v float64) color.NRGBA {
	mm := *m
	mm.Cols, mm.Rows, mm.Values = 1, 1, []float64{v}
	return (&cells{m: &mm, cm: colourMap(m)}).colours()[0]
}

// TestSharedRange checks that Lo and Hi fix the scale: a map whose
// largest value is half of Hi colours it as the middle of the scale, not
// its top.
func TestSharedRange(t *testing.T) {
	m := &Map{Cols: 2, Rows: 1, Values: []float64{0, 0.5}}
	top := colourOf(m, 0.5)
	m.Lo, m.Hi = 0, 1
	mid := colourOf(m, 0.5)
	cm := Viridis()
	cm.SetMin(0)
	cm.SetMax(1)
	c, _ := cm.At(0.5)
	if want := color.NRGBAModel.Convert(c).(color.NRGBA); mid != want {
		t.Errorf("0.5 on [0, 1] is %v, want %v", mid, want)
	}
	if mid == top {
		t.Errorf("a shared range did not change the colour of the largest value")
	}
}

// TestDiverging checks the difference scale: white at 0, blue below,
// red above, symmetric in magnitude.
func TestDiverging(t *testing.T) {
	m := &Map{Cols: 3, Rows: 1, Values: []float64{-0.02, 0, 0.01}, Diverging: true, Scale: Sqrt}
	zero, neg, pos := colourOf(m, 0), colourOf(m, -0.02), colourOf(m, 0.02)
	if zero.R < 200 || zero.G < 200 || zero.B < 200 {
		t.Errorf("0 is %v, want near white", zero)
	}
	if !(neg.B > neg.R+60) {
		t.Errorf("−0.02 is %v, want blue", neg)
	}
	if !(pos.R > pos.B+60) {
		t.Errorf("+0.02 is %v, want red", pos)
	}
	// The range is ±0.02 though the largest positive value is 0.01.
	half := colourOf(m, 0.01)
	if half == pos || half == zero {
		t.Errorf("+0.01 is %v: want between white %v and red %v", half, zero, pos)
	}
}

// TestLogScale checks that the log scale spans LogDecades decades below
// the largest value: the largest takes the top colour, values a decade
// apart differ, and anything below the span (zero too) the bottom colour.
func TestLogScale(t *testing.T) {
	m := &Map{Cols: 4, Rows: 1, Values: []float64{0, 1e-3, 1e-2, 1e-1}, Scale: Log}
	cm := colourMap(m)
	bottom, _ := cm.At(cm.Min())
	topC, _ := cm.At(cm.Max())
	if got, want := colourOf(m, 0.1), color.NRGBAModel.Convert(topC).(color.NRGBA); got != want {
		t.Errorf("largest value is %v, want the top colour %v", got, want)
	}
	low := color.NRGBAModel.Convert(bottom).(color.NRGBA)
	for _, v := range []float64{0, 1e-6, 1e-1 * math.Pow(10, -LogDecades)} {
		if got := colourOf(m, v); got != low {
			t.Errorf("%g is %v, want the bottom colour %v", v, got, low)
		}
	}
	if colourOf(m, 1e-3) == colourOf(m, 1e-2) {
		t.Errorf("1e-3 and 1e-2 have the same colour")
	}
	ts := logTicks{}.Ticks(-5, -1)
	labels := 0
	for _, tk := range ts {
		if tk.Label != "" {
			labels++
			if p := math.Pow(10, tk.Value); math.Abs(math.Log10(p)-math.Round(math.Log10(p))) > 1e-9 {
				t.Errorf("labelled tick %q at 10^%g is not a power of ten", tk.Label, tk.Value)
			}
		}
	}
	if labels != 5 {
		t.Errorf("%d labelled ticks on 4 decades, want 5: %v", labels, ts)
	}
}

// TestFigure checks a side-by-side figure: trimmed to the maps' natural
// height within the requested size with no empty band across it, the maps
// in equal columns below the heading (each column shows its own cells'
// colours) and a heading drawn in black.
func TestFigure(t *testing.T) {
	b := orb.Bound{Min: orb.Point{-122.5153, 37.7228}, Max: orb.Point{-122.3789, 37.7946}}
	mk := func(v float64, div bool) *Map {
		m := &Map{Cols: 4, Rows: 2, Bound: b, Aspect: 2, Values: make([]float64, 8), Diverging: div}
		for i := range m.Values {
			m.Values[i] = v
		}
		return m
	}
	f := &Figure{Title: "Gowalla SF: true | GIBU | difference", Notes: []string{"cell 0.5 km", "10 planar geometric"},
		Maps: []*Map{mk(1, false), mk(1, false), mk(0, true)}}
	img, err := f.Image(1500, 500, 1)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 1500 || b.Dy() >= 500 || b.Dy() < 200 {
		t.Fatalf("figure is %v, want 1500 wide, trimmed below 500 high", b)
	}
	noBands(t, img, 24)
	if os.Getenv("MAPPLOT_PNG") != "" {
		out, _ := os.Create(os.Getenv("MAPPLOT_PNG"))
		png.Encode(out, img)
		out.Close()
	}
	// Count each map's colour in its column: constant maps fill a block.
	for i, m := range f.Maps {
		want := colourOf(m, m.Values[0])
		n := 0
		for y := 0; y < img.Bounds().Dy(); y++ {
			for x := i * 500; x < (i+1)*500; x++ {
				c := img.RGBAAt(x, y)
				if c.R == want.R && c.G == want.G && c.B == want.B {
					n++
				}
			}
		}
		if n < 20000 {
			t.Errorf("map %d: %d pixels of its colour %v in its column, want a block of cells", i, n, want)
		}
	}
	dark := 0
	for y := 0; y < 40; y++ {
		for x := 0; x < 600; x++ {
			if c := img.RGBAAt(x, y); c.R < 80 && c.G < 80 && c.B < 80 {
				dark++
			}
		}
	}
	if dark < 100 {
		t.Errorf("%d dark pixels in the heading, want its text", dark)
	}
}

// TestBars draws one attribute as a bar chart: each column's bar has its
// cell's colour in the middle of its column, rises from 0 to the value
// (a taller value, a taller bar), and the area above is white.
func TestBars(t *testing.T) {
	m := &Map{Cols: 4, Rows: 1, Values: []float64{0.1, 0.4, 0.2, 0.3}, Label: "probability", Bars: true,
		ColLabels: []string{"a", "b", "c", "d"}, RowLabels: []string{""}, ColName: "letter"}
	img, r := Image(m, 800, 500, 1)
	want := (&cells{m: m, cm: colourMap(m)}).colours()
	height := make([]int, 4)
	for i := range m.Values {
		cr := r.CellRect(m, i)
		x := int((cr.X0 + cr.X1) / 2 * 800)
		if got := r.Cell(m, (cr.X0+cr.X1)/2, (cr.Y0+cr.Y1)/2); got != i {
			t.Errorf("Cell(middle of column %d) = %d", i, got)
		}
		for y := int(r.Y0 * 500); y < int(r.Y1*500); y++ {
			c := img.RGBAAt(x, y)
			if c.R == want[i].R && c.G == want[i].G && c.B == want[i].B {
				height[i]++
			}
		}
	}
	span := (r.Y1 - r.Y0) * 500
	for i, v := range m.Values {
		if got, w := float64(height[i]), v/0.4*span; math.Abs(got-w) > 3 {
			t.Errorf("bar %d is %v px tall, want %.1f", i, got, w)
		}
	}
}

// TestFigureTall checks a figure given more width than its height lets
// the maps fill: trimmed to the maps' natural widths, full height, no
// empty band down it, and the heading kept whole.
func TestFigureTall(t *testing.T) {
	b := orb.Bound{Min: orb.Point{-122.5153, 37.7228}, Max: orb.Point{-122.3789, 37.7946}}
	m := &Map{Cols: 4, Rows: 2, Bound: b, Aspect: 2, Values: []float64{1, 2, 3, 4, 5, 6, 7, 8}, Title: "True", Label: "probability"}
	f := &Figure{Title: "a title", Notes: []string{"a note"}, Maps: []*Map{m, m}}
	img, err := f.Image(3000, 400, 1)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dy() != 400 || b.Dx() >= 3000 || b.Dx() < 800 {
		t.Fatalf("figure is %v, want 400 high, trimmed below 3000 wide", b)
	}
	noBands(t, img, 24)
	f.Notes = []string{strings.Repeat("a long note ", 40)}
	img, _ = f.Image(3000, 400, 1)
	if w := f.headingWidth(Print); img.Bounds().Dx() < int(w) {
		t.Errorf("figure %d px wide, narrower than its heading %.0f pt at 1 px a point", img.Bounds().Dx(), w)
	}
}

// noBands fails if any run of size rows or columns of img, away from its
// margin, is all background: an empty band.
func noBands(t *testing.T, img *image.RGBA, size int) {
	t.Helper()
	bg := img.RGBAAt(0, 0)
	r := img.Bounds()
	blankRow := func(y int) bool {
		for x := r.Min.X; x < r.Max.X; x++ {
			if img.RGBAAt(x, y) != bg {
				return false
			}
		}
		return true
	}
	blankCol := func(x int) bool {
		for y := r.Min.Y; y < r.Max.Y; y++ {
			if img.RGBAAt(x, y) != bg {
				return false
			}
		}
		return true
	}
	for _, d := range []struct {
		n     int
		blank func(int) bool
		what  string
	}{{r.Dy(), blankRow, "rows"}, {r.Dx(), blankCol, "columns"}} {
		run := 0
		for i := 0; i < d.n; i++ {
			if d.blank(i) {
				run++
			} else {
				run = 0
			}
			if run >= size {
				t.Errorf("%d empty %s ending at %d of %d: an empty band", run, d.what, i, d.n)
				return
			}
		}
	}
}

// TestDegreeTicksAtAnyZoom zooms a map from a region to a few hundred
// metres and checks each axis keeps 4 to 8 distinct labels on a large map
// (at least 2 on a small one) that do not overlap, each naming its
// hemisphere.
func TestDegreeTicksAtAnyZoom(t *testing.T) {
	b := orb.Bound{Min: orb.Point{-125, 30}, Max: orb.Point{-115, 40}}
	m := &Map{Cols: 10, Rows: 10, Bound: b, Aspect: 1, Values: make([]float64, 100), Style: Style{TextSize: 14}}
	c := orb.Point{-122.41234, 37.77321}
	for zoom := 0; zoom <= 6; zoom++ {
		m.View = orb.Bound{}
		for range zoom {
			m.View = Zoom(b, m.View, c, 0.5)
		}
		for _, size := range [][2]vg.Length{{800, 800}, {400, 400}} {
			canvas := draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: size[0], Y: size[1]}}}
			l := m.lay(canvas)
			da := l.plot.DataCanvas(l.mapArea)
			for _, ax := range []struct {
				a      *plot.Axis
				length vg.Length
				hemi   string
				horiz  bool
			}{{&l.plot.X, da.Max.X - da.Min.X, "W", true}, {&l.plot.Y, da.Max.Y - da.Min.Y, "N", false}} {
				var labels []string
				var room vg.Length
				for _, tk := range ax.a.Tick.Marker.Ticks(ax.a.Min, ax.a.Max) {
					if tk.Label == "" {
						continue
					}
					if !strings.HasSuffix(tk.Label, "°"+ax.hemi) {
						t.Errorf("label %q does not name its hemisphere %s", tk.Label, ax.hemi)
					}
					if len(labels) > 0 && labels[len(labels)-1] == tk.Label {
						t.Errorf("zoom %d: label %q twice", zoom, tk.Label)
					}
					labels = append(labels, tk.Label)
					if ax.horiz {
						room += ax.a.Tick.Label.Width(tk.Label)
					} else {
						room += ax.a.Tick.Label.Height(tk.Label)
					}
				}
				// 14-point labels such as 122.4123°W leave room for only
				// two or three on a small map.
				if lo := map[bool]int{true: 4, false: 2}[size[0] == 800]; len(labels) < lo || len(labels) > 8 {
					t.Errorf("zoom %d at %v: %d labels %v, want %d to 8", zoom, size, len(labels), labels, lo)
				}
				if room > ax.length {
					t.Errorf("zoom %d at %v: labels %v need %.0f pt on an axis of %.0f", zoom, size, labels, room, ax.length)
				}
			}
		}
	}
}

// TestSqrtTicks checks a square-root colour bar is labelled at round
// values (0 and 1, 2 or 5 times a power of ten) within its range, in
// increasing order, at most six.
func TestSqrtTicks(t *testing.T) {
	for _, tc := range []struct {
		hi   float64
		want []string
	}{
		{130, []string{"0", "5", "20", "50", "100"}},
		{0.06, []string{"0", "0.002", "0.01", "0.02", "0.05"}},
		{1, []string{"0", "0.05", "0.2", "0.5", "1"}},
	} {
		var got []string
		for _, tk := range (sqrtTicks{}).Ticks(0, math.Sqrt(tc.hi)) {
			got = append(got, tk.Label)
			if v, _ := strconv.ParseFloat(tk.Label, 64); math.Abs(tk.Value*tk.Value-v) > 1e-12*max(1, v) {
				t.Errorf("tick %q at √%g", tk.Label, tk.Value*tk.Value)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("top %g: ticks %v, want %v", tc.hi, got, tc.want)
		}
	}
}

// TestCountTicks checks a colour bar of counts labels only whole numbers
// on every scale, and one of probabilities keeps its fractions.
func TestCountTicks(t *testing.T) {
	for _, sc := range []Scale{Linear, Sqrt, Log} {
		m := &Map{Cols: 3, Rows: 1, Values: []float64{0, 1, 3}, Scale: sc}
		cm := colourMap(m)
		bar := colourBar(m, cm)
		labels := 0
		for _, tk := range bar.Y.Tick.Marker.Ticks(cm.Min(), cm.Max()) {
			if tk.Label == "" {
				continue
			}
			labels++
			if v, err := strconv.ParseFloat(tk.Label, 64); err != nil || v != math.Trunc(v) {
				t.Errorf("%v: count label %q", sc, tk.Label)
			}
		}
		// A log bar spans four decades below 3: only 1 is whole.
		if want := map[Scale]int{Linear: 2, Sqrt: 2, Log: 1}[sc]; labels < want {
			t.Errorf("%v: %d labels on counts 0–3, want %d or more", sc, labels, want)
		}
	}
	m := &Map{Cols: 2, Rows: 1, Values: []float64{0.25, 0.75}}
	cm := colourMap(m)
	fractions := 0
	for _, tk := range colourBar(m, cm).Y.Tick.Marker.Ticks(cm.Min(), cm.Max()) {
		if v, err := strconv.ParseFloat(tk.Label, 64); err == nil && v != math.Trunc(v) {
			fractions++
		}
	}
	if fractions == 0 {
		t.Error("a bar of probabilities lost its fractional labels")
	}
}

// TestFigureTooSmall draws a figure on pictures too small for its maps
// (render's smallest -size under a heading): no panic, and ErrTooSmall.
func TestFigureTooSmall(t *testing.T) {
	b := orb.Bound{Min: orb.Point{-122.5, 37.7}, Max: orb.Point{-122.3, 37.8}}
	m := &Map{Cols: 4, Rows: 2, Bound: b, Aspect: 2, Values: []float64{1, 2, 3, 4, 5, 6, 7, 8}, Title: "True", Label: "probability"}
	f := &Figure{Title: "a title", Notes: []string{"a note", "another"}, Maps: []*Map{m, m}}
	for _, sz := range [][2]int{{100, 100}, {1000, 100}, {100, 200}, {100, 10000}} {
		if _, err := f.Image(sz[0], sz[1], 1); !errors.Is(err, ErrTooSmall) {
			t.Errorf("%d×%d: %v, want ErrTooSmall", sz[0], sz[1], err)
		}
	}
	if _, err := f.Image(600, 300, 1); err != nil {
		t.Errorf("600×300: %v", err)
	}
}
