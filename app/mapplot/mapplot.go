package mapplot

import (
	"fmt"
	"image"
	"image/color"
	stddraw "image/draw"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/paulmach/orb"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/privmap/privmap/core"
)

// Scale maps values to the colour scale.
type Scale int

const (
	// Linear colours values in proportion.
	Linear Scale = iota
	// Sqrt colours by square root, to show both sparse and busy cells of
	// the heavy-tailed counts of check-in data.
	Sqrt
	// Log colours by log₁₀ over the top LogDecades decades of the range;
	// smaller values, zero included, take the lowest colour.
	Log
)

// String names the scale as figures' headers and the window's colour
// choice do: "linear", "square root", "log (4 decades)".
func (s Scale) String() string {
	switch s {
	case Sqrt:
		return "square root"
	case Log:
		return fmt.Sprintf("log (%d decades)", LogDecades)
	}
	return "linear"
}

// LogDecades is how many decades below the largest value a Log scale
// spans.
const LogDecades = 4

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
	// Lo and Hi, when Lo < Hi, fix the range of the colour scale, so that
	// maps drawn side by side share one scale; otherwise the range runs
	// from 0 (or the least value, if negative) to the largest value.
	Lo, Hi float64
	// Diverging colours signed values, such as estimate − truth, from
	// blue through white at 0 to red, on a range symmetric about 0
	// (Moreland's smooth diverging map); Scale is then ignored.
	Diverging bool

	// ColLabels and RowLabels, when set, make the map a table of
	// categories, such as census age × income: the cells are unit squares,
	// column i labelled ColLabels[i] on an x axis named ColName and row j
	// RowLabels[j] on a y axis named RowName, row 0 at the bottom. Bound
	// is then ignored.
	ColLabels, RowLabels []string
	ColName, RowName     string
	// Bars draws a table of one row as a bar chart instead: a bar per
	// column on a value axis named Label, coloured as its cell would be,
	// so that one attribute reads as a histogram.
	Bars bool

	// Basemap, when set on a geographic map, is drawn under the cells,
	// which then let it show through with the given Opacity (0 is
	// DefaultOpacity); cells with no value show it whole. Its attribution
	// is written in the map's corner.
	Basemap Underlay
	Opacity float64
	// View, when set, is the part of Bound drawn, for a map zoomed in:
	// the axes span it and cells outside it are left out. It must keep
	// Bound's width to height ratio (Zoom and Pan do), so that Aspect
	// still holds.
	View orb.Bound
	// Plain leaves out the scale bar and the north arrow that a
	// geographic map otherwise has in its bottom-left and top-right
	// corners.
	Plain bool
	// Outlines are lines in longitude and latitude drawn over the cells,
	// such as districts or a coastline read from GeoJSON
	// (geo.ReadOutlines), dark on a light halo so that they read over any
	// colour.
	Outlines []orb.LineString
	// Style is the look of the map's axes, text and background; unset
	// fields are Print's.
	Style Style
	// NoLatLabels and NoColourBar leave out the latitude labels and the
	// colour bar of a map drawn right of another of the same box, and on
	// the same colour scale, that has them: the window's Compare maps
	// give the room to the cells.
	NoLatLabels, NoColourBar bool
}

// An Underlay is what lies under a map's cells: a basemap of tiles
// (basemap.Layer) drawn for a box at a size.
type Underlay interface {
	// Image returns the picture of box b at w×h pixels, north up, with
	// longitude and latitude linear across it.
	Image(b orb.Bound, w, h int) *image.NRGBA
	// Attribution is the credit the picture's licence asks for.
	Attribution() string
}

// DefaultOpacity is the heat map's opacity over a basemap: enough for the
// colours to read against the colour bar, little enough for streets and
// coastlines to show through.
const DefaultOpacity = 0.7

// opacity returns the heat map's opacity over its basemap.
func (m *Map) opacity() float64 {
	if m.Opacity <= 0 || m.Opacity > 1 {
		return DefaultOpacity
	}
	return m.Opacity
}

// bars reports whether m is drawn as a bar chart.
func (m *Map) bars() bool { return m.Bars && m.categorical() && m.Rows == 1 }

// categorical reports whether m is a table of categories.
func (m *Map) categorical() bool { return m.ColLabels != nil || m.RowLabels != nil }

// bound returns the box the cells span: the map's, or unit squares.
func (m *Map) bound() orb.Bound {
	if m.categorical() {
		return orb.Bound{Max: orb.Point{float64(m.Cols), float64(m.Rows)}}
	}
	return m.Bound
}

// Viewed returns the box drawn: View when it is set, else the whole map
// (always the whole of a table of categories).
func (m *Map) Viewed() orb.Bound {
	b := m.bound()
	v := m.View
	if m.categorical() || !(v.Max[0] > v.Min[0] && v.Max[1] > v.Min[1]) {
		return b
	}
	return v
}

