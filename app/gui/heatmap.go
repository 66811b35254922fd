package gui

import (
	"image"
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/paulmach/orb"

	"github.com/privmap/privmap/app/mapplot"
)

// Heatmap shows a value per grid cell as a map (see package mapplot) and
// reports the cell under the mouse. Set Map and call Refresh to redraw.
type Heatmap struct {
	widget.BaseWidget

	// Map is what is drawn; nil draws an empty area.
	Map *mapplot.Map
	// OnHover is called with the cell under the mouse, or −1 when the
	// mouse leaves the cells.
	OnHover func(cell int)
	// OnTapped, when set, is called with the cell tapped, or −1.
	OnTapped func(cell int)
	// Selected cells are outlined in orange, such as the sensitive cells
	// of a mechanism being picked; set with SetSelected.
	Selected []int
	// OnView, when set, is called with the view after the user zoomed or
	// panned, so that maps of the same cells follow (SetView).
	OnView func(orb.Bound)

	// view is the part of the map shown (zero: all of it): the mouse
	// wheel and the + and − keys zoom, dragging and the arrow keys pan,
	// 0 and a double tap show the whole map.
	view orb.Bound

	hovered int
	// The last drawn image, its size and where its cells are, so that a
	// redraw at the same size is free and the mouse maps to cells.
	img      *image.RGBA
	imgMap   *mapplot.Map
	imgSize  [2]int
	imgStyle mapplot.Style
	data     mapplot.Rect
}

var (
	_ fyne.Widget         = (*Heatmap)(nil)
	_ desktop.Hoverable   = (*Heatmap)(nil)
	_ fyne.Tappable       = (*Heatmap)(nil)
	_ fyne.DoubleTappable = (*Heatmap)(nil)
	_ fyne.Scrollable     = (*Heatmap)(nil)
	_ fyne.Draggable      = (*Heatmap)(nil)
	_ fyne.Focusable      = (*Heatmap)(nil)
)

// NewHeatmap returns a heat map of m, which may be nil.
func NewHeatmap(m *mapplot.Map) *Heatmap {
	h := &Heatmap{Map: m, hovered: -1}
	h.ExtendBaseWidget(h)
	return h
}

// SetMap replaces the map and redraws. A map of the same box keeps the
// view; another shows whole.
func (h *Heatmap) SetMap(m *mapplot.Map) {
	if m == nil || h.Map == nil || m.Bound != h.Map.Bound {
		h.view = orb.Bound{}
	}
	h.Map = m
	if m != nil {
		m.View = h.view
	}
	h.hovered = -1
	h.Refresh()
}

// SetView shows the part v of the map (zero: all of it), without calling
// OnView.
func (h *Heatmap) SetView(v orb.Bound) {
	h.view = v
	if h.Map != nil {
		h.Map.View = v
	}
	h.imgMap = nil // the same map, drawn anew
	h.Refresh()
}

// View returns the part of the map shown; zero when all of it is.
func (h *Heatmap) View() orb.Bound { return h.view }

// changeView shows v and tells OnView.
func (h *Heatmap) changeView(v orb.Bound) {
	if h.Map != nil && v == h.Map.Bound {
		v = orb.Bound{}
	}
	if v == h.view {
		return
	}
	h.SetView(v)
	if h.OnView != nil {
		h.OnView(v)
	}
}

// geographic reports whether the map can zoom: a map of a box, not a
// table of categories.
func (h *Heatmap) geographic() bool {
	return h.Map != nil && h.Map.ColLabels == nil && h.Map.RowLabels == nil &&
		h.Map.Bound.Max[0] > h.Map.Bound.Min[0] && h.Map.Bound.Max[1] > h.Map.Bound.Min[1]
}

// shown returns the box on screen: the map's view, which SetMap and
// SetView keep equal to h.view.
func (h *Heatmap) shown() orb.Bound { return h.Map.Viewed() }

// pointAt returns the longitude and latitude under pos, and whether pos
// is on the map's data area.
func (h *Heatmap) pointAt(pos fyne.Position) (orb.Point, bool) {
	sz := h.Size()
	r := h.data
	if sz.Width <= 0 || sz.Height <= 0 || r.X1 <= r.X0 || r.Y1 <= r.Y0 {
		return orb.Point{}, false
	}
	u := (float64(pos.X/sz.Width) - r.X0) / (r.X1 - r.X0)
	v := (r.Y1 - float64(pos.Y/sz.Height)) / (r.Y1 - r.Y0)
	b := h.shown()
	p := orb.Point{b.Min[0] + u*(b.Max[0]-b.Min[0]), b.Min[1] + v*(b.Max[1]-b.Min[1])}
	return p, u >= 0 && u <= 1 && v >= 0 && v <= 1
}

// zoomFactor is one wheel notch or key press: a fifth closer.
const zoomFactor = 0.8

