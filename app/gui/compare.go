package gui

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/paulmach/orb"
	"github.com/privmap/privmap/app"
	"github.com/privmap/privmap/app/mapplot"
	"github.com/privmap/privmap/core"
)

// Colour scales of the compare screen.
const (
	compareLinear = "linear"
	compareSqrt   = "square root"
	compareLog    = "log (4 decades)" // mapplot.Log.String()
	prefCompareSc = "compare.scale"
)

// compareTab shows the truth, an estimate and their difference side by
// side on one colour scale, with hover that follows the mouse over all
// three, the estimate's errors and a ranking of the estimators run.
type compareTab struct {
	app fyne.App
	win fyne.Window
	res *runResult
	// tiles is the window's basemap, shared with the data screen.
	tiles *tiles

	pick, scale *widget.Select
	rows, cols  *widget.Select // census attributes viewed
	// mapRow holds the three maps side by side (sideBySide), above the
	// tables in split.
	mapRow     *fyne.Container
	split      *container.Split
	censusView *fyne.Container
	maps       [3]*Heatmap
	hover      *widget.Label
	metrics    map[string]*widget.Label
	ranking    *fyne.Container
	exportPNG  *widget.Button
	exportCSV  *widget.Button
	empty      *widget.Label
	content    *fyne.Container
}

// metricRows are the rows of the metrics panel.
var metricRows = []string{"EMD", "Squared error", "JSD", "TV", "Log-likelihood", "Steps", "Time"}

func newCompareTab(a fyne.App, w fyne.Window) *compareTab {
	c := &compareTab{app: a, win: w, metrics: map[string]*widget.Label{}}
	c.pick = widget.NewSelect(nil, func(string) { c.refresh() })
	scales := []string{compareLinear, compareSqrt, compareLog}
	c.scale = widget.NewSelect(scales, nil)
	c.scale.SetSelected(choice(a.Preferences().String(prefCompareSc), scales, compareLinear))
	c.scale.OnChanged = func(s string) {
		c.app.Preferences().SetString(prefCompareSc, s)
		c.refresh()
	}
	c.rows = widget.NewSelect(nil, func(string) { c.refresh() })
	c.cols = widget.NewSelect(nil, func(string) { c.refresh() })
	for i := range c.maps {
		h := NewHeatmap(nil)
		h.OnHover = c.onHover
		// The true, estimated and difference maps zoom and pan together.
		h.OnView = func(v orb.Bound) {
			for j, o := range c.maps {
				if j != i {
					o.SetView(v)
				}
			}
		}
		c.maps[i] = h
	}
	c.hover = widget.NewLabel("")
	c.hover.Truncation = fyne.TextTruncateEllipsis
	for _, r := range metricRows {
		c.metrics[r] = widget.NewLabel("—")
	}
	c.ranking = container.NewVBox()
	c.exportPNG = &widget.Button{Text: "Export PNG…", Icon: theme.DownloadIcon(), OnTapped: c.onExportPNG}
	c.exportCSV = &widget.Button{Text: "Export CSV…", Icon: theme.DocumentSaveIcon(), OnTapped: c.onExportCSV}
	c.empty = widget.NewLabel("Nothing to compare yet: choose the population and estimators, then Run (Ctrl+R).")
	return c
}

func (c *compareTab) buildUI() fyne.CanvasObject {
	c.censusView = container.NewHBox(widget.NewLabel("Rows"), roomy(c.rows), widget.NewLabel("Columns"), roomy(c.cols))
	c.censusView.Hide()
	bar := container.NewHBox(widget.NewLabel("Estimator"), roomy(c.pick), widget.NewLabel("Colour"), roomy(c.scale),
		c.censusView, layout.NewSpacer(), c.exportPNG, c.exportCSV)
	// The errors two to a line and the steps below, so that the maps keep
	// most of the height.
	pairs := container.New(columnsLayout{cols: 4})
	for _, r := range metricRows {
		if r == "Steps" {
			continue
		}
		pairs.Add(widget.NewLabelWithStyle(r, fyne.TextAlignTrailing, fyne.TextStyle{Bold: true}))
		pairs.Add(c.metrics[r])
	}
	steps := container.NewBorder(nil, nil, widget.NewLabelWithStyle("Steps", fyne.TextAlignTrailing, fyne.TextStyle{Bold: true}), nil, c.metrics["Steps"])
	side := container.NewVBox(widget.NewCard("", "Errors of the estimate", container.NewVBox(pairs, steps)))
	rank := widget.NewCard("", "Estimators ranked", c.ranking)
	bottom := container.NewBorder(nil, nil, side, nil, container.NewScroll(rank))
	maps := container.New(sideBySide{}, c.maps[0], c.maps[1], c.maps[2])
	c.mapRow = maps
	split := container.NewVSplit(container.NewBorder(nil, c.hover, nil, nil, maps), bottom)
	split.Offset = 0.68
	c.split = split
	c.content = container.NewBorder(bar, nil, nil, nil, split)
	c.content.Hide()
	return container.NewStack(container.NewCenter(c.empty), c.content)
}