// Zoom returns the view v of box b scaled by factor (below 1 zooms in)
// about the point c, kept inside b and no smaller than minFrac of it.
func Zoom(b, v orb.Bound, c orb.Point, factor float64) orb.Bound {
	if !(v.Max[0] > v.Min[0]) {
		v = b
	}
	const minFrac = 1.0 / 64
	bw, bh := b.Max[0]-b.Min[0], b.Max[1]-b.Min[1]
	w := min(max((v.Max[0]-v.Min[0])*factor, bw*minFrac), bw)
	h := w * bh / bw
	fx := (c[0] - v.Min[0]) / (v.Max[0] - v.Min[0])
	fy := (c[1] - v.Min[1]) / (v.Max[1] - v.Min[1])
	out := orb.Bound{Min: orb.Point{c[0] - fx*w, c[1] - fy*h}}
	out.Max = orb.Point{out.Min[0] + w, out.Min[1] + h}
	return Pan(b, out, 0, 0)
}

// Pan returns the view v of box b moved by dx, dy degrees, kept inside b.
func Pan(b, v orb.Bound, dx, dy float64) orb.Bound {
	if !(v.Max[0] > v.Min[0]) {
		return b
	}
	w, h := v.Max[0]-v.Min[0], v.Max[1]-v.Min[1]
	x0 := min(max(v.Min[0]+dx, b.Min[0]), b.Max[0]-w)
	y0 := min(max(v.Min[1]+dy, b.Min[1]), b.Max[1]-h)
	return orb.Bound{Min: orb.Point{x0, y0}, Max: orb.Point{x0 + w, y0 + h}}
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
// image from its top left, or −1. r is the area of the map's view.
func (r Rect) Cell(m *Map, fx, fy float64) int {
	if r.X1 <= r.X0 || r.Y1 <= r.Y0 {
		return -1
	}
	u := (fx - r.X0) / (r.X1 - r.X0)
	v := (r.Y1 - fy) / (r.Y1 - r.Y0)
	if u < 0 || u >= 1 || v < 0 || v >= 1 {
		return -1
	}
	f := m.viewFrac()
	col := min(int((f.Min[0]+u*(f.Max[0]-f.Min[0]))*float64(m.Cols)), m.Cols-1)
	row := min(int((f.Min[1]+v*(f.Max[1]-f.Min[1]))*float64(m.Rows)), m.Rows-1)
	return row*m.Cols + col
}

// CellRect returns the fractions of the image covered by cell i, clipped
// to the map's view (an empty Rect when the cell is outside it).
func (r Rect) CellRect(m *Map, i int) Rect {
	row, col := i/m.Cols, i%m.Cols
	f := m.viewFrac()
	fx := func(x float64) float64 { // x a fraction of the map's width
		t := min(max((x-f.Min[0])/(f.Max[0]-f.Min[0]), 0), 1)
		return r.X0 + t*(r.X1-r.X0)
	}
	fy := func(y float64) float64 {
		t := min(max((y-f.Min[1])/(f.Max[1]-f.Min[1]), 0), 1)
		return r.Y1 - t*(r.Y1-r.Y0)
	}
	cw, ch := 1/float64(m.Cols), 1/float64(m.Rows)
	return Rect{X0: fx(float64(col) * cw), X1: fx(float64(col+1) * cw), Y0: fy(float64(row+1) * ch), Y1: fy(float64(row) * ch)}
}

// viewFrac returns the view as fractions of the map's box: (0,0)–(1,1)
// for the whole map.
func (m *Map) viewFrac() orb.Bound {
	b, v := m.bound(), m.Viewed()
	bw, bh := b.Max[0]-b.Min[0], b.Max[1]-b.Min[1]
	if !(bw > 0 && bh > 0) {
		return orb.Bound{Max: orb.Point{1, 1}}
	}
	return orb.Bound{
		Min: orb.Point{(v.Min[0] - b.Min[0]) / bw, (v.Min[1] - b.Min[1]) / bh},
		Max: orb.Point{(v.Max[0] - b.Min[0]) / bw, (v.Max[1] - b.Min[1]) / bh},
	}
}

// Image draws m into a w×h pixel image at the given pixels per point
// (1 for 72 dpi), and returns where the cells are.
func Image(m *Map, w, h int, pxPerPt float64) (*image.RGBA, Rect) {
	dpi := 72 * pxPerPt
	wPt := vg.Length(float64(w) / pxPerPt)
	hPt := vg.Length(float64(h) / pxPerPt)
	c := vgimg.NewWith(vgimg.UseWH(wPt, hPt), vgimg.UseDPI(int(math.Round(dpi))), vgimg.UseBackgroundColor(m.Style.orDefault().Paper))
	dc := draw.New(c)
	da := Draw(dc, m)
	img, _ := c.Image().(*image.RGBA)
	r := Rect{
		X0: float64(da.Min.X / wPt), X1: float64(da.Max.X / wPt),
		Y0: 1 - float64(da.Max.Y/hPt), Y1: 1 - float64(da.Min.Y/hPt),
	}
	return img, r
}

// A layout is where the parts of a map go on a canvas: the plot of the
// map (axes and title around its cells), the colour bar right of it, and
// the width and height they take together.
type layout struct {
	plot, bar *plot.Plot
	mapArea   draw.Canvas
	barArea   draw.Canvas
	used      vg.Point
}

// lay fits m into c: the cells keep the map's true aspect, the colour bar
// stands beside the map, and the two are centred in c.
func (m *Map) lay(c draw.Canvas) layout {
	st := m.style()
	c = draw.Crop(c, 0, 0, 0, -st.size(5)) // the title clear of the edge
	cm := colourMap(m)
	l := layout{plot: mapPlot(m, cm), bar: colourBar(m, cm)}
	if m.bars() {
		// The colours of bars repeat their heights: no colour bar.
		l.mapArea = draw.Crop(c, 0, -st.size(10), 0, 0)
		l.used = c.Size()
		return l
	}
	gap, right := st.size(8), st.size(12)
	barW := barRoom(l.bar, st)
	if m.NoColourBar {
		gap, barW = 0, 0
	}
	area := draw.Crop(c, 0, -(barW + gap + right), 0, 0)
	fitTicks(l.plot, area)
	// Shrink the map area so that the data area has the true aspect, and
	// centre map and bar together in the room left over.
	da := l.plot.DataCanvas(area)
	dw, dh := da.Max.X-da.Min.X, da.Max.Y-da.Min.Y
	if aspect := vg.Length(m.Aspect); aspect > 0 && dw > 0 && dh > 0 {
		if dw/dh > aspect {
			cut := dw - dh*aspect
			area = draw.Crop(area, cut/2, -cut/2, 0, 0)
		} else {
			cut := dh - dw/aspect
			area = draw.Crop(area, 0, 0, cut/2, -cut/2)
		}
		fitTicks(l.plot, area)
	}
	l.mapArea = area
	da = l.plot.DataCanvas(area)
	x0 := area.Max.X + gap
	l.barArea = draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
		Min: vg.Point{X: x0, Y: da.Min.Y}, Max: vg.Point{X: x0 + barW, Y: da.Max.Y}}}
	l.used = vg.Point{X: x0 + barW + right - area.Min.X, Y: area.Max.Y - area.Min.Y + st.size(5)}
	return l
}

