package mapplot

import (
	"image/color"
	"image/png"
	"math"
	"os"
	"testing"

	"github.com/paulmach/orb"
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

// TestFigure checks a side-by-side figure: the requested size, the maps
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
	img := f.Image(1500, 500, 1)
	if b := img.Bounds(); b.Dx() != 1500 || b.Dy() != 500 {
		t.Fatalf("figure is %v, want 1500×500", b)
	}
	if os.Getenv("MAPPLOT_PNG") != "" {
		out, _ := os.Create(os.Getenv("MAPPLOT_PNG"))
		png.Encode(out, img)
		out.Close()
	}
	// Count each map's colour in its column: constant maps fill a block.
	for i, m := range f.Maps {
		want := colourOf(m, m.Values[0])
		n := 0
		for y := 0; y < 500; y++ {
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
