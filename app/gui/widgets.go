package gui

import (
	"errors"
	"image/color"
	"math"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"
)

func bold(s string) *widget.Label {
	return widget.NewLabelWithStyle(s, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
}

// fixedWidth gives o at least width w.
func fixedWidth(o fyne.CanvasObject, w float32) fyne.CanvasObject {
	return container.New(layout.NewGridWrapLayout(fyne.NewSize(w, o.MinSize().Height)), o)
}

// wheelTo lies over a scroll container's content and hands the mouse
// wheel to the container: the topmost scrollable under the pointer takes
// the wheel, and a single-line entry's text scroller would otherwise
// swallow it. It takes nothing else, so taps, typing and hovering reach
// the widgets under it.
type wheelTo struct {
	widget.BaseWidget
	target fyne.Scrollable
}

// kindNames returns kinds as strings, for a select.
func kindNames[K ~string](kinds []K) []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = string(k)
	}
	return out
}

func numberEntry(submit func(string)) *widget.Entry {
	e := widget.NewEntry()
	e.OnSubmitted = submit
	e.Validator = func(s string) error {
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return errors.New("not a number")
		}
		return nil
	}
	return e
}

var _ fyne.Scrollable = (*wheelTo)(nil)

// Scrolled implements fyne.Scrollable.
func (w *wheelTo) Scrolled(ev *fyne.ScrollEvent) { w.target.Scrolled(ev) }

// CreateRenderer implements fyne.Widget: w draws nothing.
func (w *wheelTo) CreateRenderer() fyne.WidgetRenderer {
	w.ExtendBaseWidget(w)
	return widget.NewSimpleRenderer(canvas.NewRectangle(color.Transparent))
}