// barRoom returns the width a colour bar takes: its strip, tick labels
// and label.
func barRoom(bar *plot.Plot, st Style) vg.Length {
	const probe = 1000
	c := draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: probe, Y: probe}}}
	da := bar.DataCanvas(c)
	return probe - (da.Max.X - da.Min.X) + st.size(14)
}

// Draw draws m on c and returns the data area of the map, kept at the
// map's true aspect ratio and centred with its colour bar.
func Draw(c draw.Canvas, m *Map) vg.Rectangle {
	if len(m.Values) != m.Cols*m.Rows || m.Cols == 0 {
		panic("mapplot: Values do not match Cols×Rows")
	}
	l := m.lay(c)
	da := l.plot.DataCanvas(l.mapArea).Rectangle
	if empty(da) {
		// A picture too small for the map beside its axes (render -size
		// 100x100 under a heading): nothing of it fits, and gonum's
		// drawing would panic on the negative rectangle.
		return da
	}
	if m.bars() {
		drawBars(l.mapArea, l.plot, m) // sets the axes the data area depends on
		return l.plot.DataCanvas(l.mapArea).Rectangle
	}
	l.plot.Draw(l.mapArea)
	if !m.NoColourBar && !empty(l.bar.DataCanvas(l.barArea).Rectangle) {
		l.bar.Draw(l.barArea)
	}
	return da
}

// empty reports whether r has no area.
func empty(r vg.Rectangle) bool { return !(r.Max.X > r.Min.X && r.Max.Y > r.Min.Y) }

// Natural returns the height in points m takes, drawn w points wide,
// with no room to spare above or below it; a bar chart is given a 16:10
// frame, a table of categories cells spanning 16:10.
func (m *Map) Natural(w float64) float64 { return float64(m.natural(vg.Length(w))) }

// NaturalWidth returns the width in points m takes, drawn h points high,
// with no room to spare left or right of it.
func (m *Map) NaturalWidth(h float64) float64 { return float64(m.naturalWidth(vg.Length(h))) }

// natural is Natural in vg's lengths.
func (m *Map) natural(w vg.Length) vg.Length {
	if m.bars() {
		return w * 10 / 16
	}
	l := m.framed().lay(draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: w, Y: 100 * w}}})
	return l.used.Y
}

// framed returns m, or for a map without an aspect (a table of
// categories) a copy whose cells span a 16:10 frame, so that tables side
// by side get cells of one size whatever their labels and colour bars.
func (m *Map) framed() *Map {
	if m.Aspect > 0 {
		return m
	}
	c := *m
	c.Aspect = 1.6
	return &c
}

// naturalWidth is NaturalWidth in vg's lengths.
func (m *Map) naturalWidth(h vg.Length) vg.Length {
	if m.bars() {
		return h * 16 / 10
	}
	l := m.framed().lay(draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: 100 * h, Y: h}}})
	return l.used.X
}

// style returns the map's style, unset fields filled from Print.
func (m *Map) style() Style { return m.Style.orDefault() }