// show shows a finished run.
func (c *compareTab) show(res *runResult) {
	c.res = res
	var names []string
	for _, m := range res.Succeeded() {
		names = append(names, methodTitle(m.Method))
	}
	prev := c.pick.Selected
	c.pick.OnChanged = nil
	c.pick.SetOptions(names)
	switch {
	case len(names) == 0:
		c.pick.ClearSelected()
	case slices.Contains(names, prev):
		c.pick.SetSelected(prev)
	default:
		c.pick.SetSelected(names[0])
	}
	c.pick.OnChanged = func(string) { c.refresh() }
	if ds := res.ds; ds != nil && ds.isCensus() {
		var attrs []string
		for _, a := range ds.alphabet.Attributes {
			attrs = append(attrs, a.Name)
		}
		c.rows.OnChanged, c.cols.OnChanged = nil, nil
		c.rows.SetOptions(attrs)
		c.cols.SetOptions(append([]string{noAttribute}, attrs...))
		if !slices.Contains(attrs, c.rows.Selected) {
			c.rows.SetSelected(attrs[0])
		}
		if c.cols.Selected == "" || c.cols.Selected != noAttribute && !slices.Contains(attrs, c.cols.Selected) {
			c.cols.SetSelected(noAttribute)
			if len(attrs) > 1 {
				c.cols.SetSelected(attrs[1])
			}
		}
		c.rows.OnChanged, c.cols.OnChanged = func(string) { c.refresh() }, func(string) { c.refresh() }
		c.censusView.Show()
	} else {
		c.censusView.Hide()
	}
	c.fillRanking()
	c.empty.Hide()
	c.content.Show()
	c.refresh()
}

// current returns the estimate shown, or nil.
func (c *compareTab) current() *methodResult {
	if c.res == nil {
		return nil
	}
	for _, m := range c.res.Succeeded() {
		if methodTitle(m.Method) == c.pick.Selected {
			return &m
		}
	}
	return nil
}

// colourScale returns the scale chosen.
func (c *compareTab) colourScale() mapplot.Scale {
	switch c.scale.Selected {
	case compareSqrt:
		return mapplot.Sqrt
	case compareLog:
		return mapplot.Log
	}
	return mapplot.Linear
}

// figureMaps returns the true, estimated and difference maps of m, the
// first two on one colour scale.
func (c *compareTab) figureMaps(m *methodResult) [3]*mapplot.Map {
	req := c.res
	sc := c.colourScale()
	var out [2]*mapplot.Map
	titles := [2]string{"True", methodTitle(m.Method) + " estimate"}
	for i, v := range [2][]float64{req.Users.Truth, m.Estimate.Theta} {
		if ds := req.ds; ds.isCensus() {
			row, col := c.censusAxes()
			out[i] = censusMap(ds, v, row, col, sc, titles[i], "probability")
		} else {
			out[i] = gridMap(ds.grid.Grid, v, sc, titles[i], "probability")
		}
	}
	ms := mapplot.Comparison(out[0], out[1])
	for _, m := range ms {
		c.tiles.under(m)
	}
	return ms
}

// fitSplit gives the maps the height at which they fill the width (wide
// boxes need less than square ones), and the tables below the rest,
// within 40–80% of the screen.
func (c *compareTab) fitSplit() {
	if c.split == nil || c.split.Size().Height <= 0 {
		return
	}
	total := c.split.Size().Height
	need := sideBySide{}.heightFor(c.mapRow.Objects, c.mapRow.Size().Width)
	if need <= 0 {
		return
	}
	need += c.hover.MinSize().Height + theme.Padding()
	off := min(max(float64(need/total), 0.4), 0.8)
	if math.Abs(off-c.split.Offset) > 0.01 {
		c.split.SetOffset(off)
	}
}

// censusAxes returns the attribute indices viewed as rows and columns.
func (c *compareTab) censusAxes() (row, col int) {
	return attrAxes(c.res.ds.alphabet, c.rows.Selected, c.cols.Selected)
}

