package mapplot

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// A PlanCurve is a plan's simulated errors: at each X (users, or a
// factor of ε) the errors of its runs and their quantile Bound, the
// error the deployment stays within at the plan's level; Target is the
// error asked for and Need the X where Bound meets it (NaN for none).
type PlanCurve struct {
	XLabel, YLabel, BoundLabel string
	X, Bound                   []float64
	Errors                     [][]float64
	Target, Need               float64
	// Extrapolated: Need lies beyond the points, on the power law
	// through the last two, drawn dashed to it.
	Extrapolated bool
}

// PlanPlot plots the curve on logarithmic axes, where an error that
// falls as a power of the users is a straight line: each run's error a
// faint dot, the bound a line through its points, the target a dashed
// line and the answer a marked point on it.
func PlanPlot(st Style, c PlanCurve) (*plot.Plot, error) {
	st = st.orDefault()
	if len(c.X) != len(c.Bound) || len(c.X) != len(c.Errors) || len(c.X) < 2 {
		return nil, fmt.Errorf("plan curve: %d points, %d bounds, %d error sets: want as many, at least 2", len(c.X), len(c.Bound), len(c.Errors))
	}
	p := st.Plot()
	p.X.Label.Text, p.Y.Label.Text = c.XLabel, c.YLabel
	p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, logTicks125{}
	p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, withTarget{c.Target}
	st.legend(p)
	runs, bound, lo, hi := c.points()
	if !(lo > 0) || len(bound) < 2 {
		return nil, fmt.Errorf("plan curve: the errors are 0: nothing to plot on a logarithmic axis")
	}
	if len(runs) > 0 {
		s, err := plotter.NewScatter(runs)
		if err != nil {
			return nil, err
		}
		s.GlyphStyle = draw.GlyphStyle{Color: st.Faint(0.35), Radius: st.size(1.3), Shape: draw.CircleGlyph{}}
		p.Add(s)
		p.Legend.Add("one simulated deployment", s)
	}
	line, pts, err := plotter.NewLinePoints(bound)
	if err != nil {
		return nil, err
	}
	line.Color, line.Width = Palette[0], st.size(1.8)
	pts.Color, pts.Radius, pts.Shape = Palette[0], st.size(2.5), draw.CircleGlyph{}
	p.Add(line, pts)
	p.Legend.Add(c.BoundLabel, line, pts)
	xlo, xhi := c.X[0], c.X[len(c.X)-1]
	if c.answered() {
		xlo, xhi = math.Min(xlo, c.Need), math.Max(xhi, c.Need)
	}
	// A little room either side, and above for the legend.
	p.X.Min, p.X.Max = xlo/math.Pow(xhi/xlo, 0.04), xhi*math.Pow(xhi/xlo, 0.04)
	p.Y.Min, p.Y.Max = lo/math.Pow(hi/lo, 0.05), hi*math.Pow(hi/lo, 0.45)
	return p, c.addAnswer(p, st, bound)
}

// points returns the runs' errors and the bounds above 0 as points,
// with the lowest and highest values to show (the target among them).
func (c PlanCurve) points() (runs, bound plotter.XYs, lo, hi float64) {
	lo, hi = c.Target, c.Target
	for i, errs := range c.Errors {
		for _, e := range errs {
			if e > 0 {
				runs = append(runs, plotter.XY{X: c.X[i], Y: e})
				lo, hi = math.Min(lo, e), math.Max(hi, e)
			}
		}
	}
	for i, b := range c.Bound {
		if b > 0 {
			bound = append(bound, plotter.XY{X: c.X[i], Y: b})
			hi = math.Max(hi, b)
		}
	}
	return runs, bound, lo, hi
}

// answered reports whether the curve has an answer to mark.
func (c PlanCurve) answered() bool { return c.Need > 0 && !math.IsInf(c.Need, 0) }

// addAnswer draws the target across p and the answer on it, dashed
// from the bound's nearest point when it was extrapolated.
func (c PlanCurve) addAnswer(p *plot.Plot, st Style, bound plotter.XYs) error {
	target, err := plotter.NewLine(plotter.XYs{{X: p.X.Min, Y: c.Target}, {X: p.X.Max, Y: c.Target}})
	if err != nil {
		return err
	}
	target.Color, target.Width, target.Dashes = st.Ink, st.size(1), []vg.Length{st.size(4), st.size(3)}
	p.Add(target)
	p.Legend.Add(fmt.Sprintf("target %.3g", c.Target), target)
	if !c.answered() {
		return nil
	}
	s, err := plotter.NewScatter(plotter.XYs{{X: c.Need, Y: c.Target}})
	if err != nil {
		return err
	}
	s.GlyphStyle = draw.GlyphStyle{Color: Palette[1%len(Palette)], Radius: st.size(5), Shape: draw.RingGlyph{}}
	if c.Extrapolated {
		end := bound[len(bound)-1]
		if c.Need < bound[0].X {
			end = bound[0]
		}
		l, err := plotter.NewLine(plotter.XYs{end, {X: c.Need, Y: c.Target}})
		if err != nil {
			return err
		}
		l.Color, l.Width, l.Dashes = Palette[0], st.size(1.2), []vg.Length{st.size(2), st.size(2)}
		p.Add(l)
		p.Legend.Add("extrapolated", l)
	}
	p.Add(s)
	p.Legend.Add("the answer", s)
	return nil
}

// logTicks125 marks a logarithmic axis at 1, 2 and 5 times the powers
// of ten, labelled when the axis spans at most three decades (gonum's
// LogTicks labels the powers alone, which leave an axis of less than a
// decade bare), else labelling the powers; whole numbers carry their
// thousands separated (20,000 users).
type logTicks125 struct{}

// Ticks implements plot.Ticker.
func (logTicks125) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0 && hi > lo) {
		return nil
	}
	all := math.Log10(hi/lo) <= 3
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		for _, m := range []float64{1, 2, 5} {
			v := m * math.Pow(10, e)
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || all {
				t.Label = groupedLabel(v)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// groupedLabel writes a tick's value as tickLabel does, a whole number
// with its thousands separated.
func groupedLabel(v float64) string {
	s := tickLabel(v, 3)
	if v < 1000 || strings.ContainsAny(s, ".e") {
		return s
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// withTarget is logTicks125 with the target's value labelled as well,
// and the labels within 15% of it left off for room.
type withTarget struct{ target float64 }

// Ticks implements plot.Ticker.
func (w withTarget) Ticks(lo, hi float64) []plot.Tick {
	ticks := logTicks125{}.Ticks(lo, hi)
	if !(w.target >= lo && w.target <= hi) {
		return ticks
	}
	for i, t := range ticks {
		if t.Label != "" && math.Abs(math.Log(t.Value/w.target)) < math.Log(1.15) {
			ticks[i].Label = ""
		}
	}
	return append(ticks, plot.Tick{Value: w.target, Label: groupedLabel(w.target)})
}
