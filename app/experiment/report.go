package experiment

import (
	"fmt"
	"image"
	"image/color"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/privmap/privmap/app/mapplot"
	"github.com/privmap/privmap/app/output"
)

// A Point is one estimator's metric at one setting of a panel over the
// runs: the mean and its 95% confidence interval, mean ± t·sd/√runs with
// Student's t at runs − 1 degrees of freedom (NaN with one run; for a
// share of runs, Clopper and Pearson's), and the runs' values by run.
type Point struct {
	Panel, Setting string
	Users          int
	X              float64
	Variant        string
	Metric         Metric
	Mean           float64
	Lo, Hi         float64
	// Values holds each run's value, by run.
	Values []float64
	Runs   []int
	// Share: the metric is 0 or 1 a run (whether a band held, say:
	// shareMetrics), so the mean is a share of runs and its interval is
	// Clopper and Pearson's exact binomial one, within [0, 1] (Student's
	// t would run past it).
	Share bool
}

// shareMetrics are the metrics whose value a run is 0 or 1, so that
// their mean is a share of runs.
var shareMetrics = map[Metric]bool{CoverBand: true, CoverTV: true}

// clopperPearson returns the exact 95% interval of a binomial
// proportion observed as the share p of n trials (Clopper & Pearson
// 1934): the 2.5% quantile of Beta(k, n−k+1) and the 97.5% quantile of
// Beta(k+1, n−k), 0 and 1 at the ends, k = p·n.
func clopperPearson(p float64, n int) (lo, hi float64) {
	k := math.Round(p * float64(n))
	lo, hi = 0, 1
	if k > 0 {
		lo = distuv.Beta{Alpha: k, Beta: float64(n) - k + 1}.Quantile(0.025)
	}
	if k < float64(n) {
		hi = distuv.Beta{Alpha: k + 1, Beta: float64(n) - k}.Quantile(0.975)
	}
	return lo, hi
}

// Points summarises rows by panel, setting, estimator and metric, in the
// panels' order; X comes from the panels' settings. Rows of settings the
// panels do not have are left out.
func Points(panels []Panel, rows []Row) []Point {
	type key struct {
		panel, setting string
		users          int
		method, metric string
	}
	index := map[key]int{}
	var out []Point
	xs := map[key]float64{}
	for _, p := range panels {
		for _, s := range p.Settings {
			xs[key{p.Name, s.Name, s.Users(), "", ""}] = s.X
		}
	}
	for _, r := range rows {
		x, ok := xs[key{r.Panel, r.Setting, r.Users, "", ""}]
		if !ok {
			continue
		}
		k := key{r.Panel, r.Setting, r.Users, r.Method, r.Metric}
		i, ok := index[k]
		if !ok {
			i = len(out)
			index[k] = i
			out = append(out, Point{Panel: r.Panel, Setting: r.Setting, Users: r.Users, X: x, Variant: r.Method, Metric: Metric(r.Metric)})
		}
		out[i].Values = append(out[i].Values, r.Value)
		out[i].Runs = append(out[i].Runs, r.Run)
	}
	for i := range out {
		pt := &out[i]
		sort.Sort(byRun{pt})
		mean, sd := stat.MeanStdDev(pt.Values, nil)
		half := math.NaN()
		if n := len(pt.Values); n > 1 {
			half = distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(0.975) * sd / math.Sqrt(float64(n))
		} else {
			mean = pt.Values[0]
		}
		pt.Mean, pt.Lo, pt.Hi = mean, mean-half, mean+half
		if pt.Share = shareMetrics[pt.Metric] && len(pt.Values) > 1; pt.Share {
			pt.Lo, pt.Hi = clopperPearson(mean, len(pt.Values))
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Panel != out[j].Panel {
			return out[i].Panel < out[j].Panel
		}
		return out[i].X < out[j].X
	})
	return out
}

// byRun sorts a point's values by run.
type byRun struct{ p *Point }

