package mapplot

import (
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// drawBars draws m, a table of one row, as the bar chart p (mapPlot's)
// filling c, in which column i spans the i-th of Cols equal slices as a
// map's cells do.
func drawBars(c draw.Canvas, p *plot.Plot, m *Map) {
	p.Y.Label.Text = m.Label
	p.Y.Tick.Marker = valueTicks{}
	lo, hi := m.Lo, m.Hi
	if !(lo < hi) {
		lo, hi = valueRange(m.Values)
	}
	if m.Diverging {
		r := math.Max(math.Abs(lo), math.Abs(hi))
		lo, hi = -r, r
	}
	p.Y.Min, p.Y.Max = math.Min(lo, 0), hi
	p.Draw(c)
}

// bars is a plot.Plotter drawing a bar from 0 to each value, across the
// middle 80% of its unit column, in the colour of its cell.
type bars struct {
	m  *Map
	cm palette.ColorMap
}

// Plot implements plot.Plotter.
func (b *bars) Plot(c draw.Canvas, p *plot.Plot) {
	x, y := p.Transforms(&c)
	colours := (&cells{m: b.m, cm: b.cm}).colours()
	for i, v := range b.m.Values {
		if math.IsNaN(v) {
			continue
		}
		x0, x1 := x(float64(i)+0.1), x(float64(i)+0.9)
		y0, y1 := y(0), y(math.Max(p.Y.Min, math.Min(p.Y.Max, v)))
		if y1 < y0 {
			y0, y1 = y1, y0
		}
		rect := []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}
		c.FillPolygon(colours[i], c.ClipPolygonXY(rect))
	}
}

// DataRange implements plot.DataRanger: the columns, and the values
// from 0.
func (b *bars) DataRange() (xmin, xmax, ymin, ymax float64) {
	lo, hi := valueRange(b.m.Values)
	return 0, float64(b.m.Cols), math.Min(lo, 0), hi
}