func mapPlot(m *Map, cm palette.ColorMap) *plot.Plot {
	p := m.style().Plot()
	p.Title.Text = m.Title
	if m.bars() {
		p.Add(&bars{m: m, cm: cm})
	} else {
		p.Add(&cells{m: m, cm: cm})
	}
	b := m.Viewed()
	p.X.Min, p.X.Max = b.Min[0], b.Max[0]
	p.Y.Min, p.Y.Max = b.Min[1], b.Max[1]
	if m.categorical() {
		p.X.Label.Text, p.Y.Label.Text = m.ColName, m.RowName
		p.X.Tick.Marker = categoryTicks(m.ColLabels)
		p.Y.Tick.Marker = categoryTicks(m.RowLabels)
		if longest(m.ColLabels)*m.Cols > 60 {
			// Slant long column labels so that they do not overlap.
			p.X.Tick.Label.Rotation = math.Pi / 6
			p.X.Tick.Label.XAlign = draw.XRight
			p.X.Tick.Label.YAlign = draw.YCenter
		}
		return p
	}
	// Ticks say their hemisphere (37.75°N, 122.45°W), so the axes need
	// no labels and the cells get the room.
	p.X.Tick.Marker = degreeTicks{n: maxDegreeTicks, hemi: "EW"}
	p.Y.Tick.Marker = degreeTicks{n: maxDegreeTicks, hemi: "NS", bare: m.NoLatLabels}
	return p
}

// categoryTicks labels unit cells at their centres.
type categoryTicks []string

// Beyond 25 categories only every few is labelled, the first and the
// multiples of a step, so that labels do not overlap.
func (c categoryTicks) Ticks(lo, hi float64) []plot.Tick {
	step := max(1, (len(c)+24)/25)
	ts := make([]plot.Tick, len(c))
	for i, l := range c {
		ts[i] = plot.Tick{Value: float64(i) + 0.5}
		if i%step == 0 {
			ts[i].Label = l
		}
	}
	return ts
}

// longest returns the length in characters of the longest label.
func longest(labels []string) int {
	n := 0
	for _, l := range labels {
		n = max(n, utf8.RuneCountInString(l))
	}
	return n
}

// colourMap returns m's colour map over its range, in scaled values.
func colourMap(m *Map) palette.ColorMap {
	lo, hi := m.Lo, m.Hi
	if !(lo < hi) {
		lo, hi = valueRange(m.Values)
	}
	if m.Diverging {
		r := math.Max(math.Abs(lo), math.Abs(hi))
		cm := moreland.SmoothBlueRed()
		cm.SetMin(-r)
		cm.SetMax(r)
		cm.SetConvergePoint(0)
		return cm
	}
	cm := Viridis()
	s := m.scale()
	if s == Log {
		lo = hi * math.Pow(10, -LogDecades)
	}
	cm.SetMin(s.fwd(lo))
	cm.SetMax(s.fwd(hi))
	return cm
}

// scale returns the scale values are coloured by.
func (m *Map) scale() Scale {
	if m.Diverging {
		return Linear
	}
	return m.Scale
}

func colourBar(m *Map, cm palette.ColorMap) *plot.Plot {
	p := m.style().Plot()
	p.HideX()
	p.Y.Label.Text = m.Label
	p.Y.Tick.Marker = valueTicks{}
	switch m.scale() {
	case Sqrt:
		// The bar spans the scaled values; ticks sit at √v labelled v.
		p.Y.Tick.Marker = sqrtTicks{}
	case Log:
		p.Y.Tick.Marker = logTicks{}
	}
	if !m.Diverging && wholeValues(m.Values) {
		p.Y.Tick.Marker = wholeTicks{p.Y.Tick.Marker}
	}
	p.Add(&plotter.ColorBar{ColorMap: cm, Vertical: true})
	return p
}

// wholeValues reports whether every value is a whole number (NaN aside):
// counts of users or people.
func wholeValues(v []float64) bool {
	for _, x := range v {
		if !math.IsNaN(x) && x != math.Trunc(x) {
			return false
		}
	}
	return true
}

// wholeTicks labels only the ticks of whole values, for a colour bar of
// counts: 0, 1, 2, never 0.04 or 0.5 users.
type wholeTicks struct{ plot.Ticker }

func (w wholeTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := w.Ticker.Ticks(lo, hi)
	for i, t := range ts {
		if v, err := strconv.ParseFloat(t.Label, 64); err == nil && v != math.Trunc(v) {
			ts[i].Label = ""
		}
	}
	return ts
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
	switch s {
	case Sqrt:
		return math.Sqrt(math.Max(v, 0))
	case Log:
		if v <= 0 {
			return math.Inf(-1) // clamped to the lowest colour
		}
		return math.Log10(v)
	}
	return v
}

// nanColour fills cells with no value.
var nanColour = color.NRGBA{0xdd, 0xdd, 0xdd, 255}

// cells is a plot.Plotter that draws the cells as one image at the
// canvas's own resolution, each pixel coloured by the cell it falls in.
// plotter.HeatMap draws one polygon per cell, which leaves seams between
// cells and is slow on large grids, or a rasterised image that the canvas
// then smooths into a blur; sampling at the output resolution keeps every
// cell a crisp rectangle at any grid size.
type cells struct {
	m  *Map
	cm palette.ColorMap
}

