package experiment

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// A Point is one estimator's metric at one number of users over the
// runs: the mean and its 95% confidence interval, mean ± t·sd/√runs with
// Student's t at runs − 1 degrees of freedom (NaN with one run).
type Point struct {
	Users    int
	Mean     float64
	Lo, Hi   float64
	Runs     int
	Variant  string
	Panel    string
	Setting  string
	MetricOf string
}

// Points summarises rows by panel, estimator and number of users, in the
// rows' order of panels and estimators and by users.
func Points(rows []Row) []Point {
	type key struct {
		panel, method string
		users         int
	}
	vals := map[key][]float64{}
	var keys []key
	meta := map[key]Row{}
	for _, r := range rows {
		k := key{r.Panel, r.Method, r.Users}
		if _, ok := vals[k]; !ok {
			keys = append(keys, k)
			meta[k] = r
		}
		vals[k] = append(vals[k], r.Value)
	}
	out := make([]Point, 0, len(keys))
	for _, k := range keys {
		v := vals[k]
		mean, sd := stat.MeanStdDev(v, nil)
		half := math.NaN()
		if len(v) > 1 {
			half = distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(len(v) - 1)}.Quantile(0.975) * sd / math.Sqrt(float64(len(v)))
		}
		out = append(out, Point{Users: k.users, Mean: mean, Lo: mean - half, Hi: mean + half, Runs: len(v),
			Variant: k.method, Panel: k.panel, Setting: meta[k].Setting, MetricOf: meta[k].Metric})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Panel != out[j].Panel {
			return out[i].Panel < out[j].Panel
		}
		return out[i].Users < out[j].Users
	})
	return out
}

// palette are the estimators' colours in a figure: Okabe and Ito's,
// distinct for colour-blind readers and in print.
var palette = []color.Color{
	color.RGBA{0x00, 0x72, 0xb2, 0xff}, color.RGBA{0xd5, 0x5e, 0x00, 0xff}, color.RGBA{0x00, 0x9e, 0x73, 0xff},
	color.RGBA{0xcc, 0x79, 0xa7, 0xff}, color.RGBA{0xe6, 0x9f, 0x00, 0xff}, color.RGBA{0x56, 0xb4, 0xe9, 0xff},
}

// Figure returns the plot of one panel: each estimator's mean EMD against
// the number of users on a log axis, with its 95% intervals.
func Figure(p Panel, points []Point) (*plot.Plot, error) {
	pl := plot.New()
	sans := func(pt float64) font.Font {
		return font.Font{Typeface: "Liberation", Variant: "Sans", Size: font.Length(pt)}
	}
	pl.Title.TextStyle.Font = sans(11)
	pl.Legend.TextStyle.Font = sans(9)
	for _, a := range []*plot.Axis{&pl.X, &pl.Y} {
		a.Label.TextStyle.Font = sans(10)
		a.Tick.Label.Font = sans(9)
	}
	pl.Title.Text = fmt.Sprintf("(%s) %s", p.Name, p.Setting)
	pl.X.Label.Text = "users"
	pl.Y.Label.Text = "EMD (" + p.Unit + ")"
	pl.X.Scale = plot.LogScale{}
	pl.X.Tick.Marker = plot.LogTicks{Prec: -1}
	pl.Y.Min = 0
	pl.Legend.Top = true
	pl.Add(plotter.NewGrid())
	top, lo, hi := 0.0, math.Inf(1), 0.0
	for i, v := range p.Variants {
		var xys plotter.XYs
		var errs plotter.YErrors
		for _, pt := range points {
			if pt.Panel != p.Name || pt.Variant != v.Label {
				continue
			}
			xys = append(xys, plotter.XY{X: float64(pt.Users), Y: pt.Mean})
			top = max(top, pt.Mean, pt.Hi)
			lo, hi = min(lo, float64(pt.Users)), max(hi, float64(pt.Users))
			low, high := pt.Mean-pt.Lo, pt.Hi-pt.Mean
			if math.IsNaN(low) {
				low, high = 0, 0
			}
			errs = append(errs, struct{ Low, High float64 }{low, high})
		}
		if len(xys) == 0 {
			continue
		}
		line, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, err
		}
		c := palette[i%len(palette)]
		line.Color, pts.Color = c, c
		line.Width = vg.Points(1.2)
		pts.Shape = shapes[i%len(shapes)]
		bars, err := plotter.NewYErrorBars(struct {
			plotter.XYs
			plotter.YErrors
		}{xys, errs})
		if err != nil {
			return nil, err
		}
		bars.Color = c
		pl.Add(line, pts, bars)
		pl.Legend.Add(v.Label, line, pts)
	}
	// Room above the curves for the legend, and beside the first and last
	// numbers of users for their labels.
	pl.Y.Max = top * (1 + 0.12*float64(len(p.Variants)))
	if hi > 0 {
		pl.X.Min, pl.X.Max = lo/1.4, hi*1.4
	}
	return pl, nil
}