// refresh redraws the maps and the metrics of the estimate chosen.
func (c *compareTab) refresh() {
	m := c.current()
	if m == nil {
		for _, h := range c.maps {
			h.SetMap(nil)
		}
		c.hover.SetText("")
		return
	}
	ms := c.figureMaps(m)
	// Side by side in the window, the maps share the first one's
	// latitudes and the estimate's colour bar serves the truth too.
	ms[0].NoColourBar = true
	ms[1].NoLatLabels, ms[2].NoLatLabels = true, true
	for i, h := range c.maps {
		h.SetMap(ms[i])
	}
	if c.mapRow != nil {
		c.mapRow.Refresh() // the maps' widths depend on their furniture
		c.fitSplit()
	}
	c.onHover(-1)
	set := func(k, v string) { c.metrics[k].SetText(v) }
	if m.Metrics.EMDNote != "" {
		set("EMD", "— (too large to compute exactly)")
	} else if math.IsNaN(m.Metrics.EMD) {
		set("EMD", "— (no distance)")
	} else {
		set("EMD", fmt.Sprintf("%.4g %s", m.Metrics.EMD, m.Metrics.EMDUnit))
	}
	set("Squared error", fmt.Sprintf("%.4g", m.Metrics.MSE))
	set("JSD", fmt.Sprintf("%.4g nats", m.Metrics.JSD))
	set("TV", fmt.Sprintf("%.4g", m.Metrics.TV))
	ll := fmt.Sprintf("%.10g", m.Estimate.LogLik)
	if math.IsNaN(m.Estimate.LogLik) {
		ll = "— (PUM reports depend on each user's cells)"
	}
	set("Log-likelihood", ll)
	set("Steps", stepsText(m))
	t := m.Elapsed.Round(time.Millisecond).String()
	if m.Method == core.MethodCEM {
		t += fmt.Sprintf(" · α = %g", m.Estimate.Alpha)
	}
	set("Time", t)
}

// onHover marks the cell on all three maps and describes it.
func (c *compareTab) onHover(cell int) {
	for _, h := range c.maps {
		h.Mark(cell)
	}
	m := c.current()
	if cell < 0 || m == nil || c.maps[0].Map == nil {
		c.hover.SetText("Hover over a cell to see its true and estimated probability.")
		return
	}
	mp := [3]*mapplot.Map{c.maps[0].Map, c.maps[1].Map, c.maps[2].Map}
	var where string
	if ds := c.res.ds; ds.isCensus() {
		where = categoryPlace(mp[0], cell)
	} else {
		where = cellPlace(ds.grid.Grid, cell)
	}
	c.hover.SetText(fmt.Sprintf("%s · true %.4g · %s %.4g · difference %+.4g", where,
		mp[0].Values[cell], methodTitle(m.Method), mp[1].Values[cell], mp[2].Values[cell]))
}

// rankHead heads the ranking table.
var rankHead = []string{"#", "Estimator", "EMD", "Squared error", "JSD", "TV", "Log-lik.", "Steps", "Time"}

// ranked returns the run's results best first: by EMD where the alphabet
// has a distance, else by squared error; failures last.
func ranked(res *runResult) []methodResult {
	out := slices.Clone(res.Results)
	key := func(m methodResult) float64 {
		switch {
		case m.Err != nil:
			return math.Inf(1)
		case math.IsNaN(m.Metrics.EMD):
			return m.Metrics.MSE
		}
		return m.Metrics.EMD
	}
	slices.SortStableFunc(out, func(a, b methodResult) int {
		ka, kb := key(a), key(b)
		switch {
		case ka < kb:
			return -1
		case ka > kb:
			return 1
		}
		return 0
	})
	return out
}

// fillRanking fills the table ranking the estimators: columns as wide as
// their figures, failures with their reasons below.
func (c *compareTab) fillRanking() {
	c.ranking.RemoveAll()
	table := container.New(columnsLayout{cols: len(rankHead)})
	for _, h := range rankHead {
		table.Add(bold(h))
	}
	var failed []fyne.CanvasObject
	for i, m := range ranked(c.res) {
		if m.Err != nil {
			// A failure spans the table, wrapped: the reason matters.
			l := widget.NewLabel(fmt.Sprintf("%d. %s failed: %v", i+1, methodTitle(m.Method), m.Err))
			l.Wrapping = fyne.TextWrapWord
			failed = append(failed, l)
			continue
		}
		emd := "—"
		if !math.IsNaN(m.Metrics.EMD) {
			emd = fmt.Sprintf("%.4g %s", m.Metrics.EMD, m.Metrics.EMDUnit)
		}
		steps := "—"
		if m.Estimate.Iterations > 0 {
			steps = fmt.Sprint(m.Estimate.Iterations)
		}
		if m.Method == core.MethodIBUR && m.Estimate.Iterations > 0 {
			steps += " (sum)" // one IBU per mechanism, each within the limit
		}
		cells := []string{fmt.Sprint(i + 1), methodTitle(m.Method), emd, fmt.Sprintf("%.4g", m.Metrics.MSE),
			fmt.Sprintf("%.4g", m.Metrics.JSD), fmt.Sprintf("%.4g", m.Metrics.TV), logLik(m.Estimate.LogLik),
			steps, m.Elapsed.Round(time.Millisecond).String()}
		for _, s := range cells {
			table.Add(widget.NewLabel(s))
		}
	}
	c.ranking.Add(table)
	for _, l := range failed {
		c.ranking.Add(l)
	}
	c.ranking.Refresh()
}

