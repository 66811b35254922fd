package mapplot

import (
	"fmt"
	"image"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// A NoiseCurve is one mechanism's noise on a count: P(noise = K[i]) =
// P[i], for whole K in increasing order.
type NoiseCurve struct {
	Label string
	K     []int
	P     []float64
}

// NoisePlot plots the curves' probabilities against the noise on a
// logarithmic axis, on which a geometric or Laplace mechanism's PMF is
// a tent and a piecewise mixture's bends at its break-point (PM Fig. 2–3);
// the bound ±c is marked, named mark, when c > 0. Probabilities of 0
// (beyond float64) are left out.
func NoisePlot(st Style, c float64, mark string, curves ...NoiseCurve) (*plot.Plot, error) {
	st = st.orDefault()
	p := st.Plot()
	p.X.Label.Text = "noise added to a count"
	p.Y.Label.Text = "probability"
	p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, decadeTicks{}
	st.legend(p)
	lo, hi := math.Inf(1), 0.0
	for i, cv := range curves {
		if len(cv.K) != len(cv.P) {
			return nil, fmt.Errorf("noise curve %q: %d values of %d points", cv.Label, len(cv.P), len(cv.K))
		}
		var xy plotter.XYs
		for j, k := range cv.K {
			if cv.P[j] > 0 {
				xy = append(xy, plotter.XY{X: float64(k), Y: cv.P[j]})
				lo, hi = min(lo, cv.P[j]), max(hi, cv.P[j])
			}
		}
		if len(xy) == 0 {
			continue
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return nil, err
		}
		l.Color = Palette[i%len(Palette)]
		l.Width = st.size(1.5)
		if i > 0 {
			l.Dashes = []vg.Length{st.size(5), st.size(3)}
		}
		p.Add(l)
		p.Legend.Add(cv.Label, l)
	}
	if hi == 0 {
		return nil, fmt.Errorf("noise curves: no probability above 0")
	}
	// Four decades below the peak, where the mechanisms differ; room
	// above it for the legend.
	lo = max(lo, hi*1e-4)
	p.Y.Min, p.Y.Max = lo, hi*math.Pow(hi/lo, 0.35)
	if c > 0 {
		for _, x := range []float64{-c, c} {
			m, err := plotter.NewLine(plotter.XYs{{X: x, Y: p.Y.Min}, {X: x, Y: p.Y.Max}})
			if err != nil {
				return nil, err
			}
			m.Color, m.Width, m.Dashes = st.Faint(0.5), st.size(1), []vg.Length{st.size(2), st.size(2)}
			p.Add(m)
		}
		p.Legend.Add(fmt.Sprintf("%s ±%g", mark, c), &plotter.Line{LineStyle: draw.LineStyle{Color: st.Faint(0.5), Width: st.size(1), Dashes: []vg.Length{st.size(2), st.size(2)}}})
	}
	return p, nil
}

// A StyledPlot is a plot drawn on its style's paper.
type StyledPlot struct {
	*plot.Plot
	Style Style
}

// Image draws the plot on w×h pixels at pxPerPt pixels a point.
func (p StyledPlot) Image(w, h int, pxPerPt float64) image.Image {
	st := p.Style.orDefault()
	c := vgimg.NewWith(vgimg.UseWH(vg.Length(float64(w)/pxPerPt), vg.Length(float64(h)/pxPerPt)),
		vgimg.UseDPI(int(math.Round(72*pxPerPt))), vgimg.UseBackgroundColor(st.Paper))
	p.Draw(draw.Crop(draw.New(c), st.size(4), -st.size(8), st.size(4), -st.size(4)))
	return c.Image()
}

// decadeTicks marks the powers of ten on a logarithmic axis, labelled
// 1, 0.1, 0.01, 0.001 and then 1e-4, 1e-5, …, at most six labels.
type decadeTicks struct{}

// Ticks implements plot.Ticker.
func (decadeTicks) Ticks(lo, hi float64) []plot.Tick {
	a, b := int(math.Ceil(math.Log10(lo)-1e-9)), int(math.Floor(math.Log10(hi)+1e-9))
	every := max(1, (b-a+6)/6)
	var ticks []plot.Tick
	for e := a; e <= b; e++ {
		t := plot.Tick{Value: math.Pow(10, float64(e))}
		if (b-e)%every == 0 {
			switch {
			case e >= 0:
				t.Label = strconv.FormatFloat(t.Value, 'f', 0, 64)
			case e >= -3:
				t.Label = strconv.FormatFloat(t.Value, 'f', -e, 64)
			default:
				t.Label = "1e" + strconv.Itoa(e)
			}
		}
		ticks = append(ticks, t)
	}
	return ticks
}
