package gui

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/privmap/privmap/app/human"
	"github.com/privmap/privmap/app/interval"
	"github.com/privmap/privmap/app/mapplot"
	"github.com/privmap/privmap/core"
)

// intervalPanel is the Compare screen's intervals (interval.Of): a job
// that computes the intervals of the estimate shown after a run (the estimate itself is
// on the screen at once), the intervals kept per estimator, what they
// say, and whether the fourth map shows each cell's uncertainty or the
// cells that are surely not empty.
type intervalPanel struct {
	job      jobControls
	status   *widget.Label
	surely   *widget.Check
	byMethod map[core.Method]*interval.Set
	failed   map[core.Method]error
	// running is the method whose intervals the job computes.
	running core.Method
}

// intervalLevel is the level of the window's intervals, privmap
// estimate -ci's usual 0.95.
const intervalLevel = core.DefaultLevel

func newIntervalPanel(run func(), changed func()) *intervalPanel {
	p := &intervalPanel{job: newJobControls(run), status: widget.NewLabel(""),
		byMethod: map[core.Method]*interval.Set{}, failed: map[core.Method]error{}}
	p.job.runBtn.Text, p.job.runBtn.Icon, p.job.runBtn.Importance = "Intervals", theme.SearchIcon(), widget.MediumImportance
	p.job.bind()
	p.status.Wrapping = fyne.TextWrapWord
	p.surely = widget.NewCheck("Only cells surely not empty", func(bool) { changed() })
	p.surely.Disable()
	return p
}

// ui returns the panel's controls, a row under the errors: the job's,
// its progress and the band toggle; the status joins the errors'
// reading.
func (p *intervalPanel) ui() fyne.CanvasObject {
	bar := p.job.busyBar(container.NewGridWrap(fyne.NewSize(90, p.job.bar.MinSize().Height), p.job.bar))
	return container.NewHBox(p.job.runBtn, p.job.cancelBtn, bar, p.surely)
}

// reset forgets the intervals of an earlier run.
func (p *intervalPanel) reset() {
	p.job.onCancel()
	p.byMethod, p.failed = map[core.Method]*interval.Set{}, map[core.Method]error{}
}

// of returns the intervals of method, or nil.
func (p *intervalPanel) of(method core.Method) *interval.Set { return p.byMethod[method] }

// onIntervals starts the job: the intervals of the estimate shown, then
// of the run's other estimates in turn, each by the method interval.CI
// chooses for it (the profile likelihood for GIBU on a small map, else
// a parametric bootstrap of 200 replicates through the run's
// population). Cancel stops them; an
// estimator whose intervals fail says why in the status and the next
// follows.
func (c *compareTab) onIntervals() {
	res := c.res
	if res == nil || res.Groups == nil {
		return
	}
	m := c.nextIntervals()
	if m == nil {
		if len(c.iv.byMethod) > 0 {
			c.win.SetTitle(fmt.Sprintf("privmap — %s compared, with intervals", human.Plural(len(res.Succeeded()), "estimator", "estimators")))
		}
		return
	}
	p := c.iv
	method, est := m.Method, m.Estimate
	p.running = method
	ci := interval.CI{Level: intervalLevel, Seed: res.Seed}
	p.status.SetText(fmt.Sprintf("Computing the intervals of %s: %s (%s took %s)…",
		methodTitle(method), ci.Work(method, res.Study), methodTitle(method), m.Elapsed.Round(time.Millisecond)))
	if cur := c.current(); cur == nil || cur.Method == method {
		c.readings()
	}
	progress := p.job.timeLeft(p.status, func() bool { return c.res == res }, func() { c.readingsOf(method) })
	p.job.start(c.ws.ctx, func(ctx context.Context) func() {
		iv, err := interval.Of(ctx, method, res.Study, res.Mechs, res.Groups, est, res.Options, ci, progress)
		return func() { c.intervalsDone(res, method, iv, err) }
	})
}

// readingsOf updates the reading when method's estimate is shown.
func (c *compareTab) readingsOf(method core.Method) {
	if cur := c.current(); cur != nil && cur.Method == method {
		c.readings()
	}
}

// intervalsDone keeps the intervals of method in the run res (or why
// they failed) and starts the next estimate's; a cancelled job stops the
// chain, and a run shown meanwhile starts its own.
func (c *compareTab) intervalsDone(res *runResult, method core.Method, iv *interval.Set, err error) {
	p := c.iv
	if c.res != res {
		if c.res.intervals {
			c.onIntervals()
		}
		return
	}
	switch {
	case errors.Is(err, context.Canceled):
		p.job.bar.SetValue(0)
		p.status.SetText("Intervals cancelled: the estimates stand without them.")
		c.readings()
		return
	case err != nil:
		p.failed[method] = err
	default:
		p.byMethod[method] = iv
	}
	c.refresh()
	c.onIntervals()
}

