package gui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
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

// sideBySide lays out heat maps in a row at one height, each as wide as
// its map needs at that height, so that maps with and without a colour
// bar or latitude labels show their cells at the same size; the row is
// as tall as fits the width and centred. Heat maps without a map share
// the width equally.
type sideBySide struct{}

// widths returns each map's width at height h, and their sum.
func (sideBySide) widths(objects []fyne.CanvasObject, h float32) ([]float32, float32) {
	ws := make([]float32, len(objects))
	var sum float32
	st := windowStyle()
	for i, o := range objects {
		hm, ok := o.(*Heatmap)
		if !ok || hm.Map == nil {
			return nil, 0
		}
		m := *hm.Map
		m.Style, m.View = st, hm.view
		ws[i] = float32(m.NaturalWidth(float64(h)))
		sum += ws[i]
	}
	return ws, sum
}

// fit returns the height at which the maps' widths fill size's width (at
// most size's height), their widths, and the widths' sum; nil widths when
// some heat map has no map.
func (l sideBySide) fit(objects []fyne.CanvasObject, size fyne.Size) (float32, []float32, float32) {
	h := size.Height
	ws, sum := l.widths(objects, h)
	if ws == nil || sum <= 0 {
		return h, nil, 0
	}
	// The widths grow about linearly with the height: a few secant steps
	// find the height at which the row fills the width.
	for range 3 {
		if sum <= size.Width+0.5 && (h >= size.Height || sum >= size.Width-0.5) {
			break
		}
		h2 := h * 0.5
		_, sum2 := l.widths(objects, h2)
		if sum2 >= sum {
			break
		}
		h = min(size.Height, h2+(h-h2)*(size.Width-sum2)/(sum-sum2))
		ws, sum = l.widths(objects, h)
	}
	if sum > size.Width { // rounding: shrink the widths in proportion
		for i := range ws {
			ws[i] *= size.Width / sum
		}
		sum = size.Width
	}
	return h, ws, sum
}

// Layout implements fyne.Layout.
func (l sideBySide) Layout(objects []fyne.CanvasObject, size fyne.Size) {
	h, ws, sum := l.fit(objects, size)
	if ws == nil {
		w := size.Width / float32(max(len(objects), 1))
		for i, o := range objects {
			o.Move(fyne.NewPos(float32(i)*w, 0))
			o.Resize(fyne.NewSize(w, size.Height))
		}
		return
	}
	x, y := (size.Width-sum)/2, (size.Height-h)/2
	for i, o := range objects {
		o.Move(fyne.NewPos(x, y))
		o.Resize(fyne.NewSize(ws[i], h))
		x += ws[i]
	}
}

// heightFor returns the height at which the maps fill width w, or 0 when
// some heat map has no map.
func (l sideBySide) heightFor(objects []fyne.CanvasObject, w float32) float32 {
	h, ws, _ := l.fit(objects, fyne.NewSize(w, 4*w))
	if ws == nil {
		return 0
	}
	return h
}

// MinSize implements fyne.Layout: side by side, each map may be drawn at
// 60% of its own minimum, so that three fit beside a column of controls
// (the Release screen's) in the default window.
func (sideBySide) MinSize(objects []fyne.CanvasObject) fyne.Size {
	var s fyne.Size
	for _, o := range objects {
		m := o.MinSize()
		s.Width += 0.6 * m.Width
		s.Height = max(s.Height, 0.6*m.Height)
	}
	return s
}

// roomySelect lays out one Select as wide as its longest option needs:
// Fyne sizes a Select by its placeholder, so a choice longer than that
// was cut short ("log (4 deca…").
type roomySelect struct{}

// roomy returns s in a roomySelect container.
func roomy(s *widget.Select) *fyne.Container { return container.New(roomySelect{}, s) }

// Layout implements fyne.Layout.
func (roomySelect) Layout(objects []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objects {
		o.Move(fyne.Position{})
		o.Resize(size)
	}
}

// MinSize implements fyne.Layout.
func (roomySelect) MinSize(objects []fyne.CanvasObject) fyne.Size {
	var min fyne.Size
	for _, o := range objects {
		m := o.MinSize()
		if s, ok := o.(*widget.Select); ok {
			var w float32
			for _, opt := range s.Options {
				w = max(w, fyne.MeasureText(opt, theme.TextSize(), fyne.TextStyle{}).Width)
			}
			// The Select's own room round its text: padding and the icon.
			m.Width = max(m.Width, w+4*theme.InnerPadding()+theme.IconInlineSize())
		}
		min = min.Max(m)
	}
	return min
}
