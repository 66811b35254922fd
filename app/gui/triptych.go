package gui

import (
	"fmt"
	"math"
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/paulmach/orb"

	"github.com/privmap/privmap/app/mapplot"
)

// triptych is what the Compare and Release screens show: three maps side
// by side — the truth, an estimate or a release, and their difference —
// the first two on one colour scale, and, once there are intervals, a
// fourth beside them (the uncertainty map), all zooming and panning
// together, a read-out of the cell under the mouse, and for census data
// the attributes viewed as rows and columns.
type triptych struct {
	app fyne.App
	// tiles is the window's basemap, shared with the data screen.
	tiles *tiles
	// ds is the data set shown.
	ds *dataset

	scale, rows, cols *widget.Select
	censusView        *fyne.Container
	maps              [3]*Heatmap
	// extra is the fourth map, in mapRow only while it has a map (show3).
	extra *Heatmap
	// mapRow holds the maps side by side (sideBySide), above what split
	// puts below them.
	mapRow *fyne.Container
	split  *container.Split
	// placeholder stands in for top, the maps and the read-out, until
	// there are maps to show (layout).
	placeholder, top fyne.CanvasObject
	hover            *widget.Label
	// redraw draws the maps again (a new scale or view of the census);
	// describe returns the read-out of a cell, −1 for none.
	redraw   func()
	describe func(cell int) string
}

// newTriptych returns the maps; the colour scale chosen is remembered
// under the preference key scalePref.
func newTriptych(ws *workspace, scalePref string) *triptych {
	a := ws.app
	t := &triptych{app: a, tiles: ws.tiles}
	scales := []string{compareLinear, compareSqrt, compareLog}
	t.scale = widget.NewSelect(scales, nil)
	t.scale.SetSelected(choice(a.Preferences().String(scalePref), scales, compareLinear))
	t.scale.OnChanged = func(s string) {
		a.Preferences().SetString(scalePref, s)
		t.redraw()
	}
	t.rows = widget.NewSelect(nil, func(string) { t.redraw() })
	t.cols = widget.NewSelect(nil, func(string) { t.redraw() })
	t.extra = NewHeatmap(nil)
	all := []*Heatmap{t.maps[0], t.maps[1], t.maps[2], t.extra}
	for i := range all {
		if i < len(t.maps) {
			all[i] = NewHeatmap(nil)
			t.maps[i] = all[i]
		}
		h := all[i]
		h.OnHover = t.onHover
		// The maps zoom and pan together.
		h.OnView = func(v orb.Bound) {
			for j, o := range all {
				if j != i {
					o.SetView(v)
				}
			}
		}
	}
	t.hover = widget.NewLabel("")
	t.hover.Truncation = fyne.TextTruncateEllipsis
	t.censusView = container.NewHBox(widget.NewLabel("Rows"), roomy(t.rows), widget.NewLabel("Columns"), roomy(t.cols))
	t.censusView.Hide()
	t.mapRow = container.New(sideBySide{}, t.maps[0], t.maps[1], t.maps[2])
	t.extra.Hide()
	return t
}

// layout returns the maps and the read-out above below, split so that the
// maps take the height they need. With a placeholder, the placeholder
// stands in the maps' place until showMaps.
func (t *triptych) layout(placeholder, below fyne.CanvasObject) *container.Split {
	top := fyne.CanvasObject(container.NewBorder(nil, t.hover, nil, nil, t.mapRow))
	if placeholder != nil {
		t.placeholder, t.top = placeholder, top
		top.Hide()
		top = container.NewStack(placeholder, top)
	}
	t.split = container.NewVSplit(top, below)
	t.split.Offset = 0.68
	return t.split
}

// showMaps puts the maps in the placeholder's place.
func (t *triptych) showMaps() {
	if t.placeholder != nil {
		t.placeholder.Hide()
		t.top.Show()
	}
}

// setData shows ds, offering its attributes for a census table.
func (t *triptych) setData(ds *dataset) {
	t.ds = ds
	if ds == nil || !ds.isCensus() {
		t.censusView.Hide()
		return
	}
	var attrs []string
	for _, a := range ds.alphabet.Attributes {
		attrs = append(attrs, a.Name)
	}
	t.rows.OnChanged, t.cols.OnChanged = nil, nil
	t.rows.SetOptions(attrs)
	t.cols.SetOptions(append([]string{noAttribute}, attrs...))
	if !slices.Contains(attrs, t.rows.Selected) {
		t.rows.SetSelected(attrs[0])
	}
	if t.cols.Selected == "" || t.cols.Selected != noAttribute && !slices.Contains(attrs, t.cols.Selected) {
		t.cols.SetSelected(noAttribute)
		if len(attrs) > 1 {
			t.cols.SetSelected(attrs[1])
		}
	}
	t.rows.OnChanged, t.cols.OnChanged = func(string) { t.redraw() }, func(string) { t.redraw() }
	t.censusView.Show()
}

// colourScale returns the scale chosen.
func (t *triptych) colourScale() mapplot.Scale {
	switch t.scale.Selected {
	case compareSqrt:
		return mapplot.Sqrt
	case compareLog:
		return mapplot.Log
	}
	return mapplot.Linear
}