// nextIntervals returns the estimate whose intervals come next: the one
// shown, else the first of the run without intervals, or nil.
func (c *compareTab) nextIntervals() *methodResult {
	p := c.iv
	todo := func(m methodResult) bool { return p.byMethod[m.Method] == nil && p.failed[m.Method] == nil }
	if m := c.current(); m != nil && todo(*m) {
		return m
	}
	for _, m := range c.res.Succeeded() {
		if todo(m) {
			return &m
		}
	}
	return nil
}

// describe says what the intervals of the estimate shown claim, or how
// to get them.
func (p *intervalPanel) describe(m *methodResult, st *core.Study, caveat string) string {
	a := st.Alphabet
	iv := p.of(m.Method)
	switch {
	case p.failed[m.Method] != nil:
		return fmt.Sprintf("No intervals for %s: %v", methodTitle(m.Method), p.failed[m.Method])
	case iv != nil:
		s := interval.Sentence(iv, a) + fmt.Sprintf(" Only cells surely not empty shows the cells whose band lies above 0: with %.0f%% confidence every one of them holds data.", 100*iv.Level)
		if caveat != "" {
			s += " Note: " + caveat + "."
		}
		return s
	case p.job.running && p.running == m.Method:
		return p.status.Text
	case p.job.running:
		return fmt.Sprintf("Computing the intervals of %s; those of %s follow.", methodTitle(p.running), methodTitle(m.Method))
	}
	return fmt.Sprintf("No intervals for %s: Intervals computes them (%s).", methodTitle(m.Method), interval.CI{}.Work(m.Method, st))
}

// fourthMap returns the map beside the three for the estimate m, or nil
// without intervals (triptych.boundsMap).
func (c *compareTab) fourthMap(m *methodResult, est *mapplot.Map) *mapplot.Map {
	iv := c.iv.of(m.Method)
	if iv == nil {
		c.iv.surely.Disable()
		return nil
	}
	c.iv.surely.Enable()
	b := bounds{iv.Lo, iv.Hi, iv.BandLo, iv.BandHi}
	return c.boundsMap(b, iv.Level, m.Estimate.Theta, est, "probability", c.iv.surely.Checked, intervalLegend(iv.Method, interval.CoverageHeld(m.Method, iv.Method, c.res.Study)))
}

// intervalText returns " (lo–hi)" for cell of the estimate shown, when
// it has intervals on a grid (a census view may sum categories, whose
// intervals do not add).
func (c *compareTab) intervalText(m *methodResult, cell int) string {
	iv := c.iv.of(m.Method)
	if iv == nil || c.ds.isCensus() || cell >= len(iv.Lo) {
		return ""
	}
	return fmt.Sprintf(" (%.4g–%.4g)", iv.Lo[cell], iv.Hi[cell])
}

// bound formats the bootstrap's bound on an error figure: " · at most
// 0.31 (95%)", or "" when there is none.
func bound(v float64, unit string, level float64) string {
	if math.IsNaN(v) {
		return ""
	}
	if unit != "" {
		unit = " " + unit
	}
	return fmt.Sprintf(" · at most %.3g%s (%.0f%%, bootstrap)", v, unit, 100*level)
}

// onCancel stops the intervals' job (Ctrl+., Escape).
func (c *compareTab) onCancel() { c.iv.job.onCancel() }

// intervalLegend names the intervals' method and, when measured, the
// share of the cells with people they held in the coverage experiment,
// for the uncertainty map's title: "profile interval" and on a line of
// its own "held 99% with people" (the windowed profile's "windowed
// profile").
func intervalLegend(method core.IntervalMethod, held string) string {
	name := string(method) + " interval"
	if method == core.IntervalLocalProfile {
		// As long as "profile interval": the title has room for no more.
		name = "windowed profile"
	}
	if held == "" {
		return name
	}
	return name + "\n" + held + " with people"
}

// intervalMethod returns the method of the intervals of m: those
// computed, or those Intervals would compute.
func (c *compareTab) intervalMethod(m *methodResult) core.IntervalMethod {
	if iv := c.iv.of(m.Method); iv != nil {
		return iv.Method
	}
	return interval.CI{}.MethodFor(m.Method, c.res.Study)
}