func (b byRun) Len() int           { return len(b.p.Runs) }
func (b byRun) Less(i, j int) bool { return b.p.Runs[i] < b.p.Runs[j] }
func (b byRun) Swap(i, j int) {
	b.p.Runs[i], b.p.Runs[j] = b.p.Runs[j], b.p.Runs[i]
	b.p.Values[i], b.p.Values[j] = b.p.Values[j], b.p.Values[i]
}

// shapes tell the estimators apart without colour.
var shapes = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.PlusGlyph{},
	draw.CrossGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}}

// dashes tell the lines apart in grey print: solid, dashed, dotted, dash-dot.
var dashes = [][]vg.Length{nil, {vg.Points(5), vg.Points(2)}, {vg.Points(1), vg.Points(2)}, {vg.Points(5), vg.Points(2), vg.Points(1), vg.Points(2)}}

// metricNames name the metrics on the figures' y-axes.
var metricNames = map[Metric]string{EMD: "EMD", MSE: "squared error", JSD: "JS divergence", TV: "total variation",
	AbsMean: "E|noise|", Variance: "variance", Entropy: "entropy", BudgetPM: "general privacy budget (PM)",
	PWithin: "P(|error| ≤ bound)", MRE: "mean relative error", Loss: "privacy loss",
	CoverCell: "cells covered", CoverBand: "band covers all", CoverTV: "TV bound holds", Width: "mean interval width", MissZero: "misses at an estimate of 0",
	CoverPeople: "cells with people covered", CoverEmpty: "empty cells covered", Cover1: "one-person cells covered", Cover2to4: "cells of 2–4 people covered", Cover5: "cells of 5+ people covered"}

// axisLabel is metric m's y-axis label with the panel's unit.
func axisLabel(p Panel, m Metric) string {
	name := metricNames[m]
	if m == MSE && !p.Box {
		name = "MSE"
	}
	if u := p.Unit(m); u != "" {
		name += " (" + u + ")"
	}
	return name
}

// A Chart is the figure of one panel: a plot per metric and the legend
// of the estimators, drawn beside them.
type Chart struct {
	// Title heads the plots, once.
	Title  string
	Plots  []*plot.Plot
	Legend plot.Legend
	style  mapplot.Style
}

// Figure returns the chart of one panel from the points, in style st
// (mapplot.Print for files, the window's colours on screen): for each
// metric each estimator's mean against the setting's x with its 95%
// intervals, or, for a box panel, the box plots of its runs.
func Figure(p Panel, points []Point, st mapplot.Style) (*Chart, error) {
	if st.TextSize <= 0 {
		st.TextSize = mapplot.Print.TextSize
	}
	if st.Ink == nil || st.Paper == nil {
		st.Ink, st.Paper = mapplot.Print.Ink, mapplot.Print.Paper
	}
	ch := &Chart{Title: fmt.Sprintf("(%s) %s", p.Name, p.Title), Legend: plot.NewLegend(), style: st}
	ch.Legend.TextStyle.Font = font.From(sansFont, font.Length(st.TextSize))
	ch.Legend.TextStyle.Color = st.Ink
	ch.Legend.Top, ch.Legend.Left = true, true
	// Room between the rows: an underscore's descent ("[INV]_M") met
	// the next row's marks.
	ch.Legend.Padding = vg.Points(0.35 * st.TextSize)
	for i, m := range p.Metrics {
		pl := st.Plot()
		pl.X.Label.Text = p.XLabel
		pl.Y.Label.Text = axisLabel(p, m)
		grid := plotter.NewGrid()
		grid.Vertical.Color, grid.Horizontal.Color = st.Faint(0.25), st.Faint(0.25)
		pl.Add(grid)
		legend := &ch.Legend
		if i > 0 {
			legend = nil // one legend for the chart
		}
		var err error
		if p.Box {
			err = boxes(pl, p, m, points, legend, st)
		} else {
			err = lines(pl, p, m, points, legend, st.TextSize/10)
		}
		if err != nil {
			return nil, err
		}
		ch.Plots = append(ch.Plots, pl)
	}
	return ch, nil
}

// sansFont is the figures' type, as the maps'.
var sansFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

// shorten cuts s to at most n characters at a word, marking the cut.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	cut := strings.LastIndex(string(r[:n]), " ")
	if cut < 0 {
		cut = len(string(r[:n]))
	}
	return string(s[:cut]) + " …"
}

