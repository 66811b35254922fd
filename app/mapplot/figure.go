package mapplot

import (
	"image"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// A Figure is one or more maps side by side under a heading: a title and
// lines of notes, such as the cell size, the mechanisms the users chose
// and the estimator, so that an exported picture says what it shows.
type Figure struct {
	Title string
	Notes []string
	Maps  []*Map
}

// Image draws f into a w×h pixel image at the given pixels per point.
func (f *Figure) Image(w, h int, pxPerPt float64) *image.RGBA {
	wPt := vg.Length(float64(w) / pxPerPt)
	hPt := vg.Length(float64(h) / pxPerPt)
	c := vgimg.NewWith(vgimg.UseWH(wPt, hPt), vgimg.UseDPI(int(math.Round(72*pxPerPt))), vgimg.UseBackgroundColor(color.White))
	f.Draw(draw.New(c))
	img, _ := c.Image().(*image.RGBA)
	return img
}

// Draw draws f on c: the heading at the top, the maps in equal columns
// below it.
func (f *Figure) Draw(c draw.Canvas) {
	const pad = 8 * vg.Length(1)
	top := c.Max.Y - pad
	left := c.Min.X + pad
	if f.Title != "" {
		sty := headingStyle(15)
		c.FillText(sty, vg.Point{X: left, Y: top}, f.Title)
		top -= sty.Height(f.Title) + 2
	}
	sty := headingStyle(10)
	for _, n := range f.Notes {
		c.FillText(sty, vg.Point{X: left, Y: top}, n)
		top -= sty.Height(n)
	}
	if len(f.Maps) == 0 {
		return
	}
	body := draw.Crop(c, 0, 0, 0, top-c.Max.Y-pad)
	w := (body.Max.X - body.Min.X) / vg.Length(len(f.Maps))
	for i, m := range f.Maps {
		x0 := vg.Length(i) * w
		tile := draw.Crop(body, x0, x0+w-(body.Max.X-body.Min.X), 0, 0)
		Draw(tile, m)
	}
}

// headingStyle is left-aligned sans-serif type hanging from its point.
func headingStyle(size float64) draw.TextStyle {
	return text.Style{
		Color:   color.Black,
		Font:    font.Font{Typeface: "Liberation", Variant: "Sans", Size: font.Length(size)},
		XAlign:  draw.XLeft,
		YAlign:  draw.YTop,
		Handler: plot.DefaultTextHandler,
	}
}

// TypeScale returns the pixels per point at which f is drawn w×h pixels
// large: type grows with the picture, so that a large export stays
// legible rather than a small picture on a large canvas.
func (f *Figure) TypeScale(w, h int) float64 {
	base := 1500.0
	if len(f.Maps) == 1 {
		base = 700
	}
	return max(1, min(float64(w)/base, float64(h)/600))
}

// Comparison returns the maps that compare an estimate with the truth:
// truth and estimate on one colour scale (0 to the larger maximum), and
// their difference, estimate − truth, on a diverging scale; the third map
// copies the estimate's grid, titled "Estimate − truth".
func Comparison(truth, estimate *Map) [3]*Map {
	hi := math.Max(maxValue(truth.Values), maxValue(estimate.Values))
	truth.Lo, truth.Hi = 0, hi
	estimate.Lo, estimate.Hi = 0, hi
	diff := *estimate
	diff.Values = make([]float64, len(estimate.Values))
	for i := range diff.Values {
		diff.Values[i] = estimate.Values[i] - truth.Values[i]
	}
	diff.Title, diff.Label, diff.Diverging = "Estimate − truth", "difference", true
	diff.Lo, diff.Hi = 0, 0
	return [3]*Map{truth, estimate, &diff}
}

// maxValue returns the largest value that is not NaN, or 0.
func maxValue(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		if x > m {
			m = x
		}
	}
	return m
}

// WrapJoin joins items with ", " after prefix, in lines of at most width
// characters.
func WrapJoin(prefix string, items []string, width int) []string {
	var lines []string
	line := prefix
	for i, it := range items {
		sep := ""
		if i < len(items)-1 {
			sep = ","
		}
		if len(line)+len(it)+1 > width && line != prefix {
			lines = append(lines, strings.TrimSpace(line))
			line = "    "
		}
		line += it + sep + " "
	}
	return append(lines, strings.TrimSpace(line))
}
