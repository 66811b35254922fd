package gui

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
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