// lines draws each estimator's means against x with their intervals,
// lines and marks scaled with the type (scale 1 at 10 points).
func lines(pl *plot.Plot, p Panel, m Metric, points []Point, legend *plot.Legend, scale float64) error {
	var ext extent
	for i, v := range p.Variants {
		xys, errs := series(p, v, m, points, &ext)
		if len(xys) == 0 {
			continue
		}
		line, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			return err
		}
		c := mapplot.Palette[i%len(mapplot.Palette)]
		line.Color, pts.Color = c, c
		line.Width = vg.Points(1.2 * scale)
		if p.Scatter {
			line.Width = 0 // marks alone: the settings are not a sequence
		}
		for _, d := range dashes[i%len(dashes)] {
			line.Dashes = append(line.Dashes, d*vg.Length(scale))
		}
		pts.Shape = shapes[i%len(shapes)]
		pts.Radius = vg.Points(2.5 * scale)
		bars, err := plotter.NewYErrorBars(struct {
			plotter.XYs
			plotter.YErrors
		}{xys, errs})
		if err != nil {
			return err
		}
		bars.Color = c
		bars.Width = vg.Points(scale)
		bars.CapWidth = vg.Points(5 * scale)
		pl.Add(line, pts, bars)
		if legend != nil {
			legend.Add(v.Label, line, pts)
		}
	}
	xRange(pl, p, ext)
	yRange(pl, p, ext.top, ext.bottom)
	return nil
}

// extent is what the curves of a plot cover: x from lo to hi, y up to
// top, and their smallest positive value.
type extent struct {
	lo, hi, top, bottom float64
	seen                bool
}

// series returns one estimator's means against x with their intervals'
// half-widths below and above, and widens ext to cover them. A log axis
// has no place for 0, nor for the lower end of an interval that reaches
// it: such a bar stops at a tenth of its mean.
func series(p Panel, v Variant, m Metric, points []Point, ext *extent) (plotter.XYs, plotter.YErrors) {
	var xys plotter.XYs
	var errs plotter.YErrors
	if !ext.seen {
		*ext = extent{lo: math.Inf(1), hi: math.Inf(-1), bottom: math.Inf(1), seen: true}
	}
	for _, pt := range points {
		if pt.Panel != p.Name || pt.Variant != v.Label || pt.Metric != m || p.LogY && !(pt.Mean > 0) {
			continue
		}
		xys = append(xys, plotter.XY{X: pt.X, Y: pt.Mean})
		low, high := pt.Mean-pt.Lo, pt.Hi-pt.Mean
		if math.IsNaN(low) { // one run has no interval
			low, high = 0, 0
		}
		if p.LogY {
			low = min(low, 0.9*pt.Mean)
		}
		errs = append(errs, struct{ Low, High float64 }{low, high})
		ext.top = max(ext.top, pt.Mean+high)
		if pt.Mean > 0 {
			ext.bottom = min(ext.bottom, pt.Mean)
		}
		ext.lo, ext.hi = min(ext.lo, pt.X), max(ext.hi, pt.X)
	}
	return xys, errs
}

// xRange sets the x-axis a little beyond the settings: logarithmic, or
// linear with a tick at every setting.
func xRange(pl *plot.Plot, p Panel, ext extent) {
	if p.LogX {
		pl.X.Scale = plot.LogScale{}
		pl.X.Tick.Marker = plot.LogTicks{Prec: -1}
		if ext.hi > 0 {
			pl.X.Min, pl.X.Max = ext.lo/1.4, ext.hi*1.4
		}
		return
	}
	if ext.hi > ext.lo {
		pad := 0.05 * (ext.hi - ext.lo)
		pl.X.Min, pl.X.Max = ext.lo-pad, ext.hi+pad
		if !p.Scatter && !p.MeasuredX && len(p.Settings) <= 12 {
			pl.X.Tick.Marker = settingTicks(p) // else gonum's round ticks
		}
	}
}

