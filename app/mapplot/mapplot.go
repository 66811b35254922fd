// Package mapplot draws a value per grid cell as a map with gonum/plot:
// cells coloured on a perceptual colour scale, longitude and latitude axes
// at the map's true aspect, and a colour bar. It is free of Fyne, so the
// GUI and the command line draw the same pictures.
package mapplot

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"strconv"

	"github.com/paulmach/orb"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Scale maps values to the colour scale.
type Scale int

const (
	// Linear colours values in proportion.
	Linear Scale = iota
	// Sqrt colours by square root, to show both sparse and busy cells of
	// the heavy-tailed counts of check-in data.
	Sqrt
)

// A Map is a value per cell of a Cols×Rows grid over Bound, cell
// row*Cols + col with row 0 south.
type Map struct {
	Cols, Rows int
	// Bound is the box in longitude (x) and latitude (y).
	Bound orb.Bound
	// Values has Cols*Rows entries; NaN marks a cell with no value.
	Values []float64
	// Aspect is the true width/height ratio of the box on the ground.
	Aspect float64
	Title  string
	// Label names the values on the colour bar.
	Label string
	Scale Scale
}

// Viridis returns a perceptually uniform colour map, monotone in
// luminance, built with moreland.NewLuminance from the control colours of
// matplotlib's viridis (van der Walt and Smith, 2015).
func Viridis() palette.ColorMap {
	hex := []uint32{0x440154, 0x482878, 0x3e4989, 0x31688e, 0x26828e, 0x1f9e89, 0x35b779, 0x6dcd59, 0xb4de2c, 0xfde725}
	cs := make([]color.Color, len(hex))
	for i, h := range hex {
		cs[i] = color.NRGBA{uint8(h >> 16), uint8(h >> 8), uint8(h), 255}
	}
	cm, err := moreland.NewLuminance(cs)
	if err != nil {
		panic("mapplot: viridis controls: " + err.Error())
	}
	return cm
}

// Rect is the data area of a drawn map as fractions of the image, with
// (0, 0) at the top left: cell columns span X0..X1 and rows Y1 (south)
// up to Y0 (north).
type Rect struct{ X0, Y0, X1, Y1 float64 }

// Cell returns the cell under the point (fx, fy) given as fractions of the
// image from its top left, or −1.
func (r Rect) Cell(m *Map, fx, fy float64) int {
	if r.X1 <= r.X0 || r.Y1 <= r.Y0 {
		return -1
	}
	u := (fx - r.X0) / (r.X1 - r.X0)
	v := (r.Y1 - fy) / (r.Y1 - r.Y0)
	if u < 0 || u >= 1 || v < 0 || v >= 1 {
		return -1
	}
	col := min(int(u*float64(m.Cols)), m.Cols-1)
	row := min(int(v*float64(m.Rows)), m.Rows-1)
	return row*m.Cols + col
}

// CellRect returns the fractions of the image covered by cell i.
func (r Rect) CellRect(m *Map, i int) Rect {
	row, col := i/m.Cols, i%m.Cols
	w := (r.X1 - r.X0) / float64(m.Cols)
	h := (r.Y1 - r.Y0) / float64(m.Rows)
	return Rect{
		X0: r.X0 + float64(col)*w, X1: r.X0 + float64(col+1)*w,
		Y0: r.Y1 - float64(row+1)*h, Y1: r.Y1 - float64(row)*h,
	}
}

// Image draws m into a w×h pixel image at the given pixels per point
// (1 for 72 dpi), and returns where the cells are.
func Image(m *Map, w, h int, pxPerPt float64) (*image.RGBA, Rect) {
	dpi := 72 * pxPerPt
	wPt := vg.Length(float64(w) / pxPerPt)
	hPt := vg.Length(float64(h) / pxPerPt)
	c := vgimg.NewWith(vgimg.UseWH(wPt, hPt), vgimg.UseDPI(int(math.Round(dpi))), vgimg.UseBackgroundColor(color.White))
	dc := draw.New(c)
	da := Draw(dc, m)
	img, _ := c.Image().(*image.RGBA)
	r := Rect{
		X0: float64(da.Min.X / wPt), X1: float64(da.Max.X / wPt),
		Y0: 1 - float64(da.Max.Y/hPt), Y1: 1 - float64(da.Min.Y/hPt),
	}
	return img, r
}

// barWidth is the room kept right of the map for the colour bar, and
// barMargin the room right of the bar.
const (
	barWidth  = 80 * vg.Length(1)
	barMargin = 14 * vg.Length(1)
)