// Plot implements plot.Plotter.
func (g *cells) Plot(c draw.Canvas, p *plot.Plot) {
	x, y := p.Transforms(&c)
	b := g.m.Viewed()
	rect := vg.Rectangle{Min: vg.Point{X: x(b.Min[0]), Y: y(b.Min[1])}, Max: vg.Point{X: x(b.Max[0]), Y: y(b.Max[1])}}
	dpi := 144.0
	if d, ok := backing(c).(interface{ DPI() float64 }); ok {
		dpi = d.DPI()
	}
	w := max(1, int(math.Round(rect.Size().X.Dots(dpi))))
	h := max(1, int(math.Round(rect.Size().Y.Dots(dpi))))
	var base *image.NRGBA
	if g.m.Basemap != nil && !g.m.categorical() {
		base = g.m.Basemap.Image(b, w, h)
	}
	img := g.pixels(w, h, base)
	// On an image canvas, copy the pixels in place: the image is already at
	// the canvas's resolution, and vg's DrawImage would resample it.
	if vc, ok := backing(c).(*vgimg.Canvas); ok {
		dst := vc.Image()
		x0 := int(math.Round(rect.Min.X.Dots(dpi)))
		y0 := dst.Bounds().Dy() - int(math.Round(rect.Max.Y.Dots(dpi)))
		stddraw.Draw(dst, image.Rect(x0, y0, x0+w, y0+h), img, image.Point{}, stddraw.Src)
	} else {
		c.DrawImage(rect, img)
	}
	if g.m.categorical() {
		return
	}
	if len(g.m.Outlines) > 0 {
		outline(c, x, y, g.m.Outlines)
	}
	st := g.m.style()
	if !g.m.Plain {
		scaleBar(c, rect, b, st)
		northArrow(c, rect, st)
	}
	if base != nil {
		attribute(c, rect, g.m.Basemap.Attribution(), st)
	}
}

// kmPerDegree is the length of a degree of latitude, and of longitude at
// the equator, on the WGS 84 ellipsoid's mean radius.
const kmPerDegree = 111.195

// ScaleBarKm returns the length of a map's scale bar: the round length
// (1, 2 or 5 times a power of ten km) closest below a fifth of the
// width of the box b on its middle parallel.
func ScaleBarKm(b orb.Bound) float64 {
	width := widthKm(b)
	if !(width > 0) {
		return 0
	}
	target := width / 5
	p := math.Pow(10, math.Floor(math.Log10(target)))
	for _, m := range []float64{5, 2, 1} {
		if m*p <= target {
			return m * p
		}
	}
	return p
}

// widthKm returns the width of box b on its middle parallel.
func widthKm(b orb.Bound) float64 {
	mid := (b.Min[1] + b.Max[1]) / 2
	return (b.Max[0] - b.Min[0]) * kmPerDegree * math.Cos(mid*math.Pi/180)
}

// bandColour backs the scale bar, the north arrow and the basemap's
// credit, so that they read over any colour.
var bandColour = color.NRGBA{255, 255, 255, 200}

// furniture is the dark grey of the scale bar, north arrow and credit
// drawn over the map on light bands, whatever the figure's style.
var furniture = color.Gray{0x22}

// scaleBar draws a bar of ScaleBarKm in the bottom-left corner of the map
// area r of box b, on a light band, labelled in km (or m below 1 km).
func scaleBar(c draw.Canvas, r vg.Rectangle, b orb.Bound, st Style) {
	km := ScaleBarKm(b)
	if km == 0 {
		return
	}
	length := r.Size().X * vg.Length(km/widthKm(b))
	label := strconv.FormatFloat(km, 'f', -1, 64) + " km"
	if km < 1 {
		label = strconv.FormatFloat(km*1000, 'f', -1, 64) + " m"
	}
	sty := st.text(8, draw.XCenter, draw.YBottom)
	sty.Color = furniture
	u := st.size(1)
	pad := 4 * u
	x0, y0 := r.Min.X+pad+2*u, r.Min.Y+pad+2*u
	band := vg.Rectangle{Min: vg.Point{X: r.Min.X + pad - 2*u, Y: r.Min.Y + pad - u},
		Max: vg.Point{X: x0 + length + 4*u, Y: y0 + 4*u + sty.Height(label) + 2*u}}
	c.SetColor(bandColour)
	c.Fill(band.Path())
	bar := draw.LineStyle{Color: furniture, Width: 1.5 * u}
	c.StrokeLine2(bar, x0, y0, x0+length, y0)
	c.StrokeLine2(bar, x0, y0, x0, y0+3*u)
	c.StrokeLine2(bar, x0+length, y0, x0+length, y0+3*u)
	c.FillText(sty, vg.Point{X: x0 + length/2, Y: y0 + 3*u}, label)
}

// northArrow draws an arrow and N in the top-right corner of the map
// area r: the maps are drawn north up.
func northArrow(c draw.Canvas, r vg.Rectangle, st Style) {
	u := st.size(1)
	size := 12 * u
	x, top := r.Max.X-10*u, r.Max.Y-6*u
	sty := st.text(8, draw.XCenter, draw.YTop)
	sty.Color = furniture
	band := vg.Rectangle{Min: vg.Point{X: x - 6*u, Y: top - size - sty.Height("N") - 2*u}, Max: vg.Point{X: x + 6*u, Y: top + 2*u}}
	c.SetColor(bandColour)
	c.Fill(band.Path())
	var head vg.Path
	head.Move(vg.Point{X: x, Y: top})
	head.Line(vg.Point{X: x - 4*u, Y: top - 7*u})
	head.Line(vg.Point{X: x + 4*u, Y: top - 7*u})
	head.Close()
	c.SetColor(furniture)
	c.Fill(head)
	c.StrokeLine2(draw.LineStyle{Color: furniture, Width: 1.5 * u}, x, top-7*u, x, top-size)
	c.FillText(sty, vg.Point{X: x, Y: top - size - u}, "N")
}

