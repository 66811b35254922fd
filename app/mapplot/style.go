package mapplot

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// A Style is how a figure's furniture looks: the paper it is drawn on,
// the ink of its text, axes and ticks, and the size of its type. The
// window draws its maps in its theme's colours and text size; exported
// pictures are black on white (Print).
type Style struct {
	Paper, Ink color.Color
	// TextSize is the size in points of tick labels and notes; axis
	// labels and map titles are a little larger. 0 is 10.
	TextSize float64
}

// Print is the style of exported pictures: black on white, 10-point
// type.
var Print = Style{Paper: color.White, Ink: color.Black, TextSize: 10}

// orDefault returns s with its unset fields taken from Print.
func (s Style) orDefault() Style {
	if s.Paper == nil {
		s.Paper = Print.Paper
	}
	if s.Ink == nil {
		s.Ink = Print.Ink
	}
	if !(s.TextSize > 0) {
		s.TextSize = Print.TextSize
	}
	return s
}

// plotFont is the type of every plot: sans-serif, legible beside Fyne's.
var plotFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

// size returns a length in points scaled with the style's type: 10 points
// at 10-point type.
func (s Style) size(pt float64) vg.Length { return vg.Length(pt * s.TextSize / 10) }

// text returns the style's type at size pt (at 10-point type), aligned
// by xa and ya.
func (s Style) text(pt float64, xa draw.XAlignment, ya draw.YAlignment) draw.TextStyle {
	return text.Style{
		Color:   s.Ink,
		Font:    font.From(plotFont, font.Length(s.size(pt))),
		XAlign:  xa,
		YAlign:  ya,
		Handler: plot.DefaultTextHandler,
	}
}

// Plot returns a plot in the style's type and ink, its unset fields
// taken from Print: the maps' plots and the experiments' figures.
func (s Style) Plot() *plot.Plot {
	s = s.orDefault()
	p := plot.New()
	// The canvases privmap draws on start in the paper colour (Image,
	// Figure.Image); gonum/plot's own background fill rasterises the whole
	// area again, a fifth of a redraw.
	p.BackgroundColor = nil
	sans := func(pt float64) font.Font { return font.From(plotFont, font.Length(s.size(pt))) }
	p.Title.TextStyle.Font, p.Title.TextStyle.Color = sans(12), s.Ink
	p.Title.Padding = s.size(3)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font, a.Label.TextStyle.Color = sans(11), s.Ink
		a.Tick.Label.Font, a.Tick.Label.Color = sans(10), s.Ink
		a.LineStyle.Color, a.Tick.LineStyle.Color = s.Ink, s.Ink
		a.Tick.Length = s.size(6)
		a.Padding = s.size(3)
	}
	return p
}