// logLik formats a log-likelihood for the ranking, — when undefined.
func logLik(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return fmt.Sprintf("%.8g", v)
}

// notes describes the run for an exported figure: the data, the
// mechanisms the users chose and the estimator.
func (c *compareTab) notes(m *methodResult) []string {
	req := c.res
	ds := req.ds
	data := dataNote(ds)
	lines := []string{data + fmt.Sprintf(" · %s users, seed %d", app.Thousands(c.res.N()), req.Seed)}
	lines = append(lines, mapplot.WrapJoin("Mechanisms: ", mechanismMix(req.Study, c.res.Counts), 150)...)
	est := fmt.Sprintf("Estimator: %s", methodTitle(m.Method))
	if m.Method == core.MethodCEM {
		est += " (α = " + roundText(m.Estimate.Alpha, 6) + ")"
	}
	est += " · " + metricsLine(*m)
	if m.Estimate.Iterations > 0 {
		est += fmt.Sprintf(" · %d steps", m.Estimate.Iterations)
	}
	return append(lines, est, c.scaleNote())
}

// scaleNote records in a figure's header the colour scale and the
// basemap under the maps, with its credit.
func (c *compareTab) scaleNote() string {
	return "Colour scale: " + c.colourScale().String() + " · " + basemapNote(c.maps[0].Map)
}

// basemapNote names the basemap under m and its credit, or says there is
// none.
func basemapNote(m *mapplot.Map) string {
	if m == nil || m.Basemap == nil {
		return "no basemap"
	}
	return "basemap " + m.Basemap.Attribution()
}

// dataNote describes a data set for a figure: the file and its grid or
// attributes.
func dataNote(ds *dataset) string {
	if ds.isCensus() {
		var attrs []string
		for _, a := range ds.alphabet.Attributes {
			attrs = append(attrs, fmt.Sprintf("%s %d", a.Name, len(a.Labels)))
		}
		return fmt.Sprintf("Data: %s · %s categories (%s)", ds.src.name, app.Thousands(ds.alphabet.Len()), strings.Join(attrs, " × "))
	}
	g := ds.grid.Grid
	return fmt.Sprintf("Data: %s · %d×%d cells of %.3g km · %s–%s, %s–%s", ds.src.name, g.Cols, g.Rows,
		g.CellKm, app.Lat(g.Bound.Min[1]), app.Lat(g.Bound.Max[1]), app.Lon(g.Bound.Min[0]), app.Lon(g.Bound.Max[0]))
}

// mechanismMix describes each mechanism and its users.
func mechanismMix(s *core.Study, counts []int) []string {
	out := make([]string, len(s.Mechanisms))
	for i, m := range s.Mechanisms {
		out[i] = fmt.Sprintf("%s (%s): %s", m.ID, app.MechanismLevel(m), plural(counts[i], "user", "users"))
	}
	return out
}

// stepsText says how many steps an estimator took and, for the
// maximum-likelihood ones, how close to the MLE that is certified to be.
func stepsText(m *methodResult) string {
	e := m.Estimate
	if e.Iterations == 0 {
		return "— (closed form)"
	}
	s := fmt.Sprintf("%d", e.Iterations)
	if m.Method == core.MethodIBUR {
		// The mechanisms' IBUs each have the step limit; this is their sum.
		s += " in all, one IBU per mechanism"
	}
	switch {
	case m.Method.Certified() && e.Converged && e.Gap == 0:
		s += " · log-likelihood certified at the MLE's, to rounding"
	case m.Method.Certified() && e.Converged:
		s += fmt.Sprintf(" · log-likelihood certified within %.1g of the MLE", e.Gap)
	case m.Method.Certified():
		s += fmt.Sprintf(" · not converged: up to %.1g below the MLE", e.Gap)
	case !e.Converged:
		s += " (stopped before converging)"
	}
	return s
}
