package gui

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
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

// TestRoomySelect checks a Select in roomy is wide enough for its longest
// option, also for options set later, so that no choice is cut short.
func TestRoomySelect(t *testing.T) {
	test.NewTempApp(t)
	s := widget.NewSelect([]string{"linear", "square root", "log (4 decades)"}, nil)
	s.SetSelected("log (4 decades)")
	box := roomy(s)
	need := fyne.MeasureText("log (4 decades)", theme.TextSize(), fyne.TextStyle{}).Width
	assert.Greater(t, box.MinSize().Width, need+theme.IconInlineSize(), "room for the longest option and the icon")
	assert.Less(t, s.MinSize().Width, need+4*theme.InnerPadding()+theme.IconInlineSize(), "Fyne alone sizes by the placeholder, too narrow")
	s.Options = append(s.Options, "a much longer option added later on")
	assert.Greater(t, box.MinSize().Width, fyne.MeasureText("a much longer option added later on", theme.TextSize(), fyne.TextStyle{}).Width)
}
