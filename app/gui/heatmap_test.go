package gui

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"github.com/paulmach/orb"
	"github.com/stretchr/testify/assert"

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
