package gui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// columnsLayout lays its objects out row by row in cols columns, each
// column as wide as its widest cell and each row as high as its highest,
// so that no cell is cut short: a table of figures whose columns fit
// their contents (Fyne's grid layout gives every column the same width
// and truncates).
type columnsLayout struct{ cols int }

// sizes returns the columns' widths and the rows' heights.
func (l columnsLayout) sizes(objects []fyne.CanvasObject) ([]float32, []float32) {
	widths := make([]float32, l.cols)
	heights := make([]float32, (len(objects)+l.cols-1)/l.cols)
	for i, o := range objects {
		if !o.Visible() {
			continue
		}
		m := o.MinSize()
		widths[i%l.cols] = max(widths[i%l.cols], m.Width)
		heights[i/l.cols] = max(heights[i/l.cols], m.Height)
	}
	return widths, heights
}

// Layout implements fyne.Layout.
func (l columnsLayout) Layout(objects []fyne.CanvasObject, _ fyne.Size) {
	widths, heights := l.sizes(objects)
	pad := theme.Padding()
	y := float32(0)
	for r, h := range heights {
		x := float32(0)
		for c, w := range widths {
			i := r*l.cols + c
			if i >= len(objects) {
				break
			}
			objects[i].Move(fyne.NewPos(x, y))
			objects[i].Resize(fyne.NewSize(w, h))
			x += w + pad
		}
		y += h
	}
}

// MinSize implements fyne.Layout.
func (l columnsLayout) MinSize(objects []fyne.CanvasObject) fyne.Size {
	if len(objects) == 0 {
		return fyne.Size{}
	}
	widths, heights := l.sizes(objects)
	var s fyne.Size
	for _, w := range widths {
		s.Width += w
	}
	s.Width += theme.Padding() * float32(max(len(widths)-1, 0))
	for _, h := range heights {
		s.Height += h
	}
	return s
}