// pixels colours a w×h picture of the map's view, each pixel by the
// cell it falls in, over the basemap base when there is one.
func (g *cells) pixels(w, h int, base *image.NRGBA) *image.NRGBA {
	colours := g.colours()
	b, v := g.m.bound(), g.m.Viewed()
	// The cell column of every pixel column, and row of every pixel row
	// (image rows run north to south).
	cols, rows := make([]int, w), make([]int, h)
	for px := range cols {
		x := v.Min[0] + (float64(px)+0.5)/float64(w)*(v.Max[0]-v.Min[0])
		cols[px] = min(max(int((x-b.Min[0])/(b.Max[0]-b.Min[0])*float64(g.m.Cols)), 0), g.m.Cols-1)
	}
	for py := range rows {
		y := v.Max[1] - (float64(py)+0.5)/float64(h)*(v.Max[1]-v.Min[1])
		rows[py] = min(max(int((y-b.Min[1])/(b.Max[1]-b.Min[1])*float64(g.m.Rows)), 0), g.m.Rows-1)
	}
	// Faint lines between cells when cells are at least 8 pixels wide.
	lines := w >= 8*(cols[w-1]-cols[0]+1) && h >= 8*(rows[0]-rows[h-1]+1)
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	alpha := g.m.opacity()
	for py := range h {
		row := rows[py]
		rowEdge := py > 0 && rows[py-1] != row
		for px := range w {
			col := cols[px]
			i := row*g.m.Cols + col
			c := colours[i]
			if lines && (rowEdge || px > 0 && cols[px-1] != col) {
				c = lighten(c)
			}
			if base != nil {
				c = over(c, base.NRGBAAt(px, py), alpha, math.IsNaN(g.m.Values[i]))
			}
			img.SetNRGBA(px, py, c)
		}
	}
	return img
}

// outline draws lines in longitude and latitude, clipped to the data
// area: a light halo, then the line.
func outline(c draw.Canvas, x, y func(float64) vg.Length, lines []orb.LineString) {
	halo := draw.LineStyle{Color: bandColour, Width: vg.Points(2.2)}
	line := draw.LineStyle{Color: color.NRGBA{0x22, 0x22, 0x22, 255}, Width: vg.Points(0.9)}
	paths := make([][]vg.Point, 0, len(lines))
	for _, l := range lines {
		pts := thin(nil, l, x, y) // new: the clipped paths may share it
		if len(pts) >= 2 {
			paths = append(paths, c.ClipLinesXY(pts)...)
		}
	}
	for _, sty := range []draw.LineStyle{halo, line} {
		for _, p := range paths {
			c.StrokeLines(sty, p)
		}
	}
}

// outlineStep is the least distance between the vertices of an outline
// that are drawn: a coastline of 10⁶ vertices is some thousands at the
// size of a map, and drawing every vertex took minutes.
const outlineStep = vg.Length(0.5)

// thin appends to dst the line l on the canvas, keeping a vertex only
// when it lies outlineStep or more from the last kept one (the last
// vertex always).
func thin(dst []vg.Point, l orb.LineString, x, y func(float64) vg.Length) []vg.Point {
	for i, p := range l {
		q := vg.Point{X: x(p[0]), Y: y(p[1])}
		if n := len(dst); n > 0 && i < len(l)-1 {
			d := dst[n-1]
			if math.Abs(float64(q.X-d.X)) < float64(outlineStep) && math.Abs(float64(q.Y-d.Y)) < float64(outlineStep) {
				continue
			}
		}
		dst = append(dst, q)
	}
	return dst
}

// over returns the cell colour c drawn with opacity alpha over the
// basemap pixel b, which shows whole under a cell with no value and as
// white where the basemap has no tile.
func over(c, b color.NRGBA, alpha float64, empty bool) color.NRGBA {
	if b.A == 0 {
		b = color.NRGBA{255, 255, 255, 255}
	}
	if empty {
		return b
	}
	mix := func(x, y uint8) uint8 { return uint8(math.Round(alpha*float64(x) + (1-alpha)*float64(y))) }
	return color.NRGBA{mix(c.R, b.R), mix(c.G, b.G), mix(c.B, b.B), 255}
}

// attribute writes a basemap's credit in the bottom-right corner of the
// map area r, on a light band so that it reads over any tile.
func attribute(c draw.Canvas, r vg.Rectangle, credit string, st Style) {
	if credit == "" {
		return
	}
	sty := st.text(7, draw.XRight, draw.YBottom)
	sty.Color = furniture
	pad := st.size(2)
	w, h := sty.Width(credit), sty.Height(credit)
	band := vg.Rectangle{Min: vg.Point{X: r.Max.X - w - 2*pad, Y: r.Min.Y}, Max: vg.Point{X: r.Max.X, Y: r.Min.Y + h + pad}}
	c.SetColor(bandColour)
	c.Fill(band.Path())
	c.FillText(sty, vg.Point{X: r.Max.X - pad, Y: r.Min.Y + pad/2}, credit)
}

