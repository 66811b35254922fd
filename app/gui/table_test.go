package gui

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/stretchr/testify/assert"
)

// TestColumnsLayout checks that every cell gets at least its own size,
// columns line up, and the table is as wide as its columns.
func TestColumnsLayout(t *testing.T) {
	test.NewTempApp(t)
	cells := []string{"Rank", "Estimator", "Squared error", "1", "GIBU", "0.0036528", "2", "[IBU]_M with a long name", "0.0064"}
	c := container.New(columnsLayout{cols: 3})
	for _, s := range cells {
		c.Add(widget.NewLabel(s))
	}
	c.Resize(c.MinSize())
	objs := c.Objects
	for i, o := range objs {
		assert.GreaterOrEqual(t, o.Size().Width, o.MinSize().Width, "cell %q cut short", cells[i])
		assert.Equal(t, objs[i%3].Position().X, o.Position().X, "column %d does not line up", i%3)
	}
	var w float32
	for _, o := range objs[6:] {
		w = max(w, o.Position().X+o.Size().Width)
	}
	assert.Equal(t, c.MinSize().Width, w)
	assert.Equal(t, fyne.NewSize(0, 0), columnsLayout{cols: 2}.MinSize(nil))
}
