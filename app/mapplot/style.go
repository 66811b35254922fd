package mapplot

import (
	"image/color"
	"math"

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

// Palette are the colours of a figure's series: Okabe and Ito's,
// distinct for colour-blind readers and in print, with grey for their
// black (which a dark window would hide) and a brown for a ninth.
var Palette = []color.Color{
	color.RGBA{0x00, 0x72, 0xb2, 0xff}, color.RGBA{0xd5, 0x5e, 0x00, 0xff}, color.RGBA{0x00, 0x9e, 0x73, 0xff},
	color.RGBA{0xcc, 0x79, 0xa7, 0xff}, color.RGBA{0xe6, 0x9f, 0x00, 0xff}, color.RGBA{0x56, 0xb4, 0xe9, 0xff},
	color.RGBA{0x99, 0x99, 0x99, 0xff}, color.RGBA{0xf0, 0xe4, 0x42, 0xff}, color.RGBA{0x8c, 0x56, 0x4b, 0xff},
}

// Faint returns the ink mixed into the paper, share of ink (0 to 1): a
// line that should not compete with the data, such as a grid.
func (s Style) Faint(share float64) color.Color {
	s = s.orDefault()
	ink, paper := color.NRGBAModel.Convert(s.Ink).(color.NRGBA), color.NRGBAModel.Convert(s.Paper).(color.NRGBA)
	mix := func(a, b uint8) uint8 { return uint8(math.Round(share*float64(a) + (1-share)*float64(b))) }
	return color.NRGBA{R: mix(ink.R, paper.R), G: mix(ink.G, paper.G), B: mix(ink.B, paper.B), A: 0xff}
}

// legend sets a curve figure's legend: the style's text at 10 points,
// top right, its rows apart (a label's descent met the next row's line).
func (s Style) legend(p *plot.Plot) {
	p.Legend.TextStyle.Font = font.From(plotFont, font.Length(s.size(10)))
	p.Legend.TextStyle.Color = s.Ink
	p.Legend.Top = true
	p.Legend.XOffs = -s.size(6)
	p.Legend.Padding = s.size(3)
}
