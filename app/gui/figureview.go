package gui

import (
	"image"
	"image/draw"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/widget"

	"github.com/privmap/privmap/app/mapplot"
)

// An imager draws itself on w×h pixels at pxPerPt pixels a point: an
// experiment's chart, a plot.
type imager interface {
	Image(w, h int, pxPerPt float64) image.Image
}

// A figureView shows a figure drawn at the widget's size in the window's
// colours and type, made again when the theme changes.
type figureView struct {
	widget.BaseWidget
	min   fyne.Size
	make  func(mapplot.Style) (imager, error)
	fig   imager
	style mapplot.Style // the windowStyle fig was made in
}

func newFigureView(min fyne.Size, make func(mapplot.Style) (imager, error)) *figureView {
	f := &figureView{min: min, make: make}
	f.ExtendBaseWidget(f)
	return f
}

// CreateRenderer implements fyne.Widget.
func (f *figureView) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(canvas.NewRaster(f.draw))
}

// MinSize implements fyne.Widget.
func (f *figureView) MinSize() fyne.Size { return f.min }

// set shows the figure make makes, nil for none.
func (f *figureView) set(make func(mapplot.Style) (imager, error)) {
	f.make, f.fig = make, nil
	f.Refresh()
}

// draw draws the figure at w×h pixels; the window's paper if there is
// none or it cannot be made.
func (f *figureView) draw(w, h int) image.Image {
	st := windowStyle()
	if f.make != nil && (f.fig == nil || f.style != st) {
		f.fig, f.style = nil, st
		if fig, err := f.make(st); err == nil {
			f.fig = fig
		}
	}
	if f.make == nil || f.fig == nil {
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		draw.Draw(img, img.Bounds(), image.NewUniform(st.Paper), image.Point{}, draw.Src)
		return img
	}
	pxPerPt := 1.0
	if sz := f.Size(); sz.Width > 0 {
		pxPerPt = float64(w) / float64(sz.Width)
	}
	return f.fig.Image(w, h, pxPerPt)
}
