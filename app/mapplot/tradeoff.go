package mapplot

import (
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// A TradeOff is a kind's privacy against its utility: at each ε, an
// attacker's success from one report (X, a probability) and the
// estimate's error (Y). Current is the index of the point of the
// population's choice, −1 for none; Prior is the attacker's success
// without a report, drawn as a dashed line.
type TradeOff struct {
	XLabel, YLabel, Series string
	Eps, X, Y              []float64
	Current                int
	Prior                  float64
}

// TradeOffPlot plots the trade-off: a line through the points, each
// labelled with its ε, the current choice ringed, and the success
// without a report as a dashed vertical line. The success axis is
// logarithmic when it spans more than a decade.
func TradeOffPlot(st Style, c TradeOff) (*plot.Plot, error) {
	st = st.orDefault()
	if len(c.X) != len(c.Y) || len(c.X) != len(c.Eps) || len(c.X) < 2 {
		return nil, fmt.Errorf("trade-off: %d successes, %d errors, %d levels: want as many, at least 2", len(c.X), len(c.Y), len(c.Eps))
	}
	p := st.Plot()
	p.X.Label.Text, p.Y.Label.Text = c.XLabel, c.YLabel
	st.legend(p)
	xy := make(plotter.XYs, len(c.X))
	for i := range c.X {
		xy[i] = plotter.XY{X: c.X[i], Y: c.Y[i]}
	}
	tradeAxes(p, c)
	line, pts, err := plotter.NewLinePoints(xy)
	if err != nil {
		return nil, err
	}
	line.Color, line.Width = Palette[0], st.size(1.8)
	pts.Color, pts.Radius, pts.Shape = Palette[0], st.size(2.5), draw.CircleGlyph{}
	p.Add(line, pts)
	p.Legend.Add(c.Series, line, pts)
	if err := addEpsLabels(p, st, xy, c.Eps); err != nil {
		return nil, err
	}
	return p, addMarks(p, st, c, xy)
}

// addEpsLabels labels each point with its ε.
func addEpsLabels(p *plot.Plot, st Style, xy plotter.XYs, eps []float64) error {
	labels := make([]string, len(eps))
	for i, e := range eps {
		labels[i] = fmt.Sprintf("ε %.3g", e)
	}
	lab, err := plotter.NewLabels(plotter.XYLabels{XYs: xy, Labels: labels})
	if err != nil {
		return err
	}
	for i := range lab.TextStyle {
		lab.TextStyle[i].Font = font.From(plotFont, font.Length(st.size(8)))
		lab.TextStyle[i].Color = st.Ink
		lab.TextStyle[i].XAlign, lab.TextStyle[i].YAlign = draw.XLeft, draw.YBottom
	}
	lab.Offset = vg.Point{X: st.size(4), Y: st.size(3)}
	p.Add(lab)
	return nil
}

// addMarks draws the success without a report and rings the current
// choice.
func addMarks(p *plot.Plot, st Style, c TradeOff, xy plotter.XYs) error {
	if c.Prior > 0 && c.Prior >= p.X.Min && c.Prior <= p.X.Max {
		l, err := plotter.NewLine(plotter.XYs{{X: c.Prior, Y: p.Y.Min}, {X: c.Prior, Y: p.Y.Max}})
		if err != nil {
			return err
		}
		l.Color, l.Width, l.Dashes = st.Ink, st.size(1), []vg.Length{st.size(4), st.size(3)}
		p.Add(l)
		p.Legend.Add("the attacker without a report", l)
	}
	if c.Current >= 0 && c.Current < len(xy) {
		s, err := plotter.NewScatter(plotter.XYs{xy[c.Current]})
		if err != nil {
			return err
		}
		s.GlyphStyle = draw.GlyphStyle{Color: Palette[1%len(Palette)], Radius: st.size(6), Shape: draw.RingGlyph{}}
		p.Add(s)
		p.Legend.Add("the population's choice", s)
	}
	return nil
}

// tradeAxes sets the axes' ranges and ticks: the success in percent,
// logarithmic when it spans more than a decade.
func tradeAxes(p *plot.Plot, c TradeOff) {
	lo, hi := c.Prior, c.Prior
	ylo, yhi := math.Inf(1), math.Inf(-1)
	for i := range c.X {
		lo, hi = math.Min(lo, c.X[i]), math.Max(hi, c.X[i])
		ylo, yhi = math.Min(ylo, c.Y[i]), math.Max(yhi, c.Y[i])
	}
	if lo > 0 && hi/lo > 10 {
		p.X.Scale = plot.LogScale{}
		p.X.Min, p.X.Max = lo/math.Pow(hi/lo, 0.04), hi*math.Pow(hi/lo, 0.08)
		p.X.Tick.Marker = percentTicks{logTicks125{}}
	} else {
		pad := 0.05 * math.Max(hi-lo, 1e-3)
		p.X.Min, p.X.Max = math.Max(0, lo-pad), hi+2*pad
		p.X.Tick.Marker = percentTicks{plot.DefaultTicks{}}
	}
	ypad := 0.08 * math.Max(yhi-ylo, 1e-9)
	p.Y.Min, p.Y.Max = math.Max(0, ylo-ypad), yhi+4*ypad
}

// percentTicks labels a probability axis's ticks as percentages.
type percentTicks struct{ plot.Ticker }

// Ticks implements plot.Ticker.
func (p percentTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := p.Ticker.Ticks(lo, hi)
	for i, t := range ticks {
		if t.Label != "" {
			ticks[i].Label = strconv.FormatFloat(100*t.Value, 'g', 3, 64) + "%"
		}
	}
	return ticks
}