// figureMaps returns the maps of the values truth and other, titled, on
// one colour scale, and their difference (mapplot.Comparison), over the
// basemap: as the window shows them and as they are exported.
func (t *triptych) figureMaps(truth, other []float64, titles [2]string, label string) [3]*mapplot.Map {
	sc := t.colourScale()
	var out [2]*mapplot.Map
	for i, v := range [2][]float64{truth, other} {
		if ds := t.ds; ds.isCensus() {
			row, col := attrAxes(ds.alphabet, t.rows.Selected, t.cols.Selected)
			out[i] = censusMap(ds, v, row, col, sc, titles[i], label)
		} else {
			out[i] = gridMap(ds.grid.Grid, v, sc, titles[i], label)
		}
	}
	ms := mapplot.Comparison(out[0], out[1])
	for _, m := range ms {
		t.tiles.under(m)
	}
	return ms
}

// show3 puts the maps on screen: side by side they share the first one's
// latitudes, and the second's colour bar serves the first too. extra,
// when not nil, is the fourth map, with a colour bar of its own.
func (t *triptych) show3(ms [3]*mapplot.Map, extra *mapplot.Map) {
	ms[0].NoColourBar = true
	ms[1].NoLatLabels, ms[2].NoLatLabels = true, true
	for i, m := range ms {
		t.maps[i].SetMap(m)
	}
	objs := []fyne.CanvasObject{t.maps[0], t.maps[1], t.maps[2]}
	if extra != nil {
		extra.NoLatLabels = true
		t.extra.SetMap(extra)
		t.extra.SetView(t.maps[0].view)
		t.extra.Show()
		objs = append(objs, t.extra)
	} else {
		t.extra.SetMap(nil)
		t.extra.Hide()
	}
	t.mapRow.Objects = objs
	t.mapRow.Refresh() // the maps' widths depend on their furniture
	t.fitSplit()
	t.onHover(-1)
}

// clear takes the maps off the screen.
func (t *triptych) clear() {
	for _, h := range t.maps {
		h.SetMap(nil)
	}
	t.extra.SetMap(nil)
	t.extra.Hide()
	t.mapRow.Objects = []fyne.CanvasObject{t.maps[0], t.maps[1], t.maps[2]}
	t.hover.SetText("")
}

// fitSplit gives the maps the height at which they fill the width (wide
// boxes need less than square ones), and what is below the rest, within
// 40–80% of the screen.
func (t *triptych) fitSplit() {
	if t.split == nil || t.split.Size().Height <= 0 {
		return
	}
	total := t.split.Size().Height
	need := sideBySide{}.heightFor(t.mapRow.Objects, t.mapRow.Size().Width)
	if need <= 0 {
		return
	}
	need += t.hover.MinSize().Height + theme.Padding()
	off := min(max(float64(need/total), 0.4), 0.8)
	if math.Abs(off-t.split.Offset) > 0.01 {
		t.split.SetOffset(off)
	}
}

// onHover marks the cell on every map and describes it.
func (t *triptych) onHover(cell int) {
	for _, h := range t.maps {
		h.Mark(cell)
	}
	if t.extra.Map != nil {
		t.extra.Mark(cell)
	}
	if t.describe != nil {
		t.hover.SetText(t.describe(cell))
	}
}

// place names a cell of the data shown: its grid cell and box, or its
// census categories.
func (t *triptych) place(cell int) string {
	if t.ds.isCensus() {
		return categoryPlace(t.maps[0].Map, cell)
	}
	return cellPlace(t.ds.grid.Grid, cell)
}

// bounds are each cell's interval and the band, as core.Intervals and
// release.Bounds give them.
type bounds struct{ lo, hi, bandLo, bandHi []float64 }

// boundsMap returns the uncertainty map beside the three, at the level
// of the bounds b, in the unit of the values shown (like's, whose colour
// scale the toggled map keeps): each cell's interval half-width, or,
// surely, the values shown on the cells whose band excludes 0 and
// nothing elsewhere; how, when not empty, names the intervals' method
// and what they held in the title ("profile interval", "held 99% with
// people" under it). On a census table whose view sums categories, a
// cell's uncertainty is the sum of the categories' band half-widths:
// every category within its band (the band's probability), their sum is
// within that sum.
func (t *triptych) boundsMap(b bounds, level float64, shown []float64, like *mapplot.Map, unit string, surely bool, how string) *mapplot.Map {
	v := make([]float64, len(b.lo))
	pct := fmt.Sprintf("%.0f%%", 100*level)
	title, label := "± "+pct+" interval", "± "+unit
	if how != "" {
		// The scale's label carries the ±: the title, centred over a
		// map as narrow as San Francisco's at 1200 px, has no room.
		title = pct + " " + how
	}
	switch {
	case surely:
		title, label = "Surely not empty ("+pct+")", unit
		for x := range v {
			v[x] = math.NaN()
			if b.bandLo[x] > 0 {
				v[x] = shown[x]
			}
		}
	case t.ds.isCensus():
		title = "± " + pct + " band"
		for x := range v {
			v[x] = (b.bandHi[x] - b.bandLo[x]) / 2
		}
	default:
		for x := range v {
			v[x] = (b.hi[x] - b.lo[x]) / 2
		}
	}
	var out *mapplot.Map
	if ds := t.ds; ds.isCensus() {
		row, col := attrAxes(ds.alphabet, t.rows.Selected, t.cols.Selected)
		out = censusMap(ds, v, row, col, t.colourScale(), title, label)
	} else {
		out = gridMap(ds.grid.Grid, v, t.colourScale(), title, label)
	}
	if surely {
		out.Lo, out.Hi = like.Lo, like.Hi // the values' own colours
	}
	t.tiles.under(out)
	return out
}
