package mapplot

import (
	"errors"
	"image"
	"math"
	"strings"

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
	// Style is the look of the heading and of every map; unset fields are
	// Print's.
	Style Style
}

// Image draws f into at most w×h pixels at the given pixels per point:
// the picture is trimmed to the heading and the maps (Fit), so that it has
// no empty bands.
//
// The picture is drawn whatever its size; ErrTooSmall says that some
// map had no room in it.
func (f *Figure) Image(w, h int, pxPerPt float64) (*image.RGBA, error) {
	wPt, hPt := f.Fit(vg.Length(float64(w)/pxPerPt), vg.Length(float64(h)/pxPerPt))
	// Whole pixels: the canvas is sized in points.
	wPt = vg.Length(math.Floor(float64(wPt)*pxPerPt) / pxPerPt)
	hPt = vg.Length(math.Floor(float64(hPt)*pxPerPt) / pxPerPt)
	c := vgimg.NewWith(vgimg.UseWH(wPt, hPt), vgimg.UseDPI(int(math.Round(72*pxPerPt))), vgimg.UseBackgroundColor(f.Style.orDefault().Paper))
	err := f.Draw(draw.New(c))
	img, _ := c.Image().(*image.RGBA)
	return img, err
}

// ErrTooSmall is Figure.Draw's error when a picture leaves a map no room
// beside its heading, axes and colour bar.
var ErrTooSmall = errors.New("mapplot: the picture is too small for the maps beside their heading, axes and colour bar")

// figurePad is the margin round a figure, at 10-point type.
const figurePad = 8

// Fit returns the size f takes within w×h points: the full width with
// the maps' natural height when that fits, else the full height with the
// maps' natural widths (never narrower than the heading).
func (f *Figure) Fit(w, h vg.Length) (vg.Length, vg.Length) {
	st := f.Style.orDefault()
	pad := st.size(figurePad)
	head := f.headingHeight(st)
	if len(f.Maps) == 0 {
		return w, min(h, head+2*pad)
	}
	body := h - head - 2*pad
	var tall vg.Length
	tile := (w - 2*pad) / vg.Length(len(f.Maps))
	for _, m := range f.Maps {
		tall = max(tall, f.styled(m).natural(tile))
	}
	if tall <= body {
		return w, head + tall + 2*pad
	}
	var wide vg.Length
	for _, m := range f.Maps {
		wide += f.styled(m).naturalWidth(body)
	}
	return min(w, max(wide, f.headingWidth(st))+2*pad), h
}

// styled returns a copy of m in the figure's style.
func (f *Figure) styled(m *Map) *Map {
	c := *m
	c.Style = f.Style.orDefault()
	return &c
}

// heading returns the title's and the notes' text styles.
func (f *Figure) heading(st Style) (title, notes draw.TextStyle) {
	return st.text(15, draw.XLeft, draw.YTop), st.text(10, draw.XLeft, draw.YTop)
}

// headingHeight returns the height of the title and notes.
func (f *Figure) headingHeight(st Style) vg.Length {
	title, notes := f.heading(st)
	var h vg.Length
	if f.Title != "" {
		h += title.Height(f.Title) + st.size(2)
	}
	for _, n := range f.Notes {
		h += notes.Height(n)
	}
	return h
}

// headingWidth returns the width of the widest line of the heading.
func (f *Figure) headingWidth(st Style) vg.Length {
	title, notes := f.heading(st)
	w := title.Width(f.Title)
	for _, n := range f.Notes {
		w = max(w, notes.Width(n))
	}
	return w
}

// Draw draws f on c: the heading at the top, the maps below it side by
// side, each as wide as its natural width at the height they share, and
// centred together. It returns ErrTooSmall, having drawn what fits, if
// a map had no room.
func (f *Figure) Draw(c draw.Canvas) error {
	st := f.Style.orDefault()
	pad := st.size(figurePad)
	top := c.Max.Y - pad
	left := c.Min.X + pad
	title, notes := f.heading(st)
	if f.Title != "" {
		c.FillText(title, vg.Point{X: left, Y: top}, f.Title)
		top -= title.Height(f.Title) + st.size(2)
	}
	for _, n := range f.Notes {
		c.FillText(notes, vg.Point{X: left, Y: top}, n)
		top -= notes.Height(n)
	}
	if len(f.Maps) == 0 {
		return nil
	}
	body := draw.Crop(c, pad, -pad, pad, top-c.Max.Y)
	bw, bh := body.Max.X-body.Min.X, body.Max.Y-body.Min.Y
	widths := make([]vg.Length, len(f.Maps))
	var total vg.Length
	for i, m := range f.Maps {
		widths[i] = f.styled(m).naturalWidth(bh)
		total += widths[i]
	}
	if total > bw || total <= 0 { // wide maps: equal columns
		for i := range widths {
			widths[i] = bw / vg.Length(len(f.Maps))
		}
		total = bw
	}
	x0 := (bw - total) / 2
	var err error
	for i, m := range f.Maps {
		tile := draw.Crop(body, x0, x0+widths[i]-bw, 0, 0)
		if empty(Draw(tile, f.styled(m))) {
			err = ErrTooSmall
		}
		x0 += widths[i]
	}
	return err
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