// Draw draws m on c and returns the data area of the map, kept at the
// map's true aspect ratio and centred.
func Draw(c draw.Canvas, m *Map) vg.Rectangle {
	if len(m.Values) != m.Cols*m.Rows || m.Cols == 0 {
		panic("mapplot: Values do not match Cols×Rows")
	}
	lo, hi := valueRange(m.Values)
	cm := Viridis()
	cm.SetMin(m.Scale.fwd(lo))
	cm.SetMax(m.Scale.fwd(hi))

	p := mapPlot(m, cm)
	mapArea := draw.Crop(c, 0, -barWidth, 0, 0)
	// Shrink the map area so that the data area has the true aspect.
	da := p.DataCanvas(mapArea)
	dw, dh := da.Max.X-da.Min.X, da.Max.Y-da.Min.Y
	if aspect := vg.Length(m.Aspect); aspect > 0 && dw > 0 && dh > 0 {
		if dw/dh > aspect {
			cut := dw - dh*aspect
			mapArea = draw.Crop(mapArea, cut/2, -cut/2, 0, 0)
		} else {
			cut := dh - dw/aspect
			mapArea = draw.Crop(mapArea, 0, 0, cut/2, -cut/2)
		}
	}
	p.Draw(mapArea)
	da = p.DataCanvas(mapArea)

	bar := colourBar(m, cm)
	barArea := draw.Crop(c, c.Max.X-c.Min.X-barWidth, -barMargin, da.Min.Y-c.Min.Y, -(c.Max.Y - da.Max.Y))
	bar.Draw(barArea)
	return da.Rectangle
}

// newPlot returns a plot in sans-serif type, legible beside Fyne's.
func newPlot() *plot.Plot {
	p := plot.New()
	sans := func(size float64) font.Font {
		return font.Font{Typeface: "Liberation", Variant: "Sans", Size: font.Length(size)}
	}
	p.Title.TextStyle.Font = sans(13)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = sans(11)
		a.Tick.Label.Font = sans(10)
	}
	return p
}

func mapPlot(m *Map, cm palette.ColorMap) *plot.Plot {
	p := newPlot()
	p.Title.Text = m.Title
	p.X.Label.Text = "longitude (°)"
	p.Y.Label.Text = "latitude (°)"
	p.X.Tick.Marker = degreeTicks{}
	p.Y.Tick.Marker = degreeTicks{}
	hm := plotter.NewHeatMap(grid{m}, cm.Palette(255))
	hm.Min, hm.Max = cm.Min(), cm.Max()
	hm.NaN = color.NRGBA{0xdd, 0xdd, 0xdd, 255}
	hm.Rasterized = m.Cols*m.Rows > 4096
	p.Add(hm)
	p.X.Min, p.X.Max = m.Bound.Min[0], m.Bound.Max[0]
	p.Y.Min, p.Y.Max = m.Bound.Min[1], m.Bound.Max[1]
	return p
}

func colourBar(m *Map, cm palette.ColorMap) *plot.Plot {
	p := newPlot()
	p.HideX()
	p.Y.Label.Text = m.Label
	if m.Scale == Sqrt {
		// The bar spans the scaled values; ticks sit at √v labelled v.
		p.Y.Tick.Marker = sqrtTicks{}
	}
	p.Add(&plotter.ColorBar{ColorMap: cm, Vertical: true})
	return p
}

// valueRange returns the finite minimum and maximum, widened when equal so
// that a constant map still draws.
func valueRange(v []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			continue
		}
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	if lo > hi {
		return 0, 1
	}
	lo = math.Min(lo, 0)
	if hi == lo {
		hi = lo + 1
	}
	return lo, hi
}

func (s Scale) fwd(v float64) float64 {
	if s == Sqrt {
		return math.Sqrt(math.Max(v, 0))
	}
	return v
}

// grid adapts a Map to plotter.GridXYZ.
type grid struct{ m *Map }

func (g grid) Dims() (c, r int) { return g.m.Cols, g.m.Rows }
func (g grid) Z(c, r int) float64 {
	return g.m.Scale.fwd(g.m.Values[r*g.m.Cols+c])
}
func (g grid) X(c int) float64 {
	b := g.m.Bound
	return b.Min[0] + (float64(c)+0.5)*(b.Max[0]-b.Min[0])/float64(g.m.Cols)
}
func (g grid) Y(r int) float64 {
	b := g.m.Bound
	return b.Min[1] + (float64(r)+0.5)*(b.Max[1]-b.Min[1])/float64(g.m.Rows)
}

// degreeTicks labels axes in degrees with enough decimals for the span.
type degreeTicks struct{}

func (degreeTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	prec := max(0, int(math.Ceil(-math.Log10((hi-lo)/5)))+1)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = fmt.Sprintf("%.*f", prec, ts[i].Value)
		}
	}
	return ts
}

// sqrtTicks labels an axis of square roots with round raw values.
type sqrtTicks struct{}

func (sqrtTicks) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	for i := 0; i <= 5; i++ {
		s := lo + (hi-lo)*float64(i)/5
		v := roundNice(s * s)
		if v > hi*hi {
			v = roundDown(s * s)
		}
		ts = append(ts, plot.Tick{Value: math.Sqrt(v), Label: strconv.FormatFloat(v, 'g', 3, 64)})
	}
	return ts
}

// roundDown rounds v ≥ 0 down to two significant digits.
func roundDown(v float64) float64 {
	if v == 0 {
		return 0
	}
	p := math.Pow(10, math.Floor(math.Log10(v))-1)
	return math.Floor(v/p) * p
}

// roundNice rounds v to two significant digits.
func roundNice(v float64) float64 {
	if v == 0 {
		return 0
	}
	p := math.Pow(10, math.Floor(math.Log10(math.Abs(v)))-1)
	return math.Round(v/p) * p
}