// lighten mixes c with 20% white, for the lines between cells.
func lighten(c color.NRGBA) color.NRGBA {
	mix := func(v uint8) uint8 { return uint8((int(v)*4 + 255) / 5) }
	return color.NRGBA{mix(c.R), mix(c.G), mix(c.B), c.A}
}

// backing returns the vg.Canvas under the draw.Canvas layers that
// draw.Crop adds.
func backing(c draw.Canvas) vg.Canvas {
	vc := c.Canvas
	for {
		dc, ok := vc.(draw.Canvas)
		if !ok {
			return vc
		}
		vc = dc.Canvas
	}
}

// colours returns the colour of every cell.
//
// Beyond lutLevels cells the colour map is read at lutLevels + 1 evenly
// spaced levels and each cell takes the nearest: the CIELAB arithmetic of
// gonum's colour maps then costs a few thousand calls, not one a cell (a
// 200×200 map draws in 18 ms instead of 32), and the levels are finer
// than 8-bit colour can show.
func (g *cells) colours() []color.NRGBA {
	lo, hi := g.cm.Min(), g.cm.Max()
	scale := g.m.scale()
	out := make([]color.NRGBA, len(g.m.Values))
	if len(out) <= lutLevels { // few cells: each its exact colour
		for i, v := range g.m.Values {
			out[i] = nanColour
			if math.IsNaN(v) {
				continue
			}
			if c, err := g.cm.At(math.Max(lo, math.Min(hi, scale.fwd(v)))); err == nil {
				out[i] = color.NRGBAModel.Convert(c).(color.NRGBA)
			}
		}
		return out
	}
	var lut [lutLevels + 1]color.NRGBA
	for k := range lut {
		lut[k] = nanColour
		if c, err := g.cm.At(lo + (hi-lo)*float64(k)/lutLevels); err == nil {
			lut[k] = color.NRGBAModel.Convert(c).(color.NRGBA)
		}
	}
	for i, v := range g.m.Values {
		out[i] = nanColour
		if math.IsNaN(v) {
			continue
		}
		z := math.Max(lo, math.Min(hi, scale.fwd(v)))
		k := 0
		if hi > lo {
			k = int(math.Round((z - lo) / (hi - lo) * lutLevels))
		}
		out[i] = lut[k]
	}
	return out
}

// lutLevels is the number of steps of colours' table.
const lutLevels = 4096

// DataRange implements plot.DataRanger: the box drawn.
func (g *cells) DataRange() (xmin, xmax, ymin, ymax float64) {
	b := g.m.Viewed()
	return b.Min[0], b.Max[0], b.Min[1], b.Max[1]
}

// maxDegreeTicks is the most labelled ticks a latitude or longitude axis
// has; fitTicks lowers it until the labels have room.
const maxDegreeTicks = 8

// degreeTicks labels an axis in degrees at most n times, at a round step
// (1, 2, 2.5 or 5 times a power of ten) with as many decimals as the step
// needs, and marks four or five minor ticks between labels. Labels name
// the hemisphere: hemi is "NS" for latitude, "EW" for longitude.
type degreeTicks struct {
	n    int
	hemi string
	// bare leaves every tick unlabelled.
	bare bool
}

