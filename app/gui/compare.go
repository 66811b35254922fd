package gui

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/privmap/privmap/app/guarantee"
	"github.com/privmap/privmap/app/human"
	"github.com/privmap/privmap/app/interval"
	"github.com/privmap/privmap/app/mapplot"
	"github.com/privmap/privmap/app/pipeline"
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
// side on one colour scale (triptych), with hover that follows the mouse
// over all three, the estimate's errors and a ranking of the estimators
// run.
type compareTab struct {
	*triptych
	app fyne.App
	win fyne.Window
	ws  *workspace
	res *runResult

	pick    *widget.Select
	metrics map[string]*widget.Label
	// iv computes and keeps the estimates' intervals.
	iv *intervalPanel
	// reading says what the errors mean for the map, in words.
	reading   *widget.Label
	ranking   *fyne.Container
	exportPNG *widget.Button
	exportCSV *widget.Button
	// exportGIS writes the estimate as a GIS layer (layer.go).
	exportGIS *widget.Button
	empty     *widget.Label
	content   *fyne.Container
}

// metricRows are the rows of the metrics panel.
var metricRows = []string{"EMD", "Squared error", "JSD", "TV", "Log-likelihood", "Steps", "Time"}

func newCompareTab(ws *workspace) *compareTab {
	c := &compareTab{triptych: newTriptych(ws, prefCompareSc), app: ws.app, win: ws.win, ws: ws, metrics: map[string]*widget.Label{}}
	c.redraw, c.describe = c.refresh, c.hoverText
	// A basemap that arrives, or a new opacity, redraws the maps.
	ws.tiles.onReady = append(ws.tiles.onReady, func() {
		if c.res != nil {
			c.refresh()
		}
	})
	// Before a first result, a run under way is said where the results
	// will be, not the invitation to run one.
	ws.runStages = append(ws.runStages, func(stage string) {
		if stage == "" {
			c.empty.SetText(compareIdle)
			return
		}
		c.empty.SetText("A run is under way (" + stage + "). Its estimates appear here once every estimator has finished;\nthe Run screen shows its progress, and Esc cancels it.")
	})
	// A finished run is shown here.
	ws.results = append(ws.results, func(res *runResult) {
		c.win.SetTitle(fmt.Sprintf("privmap — %s compared", human.Plural(len(res.Results), "estimator", "estimators")))
		c.show(res)
		ws.show(c)
	})
	c.pick = widget.NewSelect(nil, func(string) { c.refresh() })
	c.iv = newIntervalPanel(c.onIntervals, func() { c.refresh() })
	for _, r := range metricRows {
		c.metrics[r] = widget.NewLabel("—")
	}
	c.ranking = container.NewVBox()
	c.reading = widget.NewLabel("")
	c.reading.Wrapping = fyne.TextWrapWord
	c.exportPNG = &widget.Button{Text: "Export PNG…", Icon: theme.DownloadIcon(), OnTapped: c.onExportPNG}
	c.exportCSV = &widget.Button{Text: "Export CSV…", Icon: theme.DocumentSaveIcon(), OnTapped: c.onExportCSV}
	c.exportGIS = &widget.Button{Text: "GIS layer…", Icon: theme.DocumentSaveIcon(), OnTapped: c.onExportLayer}
	c.empty = widget.NewLabel(compareIdle)
	return c
}

// compareIdle is what the Compare screen says before any run.
const compareIdle = "Nothing to compare yet: choose the population and estimators, then Run (Ctrl+R)."