// settingTicks are ticks at the settings' x, labelled as people read
// them.
func settingTicks(p Panel) plot.ConstantTicks {
	var ticks []plot.Tick
	for _, s := range p.Settings {
		ticks = append(ticks, plot.Tick{Value: s.X, Label: strconv.FormatFloat(s.X, 'g', 4, 64)})
	}
	return ticks
}

// yRange sets the y-axis from 0 (linear) or half the smallest positive
// value (log) to a little above the top value.
func yRange(pl *plot.Plot, p Panel, top, bottom float64) {
	if !(top > 0) || math.IsInf(top, 0) {
		top = 1 // nothing to show: an empty axis, not a loop over infinite ticks
	}
	if p.LogY && top > 0 && !math.IsInf(bottom, 0) {
		pl.Y.Scale = plot.LogScale{}
		pl.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		pl.Y.Min, pl.Y.Max = bottom/2, top*1.5
		return
	}
	pl.Y.Min, pl.Y.Max = 0, top*1.05
}

// boxes draws each setting's runs as one box per estimator, side by side
// above the setting's x, whiskers to the smallest and largest run (as CEM
// Fig. 8 draws them), in the style's ink and scaled with its type.
func boxes(pl *plot.Plot, p Panel, m Metric, points []Point, legend *plot.Legend, st mapplot.Style) error {
	scale := st.TextSize / 10
	w := vg.Points(9 * scale)
	nv := len(p.Variants)
	var ticks []plot.Tick
	top, bottom := 0.0, math.Inf(1)
	for si, s := range p.Settings {
		ticks = append(ticks, plot.Tick{Value: float64(si), Label: strconv.FormatFloat(s.X, 'g', -1, 64)})
		for vi, v := range p.Variants {
			for _, pt := range points {
				if pt.Panel != p.Name || pt.Setting != s.Name || pt.Users != s.Users() || pt.Variant != v.Label || pt.Metric != m {
					continue
				}
				b, err := plotter.NewBoxPlot(w, float64(si), plotter.Values(pt.Values))
				if err != nil {
					return err
				}
				b.AdjLow, b.AdjHigh, b.Outside = b.Min, b.Max, nil
				b.Offset = (vg.Length(vi) - vg.Length(nv-1)/2) * (w + vg.Points(2*scale))
				b.FillColor = mapplot.Palette[vi%len(mapplot.Palette)]
				b.MedianStyle.Color = color.White
				b.MedianStyle.Width = vg.Points(1.5 * scale)
				b.BoxStyle.Color, b.WhiskerStyle.Color = st.Ink, st.Ink
				b.BoxStyle.Width, b.WhiskerStyle.Width = vg.Points(0.8*scale), vg.Points(0.8*scale)
				pl.Add(b)
				top = max(top, b.Max)
				if b.Min > 0 {
					bottom = min(bottom, b.Min)
				}
			}
		}
	}
	for vi, v := range p.Variants {
		if legend != nil {
			legend.Add(v.Label, swatch{mapplot.Palette[vi%len(mapplot.Palette)]})
		}
	}
	pl.X.Tick.Marker = plot.ConstantTicks(ticks)
	pl.X.Min, pl.X.Max = -0.7, float64(len(p.Settings))-0.3
	yRange(pl, p, top, bottom)
	return nil
}

// swatch is a legend entry of a filled colour.
type swatch struct{ c color.Color }

func (s swatch) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	c.FillPolygon(s.c, []vg.Point{r.Min, {X: r.Min.X, Y: r.Max.Y}, r.Max, {X: r.Max.X, Y: r.Min.Y}})
}

// Figure sizes at 10-point type: each plot 4.5×3.5 inches, readable at
// a paper's column width; the legend's column as wide as its labels.
const (
	plotWidth  = 4.5 * vg.Inch
	plotHeight = 3.5 * vg.Inch
)

// legendWidth returns the width of the legend's column: the legend's
// own and a margin of one em either side.
func (ch *Chart) legendWidth() vg.Length {
	return ch.Legend.Rectangle(draw.Canvas{}).Size().X + 2*vg.Points(ch.style.TextSize)
}

