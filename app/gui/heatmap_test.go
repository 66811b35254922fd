package gui

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"github.com/paulmach/orb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/privmap/privmap/app/mapplot"
)

// TestHeatmapGolden draws a heat map with a hovered cell (white outline)
// and two selected cells (orange outlines) and compares the picture with
// testdata/heatmap.png; a differing picture is written to
// testdata/failed/heatmap.png for review.
func TestHeatmapGolden(t *testing.T) {
	test.NewTempApp(t)
	m := &mapplot.Map{Cols: 6, Rows: 4, Aspect: 1.5, Label: "users", Title: "golden",
		Bound: orb.Bound{Min: orb.Point{-122.5, 37.72}, Max: orb.Point{-122.38, 37.79}}}
	m.Values = make([]float64, 24)
	for i := range m.Values {
		m.Values[i] = float64((i * 7) % 24)
	}
	h := NewHeatmap(m)
	w := test.NewWindow(h)
	defer w.Close()
	w.Resize(fyne.NewSize(480, 360))
	w.Canvas().Capture() // draws the raster, placing the cells
	h.SetSelected([]int{0, 23})
	cr := h.data.CellRect(m, 9)
	pos := fyne.NewPos(float32((cr.X0+cr.X1)/2)*h.Size().Width, float32((cr.Y0+cr.Y1)/2)*h.Size().Height)
	h.MouseMoved(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: pos}})
	assert.Equal(t, 9, h.hovered)
	test.AssertImageMatches(t, "heatmap.png", w.Canvas().Capture())
}

// TestHeatmapZoomPan zooms with the wheel about the pointer, pans by
// dragging and with the keys, keeps the view for a map of the same box,
// and shows the whole map on a double tap; cells are found in the view.
func TestHeatmapZoomPan(t *testing.T) {
	test.NewTempApp(t)
	b := orb.Bound{Min: orb.Point{-122.5, 37.72}, Max: orb.Point{-122.38, 37.80}}
	m := &mapplot.Map{Cols: 12, Rows: 8, Aspect: 1.5, Bound: b, Values: make([]float64, 96)}
	h := NewHeatmap(m)
	w := test.NewWindow(h)
	defer w.Close()
	w.Resize(fyne.NewSize(600, 450))
	w.Canvas().Capture()
	var synced []orb.Bound
	h.OnView = func(v orb.Bound) { synced = append(synced, v) }

	cr := h.data.CellRect(m, 5*12+9)
	at := fyne.NewPos(float32((cr.X0+cr.X1)/2)*h.Size().Width, float32((cr.Y0+cr.Y1)/2)*h.Size().Height)
	before, _ := h.pointAt(at)
	h.Scrolled(&fyne.ScrollEvent{PointEvent: fyne.PointEvent{Position: at}, Scrolled: fyne.Delta{DY: 1}})
	v := h.View()
	require.Len(t, synced, 1)
	assert.Equal(t, v, synced[0])
	assert.InDelta(t, 0.8*(b.Max[0]-b.Min[0]), v.Max[0]-v.Min[0], 1e-12)
	w.Canvas().Capture()
	after, _ := h.pointAt(at)
	assert.InDelta(t, before[0], after[0], 1e-9, "the point under the pointer stays")
	assert.InDelta(t, before[1], after[1], 1e-9)
	assert.Equal(t, 5*12+9, h.CellAt(at), "the cell under the pointer stays")

	h.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: at}, Dragged: fyne.Delta{DX: 30}})
	assert.Less(t, h.View().Min[0], v.Min[0], "dragging right shows what lies west")
	h.TypedKey(&fyne.KeyEvent{Name: fyne.KeyRight})
	h.TypedRune('+')
	assert.Len(t, synced, 4)

	m2 := *m
	h.SetMap(&m2)
	assert.Equal(t, m2.View, h.View(), "a map of the same box keeps the view")
	h.DoubleTapped(nil)
	assert.Equal(t, orb.Bound{}, h.View())
	other := &mapplot.Map{Cols: 2, Rows: 2, Aspect: 1, Bound: orb.Bound{Max: orb.Point{1, 1}}, Values: make([]float64, 4)}
	h.TypedRune('+')
	h.SetMap(other)
	assert.Equal(t, orb.Bound{}, h.View(), "another box shows whole")
}

// TestSideBySide lays out three maps of one box, one without its colour
// bar and two without latitude labels, as the Compare screen does: their
// cells are drawn at the same size, and the row fills the width.
func TestSideBySide(t *testing.T) {
	test.NewTempApp(t)
	b := orb.Bound{Min: orb.Point{-122.5, 37.72}, Max: orb.Point{-122.38, 37.79}}
	var hs []fyne.CanvasObject
	for i := range 3 {
		m := &mapplot.Map{Cols: 6, Rows: 4, Aspect: 1.5, Bound: b, Values: make([]float64, 24), Label: "probability"}
		m.NoColourBar = i == 0
		m.NoLatLabels = i > 0
		hs = append(hs, NewHeatmap(m))
	}
	row := container.New(sideBySide{}, hs...)
	w := test.NewWindow(row)
	defer w.Close()
	w.Resize(fyne.NewSize(1200, 320))
	w.Canvas().Capture()
	var total float32
	var sizes [3][2]float64
	for i, o := range hs {
		h := o.(*Heatmap)
		total += h.Size().Width
		sz := h.Size()
		sizes[i] = [2]float64{(h.data.X1 - h.data.X0) * float64(sz.Width), (h.data.Y1 - h.data.Y0) * float64(sz.Height)}
	}
	for i := 1; i < 3; i++ {
		assert.InDelta(t, sizes[0][0], sizes[i][0], 2, "map %d's cells as wide as the first's: %v", i, sizes)
		assert.InDelta(t, sizes[0][1], sizes[i][1], 2, "map %d's cells as high as the first's: %v", i, sizes)
	}
	assert.InDelta(t, 1200-2*theme.Padding(), total, 4, "the row fills the width")
}