// shapes tell the estimators apart without colour.
var shapes = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.PlusGlyph{}, draw.CrossGlyph{}, draw.RingGlyph{}}

// WriteFigure writes pl as PNG (at 200 dpi) or SVG (format "png" or
// "svg"), 5×3.5 inches: readable at a paper's column width.
func WriteFigure(w io.Writer, pl *plot.Plot, format string) error {
	const wd, ht = 5 * vg.Inch, 3.5 * vg.Inch
	var c vg.CanvasWriterTo
	switch format {
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(wd, ht), vgimg.UseDPI(200))}
	case "svg":
		c = vgsvg.New(wd, ht)
	default:
		return fmt.Errorf("figure format %q: want png or svg", format)
	}
	pl.Draw(draw.New(c))
	_, err := c.WriteTo(w)
	return err
}

// Summary writes summary.md: for each panel and number of users every
// estimator's mean EMD with its 95% interval, and which estimator won,
// saying so when the runner-up's interval overlaps the winner's.
func Summary(w io.Writer, e *Experiment, panels []Panel, points []Point, runs int, seed uint64) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n%s\n\n%d runs at each number of users, seed %d; mean EMD with 95%% intervals (Student's t).\n",
		e.Name, e.Title, runs, seed)
	for _, p := range panels {
		fmt.Fprintf(&b, "\n## (%s) %s · %s\n\n| users |", p.Name, p.Title, p.Setting)
		for _, v := range p.Variants {
			fmt.Fprintf(&b, " %s |", v.Label)
		}
		b.WriteString(" best |\n|---:|")
		for range p.Variants {
			b.WriteString("---:|")
		}
		b.WriteString("---|\n")
		byUsers := map[int]map[string]Point{}
		var users []int
		for _, pt := range points {
			if pt.Panel != p.Name {
				continue
			}
			if byUsers[pt.Users] == nil {
				byUsers[pt.Users] = map[string]Point{}
				users = append(users, pt.Users)
			}
			byUsers[pt.Users][pt.Variant] = pt
		}
		for _, n := range users {
			fmt.Fprintf(&b, "| %d |", n)
			var ranked []Point
			for _, v := range p.Variants {
				pt, ok := byUsers[n][v.Label]
				if !ok {
					b.WriteString(" — |")
					continue
				}
				fmt.Fprintf(&b, " %s |", interval(pt, p.Unit))
				ranked = append(ranked, pt)
			}
			sort.SliceStable(ranked, func(i, j int) bool { return ranked[i].Mean < ranked[j].Mean })
			best := "—"
			if len(ranked) > 0 {
				best = ranked[0].Variant
				if len(ranked) > 1 && ranked[1].Lo <= ranked[0].Hi {
					best += " (interval overlaps " + ranked[1].Variant + ")"
				}
			}
			fmt.Fprintf(&b, " %s |\n", best)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// interval writes a point as mean [lo, hi] with four significant digits.
func interval(pt Point, unit string) string {
	if math.IsNaN(pt.Lo) {
		return fmt.Sprintf("%.4g %s", pt.Mean, unit)
	}
	return fmt.Sprintf("%.4g [%.4g, %.4g]", pt.Mean, pt.Lo, pt.Hi)
}