// Scrolled zooms about the point under the mouse (fyne.Scrollable).
func (h *Heatmap) Scrolled(e *fyne.ScrollEvent) {
	if !h.geographic() || e.Scrolled.DY == 0 {
		return
	}
	c, ok := h.pointAt(e.Position)
	if !ok {
		return
	}
	f := zoomFactor
	if e.Scrolled.DY < 0 {
		f = 1 / zoomFactor
	}
	h.changeView(mapplot.Zoom(h.Map.Bound, h.shown(), c, f))
}

// Dragged pans the map with the pointer (fyne.Draggable).
func (h *Heatmap) Dragged(e *fyne.DragEvent) {
	if !h.geographic() {
		return
	}
	sz := h.Size()
	r := h.data
	if h.img == nil || r.X1 <= r.X0 || r.Y1 <= r.Y0 || sz.Width <= 0 || sz.Height <= 0 {
		return // not drawn yet
	}
	b := h.shown()
	dx := -float64(e.Dragged.DX) / (float64(sz.Width) * (r.X1 - r.X0)) * (b.Max[0] - b.Min[0])
	dy := float64(e.Dragged.DY) / (float64(sz.Height) * (r.Y1 - r.Y0)) * (b.Max[1] - b.Min[1])
	h.changeView(mapplot.Pan(h.Map.Bound, b, dx, dy))
}

// DragEnd implements fyne.Draggable.
func (h *Heatmap) DragEnd() {}

// DoubleTapped shows the whole map.
func (h *Heatmap) DoubleTapped(*fyne.PointEvent) { h.changeView(orb.Bound{}) }

// FocusGained implements fyne.Focusable; the map draws no focus mark.
func (h *Heatmap) FocusGained() {}

// FocusLost implements fyne.Focusable.
func (h *Heatmap) FocusLost() {}

// TypedRune zooms with + and −, and shows the whole map with 0.
func (h *Heatmap) TypedRune(r rune) {
	if !h.geographic() {
		return
	}
	b := h.shown()
	c := orb.Point{(b.Min[0] + b.Max[0]) / 2, (b.Min[1] + b.Max[1]) / 2}
	switch r {
	case '+', '=':
		h.changeView(mapplot.Zoom(h.Map.Bound, b, c, zoomFactor))
	case '-':
		h.changeView(mapplot.Zoom(h.Map.Bound, b, c, 1/zoomFactor))
	case '0':
		h.changeView(orb.Bound{})
	}
}

// TypedKey pans a tenth of the view with the arrow keys.
func (h *Heatmap) TypedKey(e *fyne.KeyEvent) {
	if !h.geographic() {
		return
	}
	b := h.shown()
	w, ht := (b.Max[0]-b.Min[0])/10, (b.Max[1]-b.Min[1])/10
	switch e.Name {
	case fyne.KeyLeft:
		h.changeView(mapplot.Pan(h.Map.Bound, b, -w, 0))
	case fyne.KeyRight:
		h.changeView(mapplot.Pan(h.Map.Bound, b, w, 0))
	case fyne.KeyUp:
		h.changeView(mapplot.Pan(h.Map.Bound, b, 0, ht))
	case fyne.KeyDown:
		h.changeView(mapplot.Pan(h.Map.Bound, b, 0, -ht))
	}
}

// MinSize keeps the map legible.
func (h *Heatmap) MinSize() fyne.Size { return fyne.NewSize(320, 240) }

// CreateRenderer implements fyne.Widget.
func (h *Heatmap) CreateRenderer() fyne.WidgetRenderer {
	r := &heatmapRenderer{h: h}
	r.raster = canvas.NewRaster(r.draw)
	r.raster.ScaleMode = canvas.ImageScalePixels
	r.mark = &canvas.Rectangle{StrokeColor: color.White, StrokeWidth: 2}
	r.mark.Hide()
	r.objects = []fyne.CanvasObject{r.raster, r.mark}
	return r
}

// MouseIn implements desktop.Hoverable.
func (h *Heatmap) MouseIn(e *desktop.MouseEvent) { h.MouseMoved(e) }

// MouseMoved implements desktop.Hoverable.
func (h *Heatmap) MouseMoved(e *desktop.MouseEvent) {
	h.hover(h.CellAt(e.Position))
}

// MouseOut implements desktop.Hoverable.
func (h *Heatmap) MouseOut() { h.hover(-1) }

// Tapped implements fyne.Tappable; the map takes the keyboard focus,
// for its zoom and pan keys.
func (h *Heatmap) Tapped(e *fyne.PointEvent) {
	if c := fyne.CurrentApp().Driver().CanvasForObject(h); c != nil {
		c.Focus(h)
	}
	if h.OnTapped != nil {
		h.OnTapped(h.CellAt(e.Position))
	}
}

// SetSelected outlines cells (nil for none).
func (h *Heatmap) SetSelected(cells []int) {
	h.Selected = cells
	h.Refresh()
}

// Mark outlines cell (−1 for none) as if the mouse were over it, without
// calling OnHover: maps of the same cells follow the mouse together.
func (h *Heatmap) Mark(cell int) {
	if cell != h.hovered {
		h.hovered = cell
		h.Refresh()
	}
}