func (t degreeTicks) Ticks(lo, hi float64) []plot.Tick {
	span := hi - lo
	if !(span > 0) || math.IsInf(span, 0) {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	step, minor, prec := roundStep(span/float64(max(t.n, 1)), lo, hi, max(t.n, 1))
	var ts []plot.Tick
	const eps = 1e-9
	for k := math.Ceil(lo/minor - eps); k*minor <= hi+eps*minor; k++ {
		v := k * minor
		tk := plot.Tick{Value: v}
		if r := v / step; math.Abs(r-math.Round(r)) < 1e-6 && !t.bare {
			tk.Label = t.label(v, prec)
		}
		ts = append(ts, tk)
	}
	return ts
}

// label writes the degree v with prec decimals and its hemisphere (none
// at 0).
func (t degreeTicks) label(v float64, prec int) string {
	s := strconv.FormatFloat(math.Abs(v), 'f', prec, 64) + "°"
	switch {
	case len(t.hemi) != 2 || strings.Trim(s, "0.°") == "":
	case v > 0:
		s += t.hemi[:1]
	case v < 0:
		s += t.hemi[1:]
	}
	return s
}

// roundStep returns the least round step (1, 2, 2.5 or 5 times a power of
// ten) at which at most n labels fall in [lo, hi], starting the search a
// decade below s, the span over n; the minor step between its labels; and
// the decimals its labels need.
func roundStep(s, lo, hi float64, n int) (step, minor float64, prec int) {
	for e := math.Floor(math.Log10(s)) - 1; ; e++ {
		p := math.Pow(10, e)
		for _, c := range []struct{ m, minor float64 }{{1, 0.2}, {2, 0.5}, {2.5, 0.5}, {5, 1}} {
			step = c.m * p
			if count := math.Floor(hi/step+1e-9) - math.Ceil(lo/step-1e-9) + 1; count > float64(n) {
				continue
			}
			prec = max(0, int(-e))
			if c.m == 2.5 {
				prec++
			}
			return step, c.minor * p, prec
		}
	}
}

// fitTicks lowers the number of labelled degree ticks on p's axes until
// their labels, drawn in area, stand at least a label apart.
func fitTicks(p *plot.Plot, area draw.Canvas) {
	for _, ax := range []struct {
		a     *plot.Axis
		horiz bool
	}{{&p.X, true}, {&p.Y, false}} {
		if t, ok := ax.a.Tick.Marker.(degreeTicks); !ok || t.bare {
			continue
		}
		da := p.DataCanvas(area)
		length := da.Max.Y - da.Min.Y
		if ax.horiz {
			length = da.Max.X - da.Min.X
		}
		hemi := ax.a.Tick.Marker.(degreeTicks).hemi
		for n := maxDegreeTicks; n > 1; n-- {
			prev := ax.a.Tick.Marker
			ax.a.Tick.Marker = degreeTicks{n: n, hemi: hemi}
			room, labels := labelRoom(ax.a, ax.horiz)
			if labels < 2 && n < maxDegreeTicks {
				ax.a.Tick.Marker = prev // two labels crowded beat one
				break
			}
			if room <= length {
				break
			}
		}
	}
}

// labelRoom returns the length of axis a its labelled ticks need, one and
// a half times each label's width (across) or twice its height (up), and
// how many labels there are.
func labelRoom(a *plot.Axis, horiz bool) (need vg.Length, labels int) {
	for _, t := range a.Tick.Marker.Ticks(a.Min, a.Max) {
		if t.Label == "" {
			continue
		}
		labels++
		if horiz {
			need += 1.5 * a.Tick.Label.Width(t.Label)
		} else {
			need += 2 * a.Tick.Label.Height(t.Label)
		}
	}
	return need, labels
}

// valueTicks are gonum's default ticks labelled in the shortest form
// (500, not 500.00).
type valueTicks struct{}

func (valueTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = tickLabel(ts[i].Value, 4)
		}
	}
	return ts
}

// sqrtTicks labels an axis of square roots at round raw values, 0 and 1,
// 2 or 5 times a power of ten, near five evenly spaced points of the
// axis: 0, 5, 20, 50, 100 rather than 5.6, 22, 89.
type sqrtTicks struct{}

func (sqrtTicks) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	last := math.Inf(-1)
	for i := 0; i <= 5; i++ {
		s := lo + (hi-lo)*float64(i)/5
		v := round125(s*s, hi*hi)
		if r := math.Sqrt(v); v > last && r >= lo-1e-12 {
			ts = append(ts, plot.Tick{Value: r, Label: tickLabel(v, 3)})
			last = v
		}
	}
	return ts
}

// round125 returns the value of the form 1, 2 or 5 times a power of ten
// nearest v in ratio and at most top (0 for v ≤ 0).
func round125(v, top float64) float64 {
	if !(v > 0) {
		return 0
	}
	e := math.Floor(math.Log10(v))
	best, bestGap := 0.0, math.Inf(1)
	for _, c := range []float64{0.5, 1, 2, 5, 10} {
		x := c * math.Pow(10, e)
		if x > top*(1+1e-12) {
			continue
		}
		if gap := math.Abs(math.Log(x / v)); gap < bestGap {
			best, bestGap = x, gap
		}
	}
	return best
}

// logTicks labels an axis of log₁₀ values with the powers of ten (and
// 2× and 5× them when the axis spans few decades) in raw values.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	few := hi-lo < 2.5
	for e := math.Floor(lo); e <= math.Ceil(hi); e++ {
		for _, c := range []float64{1, 2, 5} {
			v := c * math.Pow(10, e)
			z := math.Log10(v)
			if z < lo-1e-9 || z > hi+1e-9 {
				continue
			}
			if c == 1 || few {
				ts = append(ts, plot.Tick{Value: z, Label: strconv.FormatFloat(v, 'g', 3, 64)})
			} else {
				ts = append(ts, plot.Tick{Value: z})
			}
		}
	}
	return ts
}

// tickLabel formats a tick value with prec significant digits, writing
// whole numbers below a billion in full (7500, not 7.5e+03).
func tickLabel(v float64, prec int) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e9 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', prec, 64)
}

// GridMap is the map of values v on grid alphabet a, its cells as wide
// as they are on the ground (the grid's true sides), over the grid's
// longitude–latitude box.
func GridMap(a core.Alphabet, v []float64, title string, scale Scale) *Map {
	aspect := float64(a.Cols) / float64(a.Rows)
	if a.CellWidthKm > 0 && a.CellHeightKm > 0 {
		aspect = a.CellWidthKm * float64(a.Cols) / (a.CellHeightKm * float64(a.Rows))
	}
	return &Map{Cols: a.Cols, Rows: a.Rows, Values: v, Aspect: aspect, Title: title, Label: "probability", Scale: scale,
		Bound: orb.Bound{Min: orb.Point{a.West, a.South}, Max: orb.Point{a.East, a.North}}}
}
