package gui

import (
	"image"
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"

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

	hovered int
	// The last drawn image, its size and where its cells are, so that a
	// redraw at the same size is free and the mouse maps to cells.
	img     *image.RGBA
	imgMap  *mapplot.Map
	imgSize [2]int
	data    mapplot.Rect
}

var (
	_ fyne.Widget       = (*Heatmap)(nil)
	_ desktop.Hoverable = (*Heatmap)(nil)
	_ fyne.Tappable     = (*Heatmap)(nil)
)

// NewHeatmap returns a heat map of m, which may be nil.
func NewHeatmap(m *mapplot.Map) *Heatmap {
	h := &Heatmap{Map: m, hovered: -1}
	h.ExtendBaseWidget(h)
	return h
}

// SetMap replaces the map and redraws.
func (h *Heatmap) SetMap(m *mapplot.Map) {
	h.Map = m
	h.hovered = -1
	h.Refresh()
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

// Tapped implements fyne.Tappable.
func (h *Heatmap) Tapped(e *fyne.PointEvent) {
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
	if h.img != nil && h.imgMap == h.Map && h.imgSize == [2]int{w, hgt} {
		return h.img
	}
	pxPerPt := 1.0
	if sz := h.Size(); sz.Width > 0 {
		pxPerPt = float64(w) / float64(sz.Width)
	}
	h.img, h.data = mapplot.Image(h.Map, w, hgt, pxPerPt)
	h.imgMap, h.imgSize = h.Map, [2]int{w, hgt}
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
	if r.h.imgMap != r.h.Map {
		r.raster.Refresh()
	}
}

func (r *heatmapRenderer) Destroy() {}