func (h *Heatmap) hover(cell int) {
	if cell == h.hovered {
		return
	}
	h.hovered = cell
	h.Refresh()
	if h.OnHover != nil {
		h.OnHover(cell)
	}
}

// CellAt returns the cell drawn at pos, or −1.
func (h *Heatmap) CellAt(pos fyne.Position) int {
	sz := h.Size()
	if h.Map == nil || h.img == nil || sz.Width <= 0 || sz.Height <= 0 {
		return -1
	}
	return h.data.Cell(h.Map, float64(pos.X/sz.Width), float64(pos.Y/sz.Height))
}

type heatmapRenderer struct {
	h      *Heatmap
	raster *canvas.Raster
	mark   *canvas.Rectangle
	// sel outlines the selected cells; objects is raster, mark and sel.
	sel     []*canvas.Rectangle
	objects []fyne.CanvasObject
}

// selColour outlines selected cells: orange stands out on viridis.
var selColour = color.NRGBA{0xff, 0x8c, 0x00, 0xff}

// draw renders the map at the raster's pixel size, reusing the last image
// when neither the map nor the size changed.
func (r *heatmapRenderer) draw(w, hgt int) image.Image {
	h := r.h
	if h.Map == nil || w < 8 || hgt < 8 {
		return image.NewUniform(color.Transparent)
	}
	st := windowStyle()
	if h.img != nil && h.imgMap == h.Map && h.imgSize == [2]int{w, hgt} && h.imgStyle == st {
		return h.img
	}
	pxPerPt := 1.0
	if sz := h.Size(); sz.Width > 0 {
		pxPerPt = float64(w) / float64(sz.Width)
	}
	h.Map.View, h.Map.Style = h.view, st
	h.img, h.data = mapplot.Image(h.Map, w, hgt, pxPerPt)
	h.imgMap, h.imgSize, h.imgStyle = h.Map, [2]int{w, hgt}, st
	r.layoutMark(h.Size())
	return h.img
}

func (r *heatmapRenderer) Layout(size fyne.Size) {
	r.raster.Resize(size)
	r.layoutMark(size)
}

func (r *heatmapRenderer) layoutMark(size fyne.Size) {
	r.layoutSelected(size)
	h := r.h
	if h.hovered < 0 || h.Map == nil || h.img == nil {
		r.mark.Hide()
		return
	}
	cr := h.data.CellRect(h.Map, h.hovered)
	w, ht := float32(cr.X1-cr.X0)*size.Width, float32(cr.Y1-cr.Y0)*size.Height
	if w < 1 || ht < 1 {
		// Not drawn yet at this size; a stroke needs room.
		r.mark.Hide()
		return
	}
	r.mark.Move(fyne.NewPos(float32(cr.X0)*size.Width, float32(cr.Y0)*size.Height))
	r.mark.Resize(fyne.NewSize(w, ht))
	r.mark.Show()
}

// layoutSelected places an outline on every selected cell, adding
// rectangles as needed and hiding those left over.
func (r *heatmapRenderer) layoutSelected(size fyne.Size) {
	h := r.h
	n := 0
	if h.Map != nil && h.img != nil {
		for _, cell := range h.Selected {
			if cell < 0 || cell >= h.Map.Cols*h.Map.Rows {
				continue
			}
			if n == len(r.sel) {
				rect := &canvas.Rectangle{StrokeColor: selColour, StrokeWidth: 2}
				r.sel = append(r.sel, rect)
				r.objects = append(r.objects, rect)
			}
			cr := h.data.CellRect(h.Map, cell)
			rect := r.sel[n]
			rect.Move(fyne.NewPos(float32(cr.X0)*size.Width, float32(cr.Y0)*size.Height))
			rect.Resize(fyne.NewSize(float32(cr.X1-cr.X0)*size.Width, float32(cr.Y1-cr.Y0)*size.Height))
			rect.Show()
			rect.Refresh()
			n++
		}
	}
	for _, rect := range r.sel[n:] {
		rect.Hide()
	}
}

func (r *heatmapRenderer) MinSize() fyne.Size { return r.h.MinSize() }

func (r *heatmapRenderer) Objects() []fyne.CanvasObject { return r.objects }

func (r *heatmapRenderer) Refresh() {
	r.layoutMark(r.h.Size())
	r.mark.Refresh()
	if r.h.imgMap != r.h.Map || r.h.imgStyle != windowStyle() {
		r.raster.Refresh()
	}
}

func (r *heatmapRenderer) Destroy() {}

// windowStyle is the look of maps in the window: the theme's background
// and foreground colours and its text size, so that a map's type is as
// large as the window's and its axes read in dark and light themes.
func windowStyle() mapplot.Style {
	return mapplot.Style{
		Paper:    theme.Color(theme.ColorNameBackground),
		Ink:      theme.Color(theme.ColorNameForeground),
		TextSize: float64(theme.TextSize()),
	}
}