// Size returns the chart's natural size: the plots side by side, scaled
// with the type, and the legend's column.
func (ch *Chart) Size() (w, h vg.Length) {
	scale := vg.Length(ch.style.TextSize / 10)
	return scale*plotWidth*vg.Length(len(ch.Plots)) + ch.legendWidth(), scale * plotHeight
}

// Draw draws the plots side by side on dc's paper and the legend in a
// column at the right.
func (ch *Chart) Draw(dc draw.Canvas) {
	dc.FillPolygon(ch.style.Paper, []vg.Point{dc.Min, {X: dc.Min.X, Y: dc.Max.Y}, dc.Max, {X: dc.Max.X, Y: dc.Min.Y}})
	plots := dc
	plots.Max.X -= ch.legendWidth()
	// The title over the figure, on two lines where one is too wide,
	// cut only where two are (it was cut to the plots' width).
	title := text.Style{Color: ch.style.Ink, Font: font.From(sansFont, font.Length(1.1*ch.style.TextSize)),
		XAlign: draw.XCenter, YAlign: draw.YTop, Handler: plot.DefaultTextHandler}
	line := titleLines(ch.Title, title, dc.Max.X-dc.Min.X-2*vg.Points(ch.style.TextSize))
	dc.FillText(title, vg.Point{X: (dc.Min.X + dc.Max.X) / 2, Y: dc.Max.Y - vg.Points(ch.style.TextSize/3)}, line)
	plots.Max.Y -= title.Height(line) + vg.Points(ch.style.TextSize/2)
	pad := vg.Points(ch.style.TextSize)
	tiles := draw.Tiles{Rows: 1, Cols: len(ch.Plots), PadX: pad, PadTop: pad / 4, PadBottom: pad / 4}
	canvases := plot.Align([][]*plot.Plot{ch.Plots}, tiles, plots)
	for i, pl := range ch.Plots {
		pl.Draw(canvases[0][i])
	}
	legend := dc
	legend.Min.X = plots.Max.X + pad
	legend.Max.Y = plots.Max.Y // level with the plots' top
	ch.Legend.Draw(legend)
}

// titleLines sets s in st within width w: one line, or two broken at a
// word, the second cut (shorten) only if it is still too wide.
func titleLines(s string, st text.Style, w vg.Length) string {
	if st.Width(s) <= w {
		return s
	}
	words := strings.Fields(s)
	for i := len(words) - 1; i > 0; i-- {
		first := strings.Join(words[:i], " ")
		if st.Width(first) > w {
			continue
		}
		second := strings.Join(words[i:], " ")
		for len([]rune(second)) > 8 && st.Width(second) > w {
			second = shorten(second, len([]rune(second))*9/10)
		}
		return first + "\n" + second
	}
	for len([]rune(s)) > 8 && st.Width(s) > w {
		s = shorten(s, len([]rune(s))*9/10)
	}
	return s
}

// WriteFigure writes the chart at its natural size as PNG (at 200 dpi)
// or SVG (format "png" or "svg").
func WriteFigure(w io.Writer, ch *Chart, format string) error {
	wd, ht := ch.Size()
	var c vg.CanvasWriterTo
	var stamp func([]byte) []byte
	switch format {
	case "png":
		c, stamp = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(wd, ht), vgimg.UseDPI(200))}, output.StampPNG
	case "svg":
		c, stamp = vgsvg.New(wd, ht), output.StampSVG
	default:
		return fmt.Errorf("figure format %q: want png or svg", format)
	}
	ch.Draw(draw.New(c))
	return output.WriteStamped(w, stamp, func(w io.Writer) error { _, err := c.WriteTo(w); return err })
}

// Image draws the chart on a w×h-pixel image at pxPerPt pixels a point,
// for the window.
func (ch *Chart) Image(w, h int, pxPerPt float64) image.Image {
	c := vgimg.NewWith(vgimg.UseWH(vg.Length(float64(w)/pxPerPt), vg.Length(float64(h)/pxPerPt)),
		vgimg.UseDPI(int(math.Round(72*pxPerPt))), vgimg.UseBackgroundColor(ch.style.Paper))
	ch.Draw(draw.New(c))
	return c.Image()
}