func (c *compareTab) buildUI() fyne.CanvasObject {
	bar := container.NewHBox(widget.NewLabel("Estimator"), roomy(c.pick), widget.NewLabel("Colour"), roomy(c.scale),
		c.censusView, layout.NewSpacer(), c.exportPNG, c.exportCSV, c.exportGIS)
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
	side := container.NewVBox(widget.NewCard("", "Errors of the estimate", container.NewVBox(pairs, steps, c.iv.ui(), c.reading)))
	rank := widget.NewCard("", "Estimators ranked", c.ranking)
	bottom := container.NewBorder(nil, nil, container.NewVScroll(side), nil, container.NewScroll(rank))
	c.content = container.NewBorder(bar, nil, nil, nil, c.layout(nil, bottom))
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
	c.setData(res.ds)
	c.fillRanking()
	c.empty.Hide()
	c.content.Show()
	c.iv.reset()
	c.refresh()
	if res.intervals {
		// The estimates are on the screen; their intervals follow.
		c.onIntervals()
	}
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

// figureMaps returns the true, estimated and difference maps of m, the
// first two on one colour scale.
func (c *compareTab) figureMaps(m *methodResult) [3]*mapplot.Map {
	return c.triptych.figureMaps(c.res.Users.Truth, m.Estimate.Theta, [2]string{"True", methodTitle(m.Method) + " estimate"}, "probability")
}

// refresh redraws the maps and the metrics of the estimate chosen.
func (c *compareTab) refresh() {
	m := c.current()
	if m == nil {
		c.clear()
		return
	}
	ms := c.figureMaps(m)
	c.show3(ms, c.fourthMap(m, ms[1]))
	set := func(k, v string) { c.metrics[k].SetText(v) }
	iv := c.iv.of(m.Method)
	emdBound, tvBound, level := math.NaN(), math.NaN(), intervalLevel
	if iv != nil {
		emdBound, tvBound, level = iv.EMD, iv.TV, iv.Level
	}
	if m.Metrics.EMDNote != "" {
		set("EMD", "— (too large to compute exactly)")
	} else if math.IsNaN(m.Metrics.EMD) {
		set("EMD", "— (no distance)")
	} else {
		set("EMD", fmt.Sprintf("%.4g %s", m.Metrics.EMD, m.Metrics.EMDUnit)+bound(emdBound, m.Metrics.EMDUnit, level))
	}
	set("Squared error", fmt.Sprintf("%.4g", m.Metrics.MSE))
	set("JSD", fmt.Sprintf("%.4g nats", m.Metrics.JSD))
	set("TV", fmt.Sprintf("%.4g", m.Metrics.TV)+bound(tvBound, "", level))
	caveats := slices.DeleteFunc([]string{interval.CoverageNote(m.Method, c.intervalMethod(m), c.res.Study), interval.Caveat(c.res.Study, c.res.Groups)},
		func(s string) bool { return s == "" })
	status := c.iv.describe(m, c.res.Study, strings.Join(caveats, "; "))
	if note := pipeline.AlphaNote(m.Estimate, c.res.Options.CEM); note != "" {
		status = note + ". " + status
	}
	c.iv.status.SetText(status)
	c.readings()
	ll := fmt.Sprintf("%.10g", m.Estimate.LogLik)
	if math.IsNaN(m.Estimate.LogLik) {
		ll = "— (PUM reports depend on each user's cells)"
	}
	set("Log-likelihood", ll)
	set("Steps", stepsText(m))
	t := human.Duration(m.Elapsed)
	if info, _ := m.Method.Info(); info.Alpha {
		t += fmt.Sprintf(" · α = %g", m.Estimate.Alpha)
	}
	set("Time", t)
}

// readings says under the errors what they mean for the map, and what
// the estimate's intervals say or how they are coming.
func (c *compareTab) readings() {
	if m := c.current(); m != nil {
		unit := "people"
		if ds := c.res.ds; ds != nil {
			unit = guarantee.MapUnit(ds.personStudy())
		}
		c.reading.SetText(guarantee.MetricsReadingOf(m.Metrics, unit) + "\n" + c.iv.status.Text)
	}
}

// hoverText describes the cell under the mouse: its place, true and
// estimated probability.
func (c *compareTab) hoverText(cell int) string {
	m := c.current()
	if cell < 0 || m == nil || c.maps[0].Map == nil {
		return "Hover over a cell to see its true and estimated probability."
	}
	mp := [3]*mapplot.Map{c.maps[0].Map, c.maps[1].Map, c.maps[2].Map}
	return fmt.Sprintf("%s · true %.4g · %s %.4g%s · difference %+.4g", c.place(cell),
		mp[0].Values[cell], methodTitle(m.Method), mp[1].Values[cell], c.intervalText(m, cell), mp[2].Values[cell])
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
		if info, _ := m.Method.Info(); info.PerMechanism && m.Estimate.Iterations > 0 {
			steps += " (sum)" // one IBU per mechanism, each within the limit
		}
		cells := []string{fmt.Sprint(i + 1), methodTitle(m.Method), emd, fmt.Sprintf("%.4g", m.Metrics.MSE),
			fmt.Sprintf("%.4g", m.Metrics.JSD), fmt.Sprintf("%.4g", m.Metrics.TV), logLik(m.Estimate.LogLik),
			steps, human.Duration(m.Elapsed)}
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
	lines := []string{data + fmt.Sprintf(" · %s, seed %d · %s", c.res.Users.Words(), req.Seed, "estimates: "+pipeline.PreviewWords)}
	lines = append(lines, mapplot.WrapJoin("Mechanisms: ", mechanismMix(req.Study, c.res.Counts), 150)...)
	lines = append(lines, c.ws.guarantees()...)
	est := fmt.Sprintf("Estimator: %s", methodTitle(m.Method))
	if info, _ := m.Method.Info(); info.Alpha {
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
		return fmt.Sprintf("Data: %s · %s categories (%s)", ds.src.name, human.Thousands(ds.alphabet.Len()), strings.Join(attrs, " × "))
	}
	g := ds.grid.Grid
	return fmt.Sprintf("Data: %s · %d×%d cells of %.3g km · %s–%s, %s–%s", ds.src.name, g.Cols, g.Rows,
		g.CellKm, human.Lat(g.Bound.Min[1]), human.Lat(g.Bound.Max[1]), human.Lon(g.Bound.Min[0]), human.Lon(g.Bound.Max[0]))
}

// mechanismMix describes each mechanism and its users.
func mechanismMix(s *core.Study, counts []int) []string {
	out := make([]string, len(s.Mechanisms))
	for i, m := range s.Mechanisms {
		out[i] = fmt.Sprintf("%s (%s): %s", m.ID, guarantee.MechanismLevel(m), human.Plural(counts[i], "user", "users"))
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
	if info, _ := m.Method.Info(); info.PerMechanism {
		// The mechanisms' estimates each have the step limit; this is
		// their sum.
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

// tab names the Compare screen.
func (c *compareTab) tab() (string, fyne.Resource) { return "Compare", theme.GridIcon() }

// shown fits the maps now that the screen has its size.
func (c *compareTab) shown() { c.fitSplit() }
