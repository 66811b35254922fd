package gui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/privmap/privmap/app/guarantee"
	"github.com/privmap/privmap/app/human"
	"github.com/privmap/privmap/app/ledger"
	"github.com/privmap/privmap/app/mapplot"
	"github.com/privmap/privmap/app/output"
	"github.com/privmap/privmap/app/pipeline"
	"github.com/privmap/privmap/app/release"
	"github.com/privmap/privmap/app/studyfile"
	"github.com/privmap/privmap/core"
)

// Preference keys of the release screen.
const (
	prefRelMech  = "release.mechanism"
	prefRelEps   = "release.eps"
	prefRelIn    = "release.epsIn"
	prefRelOut   = "release.epsOut"
	prefRelBreak = "release.break"
	prefRelBound = "release.bound"
	prefRelSens  = "release.sensitivity"
	prefRelSeed  = "release.seed"
	prefRelScale = "release.scale"
	// prefRelMap: the uncertainty map shows beside the three.
	prefRelMap = "release.uncertaintyMap"
	// prefRelWithin is the ± counts the Release screen's plan asks for.
	prefRelWithin = "release.planWithin"
	// prefRelLedger is the ledger's database (default: the user's data
	// folder's, ledger.DefaultPath).
	prefRelLedger = "release.ledger"
)

// releaseNames name the mechanisms as the screen shows them.
var releaseNames = map[string]string{
	release.Laplace:     "Laplace",
	release.Geometric:   "geometric",
	release.PMLaplace:   "Laplace piecewise mixture",
	release.PMGeometric: "geometric piecewise mixture",
}

// releaseTab previews a central release of the data's counts (PM): the
// mechanism and its parameters, with the noise's privacy and accuracy
// and the standard mechanism of the same general privacy budget shown as
// they are typed; the true and released counts and their difference on
// the Compare screen's maps, with the release's errors; both exported.
type releaseTab struct {
	*triptych
	ctx context.Context
	app fyne.App
	win fyne.Window
	ws  *workspace

	mech *widget.Select
	// brk is a mixture's break-point, brk2 the standard mechanisms'
	// error bound.
	eps, epsIn, epsOut, brk, brk2 *widget.Entry
	sens, seed                    *widget.Entry
	secure                        *widget.Check
	stdForm, pmForm               *widget.Form
	summary                       *widget.Label
	matching                      *widget.Label
	errs                          *widget.Label
	// uncertain shows the uncertainty map beside the three (the maps are
	// small four to a row beside the noise's form), surely shows on it
	// the cells whose band excludes 0.
	uncertain, surely             *widget.Check
	releaseBtn, exportPNG, expCSV *widget.Button
	expGIS                        *widget.Button // the release as a GIS layer (layer.go)
	empty                         *widget.Label
	pmf                           *figureView
	last                          *releaseResult
	// job draws a release; Release is its Run button.
	job jobControls
	// clip keeps at most Δ records of each person rather than refusing
	// a person with more; people says whom the release protects.
	clip   *widget.Check
	people *widget.Label
	// ledgerPath names the organisation's ledger (app/ledger), which
	// counts the publications of every data set; db is it open (nil
	// until first asked, or when it cannot be), dbErr why not. budget is
	// the ε the data set shown may spend in all, set once in it.
	ledgerPath *widget.Entry
	db         *ledger.DB
	dbErr      error
	budget     *widget.Entry
	spent      *widget.Label
	// suppress is T: released counts of at most T are set to 0.
	suppress *widget.Entry
	// within is the ± counts a plan keeps every count within, plan the
	// ε it needs (release.PlanFor, as typed).
	within *widget.Entry
	plan   *widget.Label
	// summaries keeps the person summaries worked out, by spec and
	// cells: one person's average loss enumerates the ways her records
	// fall (up to a few tenths of a second), and the screen asks again
	// at every key typed.
	summaries map[summaryKey]release.Summary
}

// summaryKey names a person summary: a spec over a number of cells.
type summaryKey struct {
	spec  release.Spec
	cells int
}

// releaseResult is a release drawn from a data set's counts.
type releaseResult struct {
	ds       *dataset
	spec     release.Spec
	sum      release.Summary
	counts   *core.CountTable
	raw      []float64 // released, before clipping
	released []float64 // clipped at 0
	seed     uint64
	secure   bool
	// contrib says whom the release protects and what clipping dropped,
	// droppedCells and mostDropped in how many cells and at most how many
	// from one (a preview's; 0 in a publication).
	contrib                   guarantee.Contribution
	droppedCells, mostDropped int
	// entry is a publication's entry in the ledger (nil for a preview).
	entry *ledger.Entry
	// small counts the cells of one or two people, suppressed the
	// released counts of at most threshold set to 0.
	small, suppressed int
	threshold         float64
	// bounds are the true counts' 95% intervals and band (nil when the
	// noise has none).
	bounds *release.Bounds
	level  float64
}

func newReleaseTab(ws *workspace) *releaseTab {
	a := ws.app
	r := &releaseTab{triptych: newTriptych(ws, prefRelScale), ctx: ws.ctx, app: a, win: ws.win, ws: ws}
	r.redraw, r.describe = r.refresh, r.hoverText
	// A basemap that arrives, or a new opacity, redraws the maps.
	ws.tiles.onReady = append(ws.tiles.onReady, func() {
		if r.last != nil {
			r.refresh()
		}
	})
	ws.dataShown = append(ws.dataShown, r.dataShown)
	p := a.Preferences()
	var names []string
	for _, m := range release.Mechanisms {
		names = append(names, releaseNames[m])
	}
	number := func(pref, def string) *widget.Entry {
		e := widget.NewEntry()
		e.SetText(p.StringWithFallback(pref, def))
		e.OnChanged = func(string) { r.changed() }
		e.OnSubmitted = func(string) { r.onRelease() }
		return e
	}
	r.eps = number(prefRelEps, "0.5")
	r.epsIn = number(prefRelIn, "0.25")
	r.epsOut = number(prefRelOut, "2.5")
	r.brk = number(prefRelBreak, "6")
	r.brk2 = number(prefRelBound, "0")
	r.sens = number(prefRelSens, "1")
	r.seed = number(prefRelSeed, "1")
	r.secure = widget.NewCheck("exact noise from crypto/rand", func(bool) { r.changed() })
	r.clip = widget.NewCheck("keep at most Δ records of each person", func(bool) { r.changed() })
	r.people = widget.NewLabel("")
	r.people.Wrapping = fyne.TextWrapWord
	r.ledgerPath = widget.NewEntry()
	r.ledgerPath.SetText(p.String(prefRelLedger))
	if r.ledgerPath.Text == "" {
		if def, err := ledger.DefaultPath(); err == nil {
			r.ledgerPath.SetText(def)
		}
	}
	r.ledgerPath.OnSubmitted = func(v string) {
		a.Preferences().SetString(prefRelLedger, strings.TrimSpace(v))
		r.closeLedger()
		r.changed()
	}
	r.budget = widget.NewEntry()
	r.budget.SetPlaceHolder("none")
	r.budget.OnChanged = func(string) { r.changed() }
	r.suppress = widget.NewEntry()
	r.suppress.SetPlaceHolder("0: off")
	r.within = widget.NewEntry()
	r.within.SetText(p.StringWithFallback(prefRelWithin, "10"))
	r.within.OnChanged = func(v string) {
		a.Preferences().SetString(prefRelWithin, v)
		r.plan.SetText(r.planText())
	}
	r.plan = widget.NewLabel("")
	r.plan.Wrapping = fyne.TextWrapWord
	r.spent = widget.NewLabel("")
	r.spent.Wrapping = fyne.TextWrapWord
	r.summary = widget.NewLabel("")
	r.summary.Wrapping = fyne.TextWrapWord
	r.matching = widget.NewLabel("")
	r.matching.Wrapping = fyne.TextWrapWord
	r.errs = widget.NewLabel("No release yet.")
	r.uncertain = widget.NewCheck("Uncertainty map", func(on bool) {
		a.Preferences().SetBool(prefRelMap, on)
		r.refresh()
	})
	r.uncertain.Checked = a.Preferences().Bool(prefRelMap)
	r.surely = widget.NewCheck("Only cells surely not empty", func(bool) { r.refresh() })
	r.surely.Disable()
	r.pmf = newFigureView(fyne.NewSize(240, 160), nil)
	r.errs.Wrapping = fyne.TextWrapWord
	r.releaseBtn = &widget.Button{Text: "Release", Icon: theme.MediaPlayIcon(), Importance: widget.HighImportance, OnTapped: r.onRelease}
	r.job = jobControls{runBtn: r.releaseBtn}
	r.exportPNG = &widget.Button{Text: "Export PNG…", Icon: theme.DownloadIcon(), OnTapped: r.onExportPNG}
	r.expCSV = &widget.Button{Text: "Export CSV…", Icon: theme.DocumentSaveIcon(), OnTapped: r.onExportCSV}
	r.expGIS = &widget.Button{Text: "GIS layer…", Icon: theme.DocumentSaveIcon(), OnTapped: r.onExportLayer}
	r.empty = widget.NewLabel("Choose a mechanism and press Release to see the data's counts released.")
	r.mech = widget.NewSelect(names, func(string) { r.changed() })
	r.mech.SetSelected(choice(releaseNames[p.String(prefRelMech)], names, releaseNames[release.PMGeometric]))
	return r
}

func (r *releaseTab) buildUI() fyne.CanvasObject {
	// One form per kind of mechanism, shown as the mechanism is chosen.
	r.stdForm = widget.NewForm(widget.NewFormItem("ε", r.eps), widget.NewFormItem("Error bound", r.brk2))
	r.stdForm.Items[1].HintText = "counts within it of the truth are called accurate below"
	r.pmForm = widget.NewForm(
		widget.NewFormItem("ε within", r.epsIn),
		widget.NewFormItem("ε beyond", r.epsOut),
		widget.NewFormItem("Break-point c", r.brk),
	)
	r.pmForm.Items[0].HintText = "scale Δ/ε for |noise| ≤ c"
	r.pmForm.Items[1].HintText = "scale Δ/ε beyond c"
	common := widget.NewForm(
		widget.NewFormItem("Sensitivity Δ", r.sens),
		widget.NewFormItem("People", r.clip),
		widget.NewFormItem("Seed", r.seed),
		widget.NewFormItem("Publication", r.secure),
		widget.NewFormItem("Budget ε", r.budget),
		widget.NewFormItem("Suppress ≤", r.suppress),
		widget.NewFormItem("Ledger", r.ledgerPath),
	)
	common.Items[0].HintText = "how much one person changes a count"
	common.Items[4].HintText = "the ε all publications of these data may spend, set once"
	common.Items[5].HintText = "set to 0 after the noise: no privacy cost"
	common.Items[6].HintText = "the organisation's ledger (Enter opens another)"
	// What the noise gives shows beside its parameters as they are
	// typed; the release's maps and errors beside the noise's PMF.
	left := container.NewVBox(
		widget.NewCard("", "Noise", container.NewVBox(
			widget.NewForm(widget.NewFormItem("Mechanism", roomy(r.mech))), r.stdForm, r.pmForm, common)),
		widget.NewCard("", "Privacy and accuracy of the noise", container.NewVBox(r.people, r.summary, r.matching, r.spent)),
		widget.NewCard("", "Plan: which ε for an accuracy?", container.NewVBox(
			widget.NewForm(widget.NewFormItem("Every count within ±", r.within)), r.plan)))
	bar := container.NewHBox(r.releaseBtn, widget.NewLabel("Colour"), roomy(r.scale), r.censusView, layout.NewSpacer(), r.exportPNG, r.expCSV, r.expGIS)
	below := container.NewHSplit(
		container.NewVScroll(widget.NewCard("", "Errors of the release", container.NewVBox(r.uncertain, r.surely, r.errs))),
		widget.NewCard("", "Noise on one count", r.pmf))
	below.Offset = 0.4
	split := container.NewHSplit(container.NewVScroll(left), container.NewBorder(bar, nil, nil, nil, r.layout(container.NewCenter(r.empty), below)))
	split.Offset = 0.28
	r.changed()
	return split
}

// spec reads the entries.
func (r *releaseTab) spec() (release.Spec, error) {
	var s release.Spec
	for m, name := range releaseNames {
		if name == r.mech.Selected {
			s.Mechanism = m
		}
	}
	num := func(name string, e *widget.Entry) (float64, error) {
		v, err := strconv.ParseFloat(strings.TrimSpace(e.Text), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("%s %q: want a number", name, e.Text)
		}
		return v, nil
	}
	var err error
	if s.Mixture() {
		if s.EpsIn, err = num("ε within", r.epsIn); err != nil {
			return s, err
		}
		if s.EpsOut, err = num("ε beyond", r.epsOut); err != nil {
			return s, err
		}
		if s.Break, err = num("Break-point", r.brk); err != nil {
			return s, err
		}
	} else {
		if s.EpsIn, err = num("ε", r.eps); err != nil {
			return s, err
		}
		s.EpsOut = s.EpsIn
	}
	d, err := num("Sensitivity", r.sens)
	if err != nil {
		return s, err
	}
	if d != math.Trunc(d) || d < 1 || d > release.MaxSensitivity {
		return s, fmt.Errorf("%s %q: want a whole number from 1 to %s", "Sensitivity", r.sens.Text, human.Thousands(release.MaxSensitivity))
	}
	s.Sensitivity = int(d)
	return s, s.Validate()
}

// changed shows the entries of the mechanism chosen and what its noise
// gives, as they are typed, and remembers them.
func (r *releaseTab) changed() {
	if r.pmForm == nil {
		return
	}
	s, err := r.spec()
	if s.Mixture() {
		r.stdForm.Hide()
		r.pmForm.Show()
	} else {
		r.pmForm.Hide()
		r.stdForm.Show()
	}
	// Only geometric noise is drawn exactly, for publication.
	if s.Discrete() {
		r.secure.Enable()
	} else {
		r.secure.SetChecked(false)
		r.secure.Disable()
	}
	r.seed.Enable()
	if r.secure.Checked {
		r.seed.Disable()
	}
	r.savePrefs(s)
	r.plan.SetText(r.planText())
	r.people.SetText(r.peopleText(s))
	r.spent.SetText(r.spentText())
	if err != nil {
		r.summary.SetText(err.Error())
		r.matching.SetText("")
		r.pmf.set(nil)
		return
	}
	sum, err := r.summaryOf(s)
	if err != nil {
		r.summary.SetText(err.Error())
		r.pmf.set(nil)
		return
	}
	known := true
	if ds := r.ws.data; ds != nil {
		known = ds.personStudy().Unit() == "person"
	}
	r.summary.SetText(summaryText(sum) + "\n" + release.Reading(sum, guarantee.Contribution{Sensitivity: s.Sensitivity, Known: known}))
	std, ok := s, false
	if s.Mixture() {
		if m, err := s.Matching(); err == nil {
			std, ok = m, true
		}
	}
	r.matching.SetText(r.matchingText(s, sum, std, ok))
	curves, err := noiseCurves(s, std, ok)
	if err != nil {
		r.pmf.set(nil)
		return
	}
	mark := "break-point"
	if !s.Mixture() {
		mark = "error bound"
	}
	c := r.brkValue(s)
	r.pmf.set(func(st mapplot.Style) (imager, error) {
		p, err := mapplot.NoisePlot(st, c, mark, curves...)
		return mapplot.StyledPlot{Plot: p, Style: st}, err
	})
}

// noisePoints is about how many values of the noise a curve of its PMF
// has: every whole number up to its span, or as many spread over it.
const noisePoints = 601

// noiseCurves returns the PMF of a release's noise over its 99.9% span,
// and, with withStd, that of the standard mechanism of the same budget.
func noiseCurves(s, std release.Spec, withStd bool) ([]mapplot.NoiseCurve, error) {
	specs := []release.Spec{s}
	labels := []string{releaseNames[s.Mechanism]}
	if withStd {
		specs = append(specs, std)
		labels = append(labels, fmt.Sprintf("%s, ε = %s (same budget)", releaseNames[std.Mechanism], roundText(std.EpsIn, 3)))
	} else {
		labels[0] += ", ε = " + roundText(s.EpsIn, 3)
	}
	noises := make([]release.Noise, len(specs))
	span := 1
	for i, sp := range specs {
		n, err := sp.Noise()
		if err != nil {
			return nil, err
		}
		noises[i] = n
		span = max(span, release.Span(n, 0.999))
	}
	step := max(1, (2*span+noisePoints-2)/(noisePoints-1))
	var ks []int
	for k := -(span / step) * step; k <= span; k += step {
		ks = append(ks, k)
	}
	curves := make([]mapplot.NoiseCurve, len(specs))
	for i, n := range noises {
		curves[i] = mapplot.NoiseCurve{Label: labels[i], K: ks, P: make([]float64, len(ks))}
		for j, k := range ks {
			curves[i].P[j] = n.PMF(k)
		}
	}
	return curves, nil
}

// summaryText describes a noise's privacy and accuracy.
func summaryText(sum release.Summary) string {
	return fmt.Sprintf("Worst-case ε %s · general privacy budget %s (PM Table I's reading: %s)\nE|noise| %s · variance %s · entropy %s nats",
		roundText(sum.WorstEps, 4), roundText(sum.Budget, 4), roundText(sum.BudgetPM, 4),
		roundText(sum.AbsMean, 4), roundText(sum.Variance, 4), roundText(sum.Entropy, 4))
}

// matchingText compares a mixture with the standard mechanism of its
// family that has the same general privacy budget, std, when ok — and
// says both worst cases, which the same budget does not make equal: a
// smaller noise at a weaker worst case is said to be one.
func (r *releaseTab) matchingText(s release.Spec, sum release.Summary, std release.Spec, ok bool) string {
	if !ok {
		return ""
	}
	ss, err := r.summaryOf(std)
	if err != nil {
		return ""
	}
	text := fmt.Sprintf("The %s mechanism with the same budget has ε = %s: E|noise| %s, variance %s — the mixture's noise is %s.",
		releaseNames[std.Mechanism], roundText(std.EpsIn, 4), roundText(ss.AbsMean, 4), roundText(ss.Variance, 4),
		compareNoise(sum.AbsMean, ss.AbsMean))
	switch {
	case sum.WorstEps > ss.WorstEps*(1+1e-9):
		text += fmt.Sprintf(" But its worst case is ε %s against the %s mechanism's %s: a weaker guarantee.", human.Eps(sum.WorstEps), releaseNames[std.Mechanism], human.Eps(ss.WorstEps))
	case sum.WorstEps < ss.WorstEps*(1-1e-9):
		text += fmt.Sprintf(" Its worst case is ε %s against the %s mechanism's %s: a stronger guarantee too.", human.Eps(sum.WorstEps), releaseNames[std.Mechanism], human.Eps(ss.WorstEps))
	}
	return text
}

// compareNoise says how a noise's E|noise| compares with another's.
func compareNoise(a, b float64) string {
	switch {
	case a < b:
		return fmt.Sprintf("%s%% smaller", roundText(100*(1-a/b), 3))
	case a > b:
		return fmt.Sprintf("%s%% larger", roundText(100*(a/b-1), 3))
	}
	return "as large"
}

// savePrefs remembers the entries.
func (r *releaseTab) savePrefs(s release.Spec) {
	p := r.app.Preferences()
	if s.Mechanism != "" {
		p.SetString(prefRelMech, s.Mechanism)
	}
	for pref, e := range map[string]*widget.Entry{prefRelEps: r.eps, prefRelIn: r.epsIn, prefRelOut: r.epsOut,
		prefRelBreak: r.brk, prefRelBound: r.brk2, prefRelSens: r.sens, prefRelSeed: r.seed} {
		p.SetString(pref, e.Text)
	}
}

// onRelease draws the release off the UI goroutine.
func (r *releaseTab) onRelease() {
	if r.job.running {
		return
	}
	ds := r.ws.data
	if ds == nil {
		showError(r.win, errors.New("no data are loaded"), "Open a check-in or census file on the Data screen, then release its counts.")
		return
	}
	s, err := r.spec()
	if err != nil {
		showError(r.win, err, "Correct it on the Release screen and release again.")
		return
	}
	seed, err := optWhole("Seed", r.seed)
	if err != nil {
		showError(r.win, err, "Correct it on the Release screen and release again.")
		return
	}
	secure := r.secure.Checked
	counts, contrib, err := r.personCounts(ds, s, seed)
	if err != nil {
		showError(r.win, err, "Nothing was released; change Δ or keep at most Δ records of each person.")
		return
	}
	if secure && !contrib.InAdvance() {
		showError(r.win, guarantee.ErrBoundFromData, "Nothing was published. Tick “keep at most Δ records of each person” with the Δ you choose, or grid with a bound on each person's check-ins.")
		return
	}
	db, err := r.openLedger()
	if err != nil && (secure || r.budgetValue() > 0) {
		showError(r.win, err, "Nothing was released. Restore the ledger from a copy, or name another on the Release screen.")
		return
	}
	if !r.setBudget(db) {
		return
	}
	threshold, err := optNumber("Suppress ≤", r.suppress)
	if err != nil {
		showError(r.win, err, "Correct it on the Release screen and release again.")
		return
	}
	d := releaseDraw{ds: ds, spec: s, counts: counts, contrib: contrib, seed: uint64(seed), secure: secure, threshold: threshold, db: db, dataset: r.dataset()}
	r.job.start(r.ctx, func(ctx context.Context) func() {
		res, err := guarded(func() (*releaseResult, error) { return d.draw(ctx) })
		return func() { r.finish(res, err) }
	})
}

// releaseDraw is a release to draw off the UI goroutine: the data set's
// counts at the spec's Δ, how to draw, and the ledger a publication
// spends in.
type releaseDraw struct {
	ds        *dataset
	spec      release.Spec
	counts    *core.CountTable
	contrib   guarantee.Contribution
	seed      uint64
	secure    bool
	threshold float64
	db        *ledger.DB
	dataset   string
}

// draw draws the release: the noise, the 95% bounds the file carries,
// the suppression, and for a publication its entry in the ledger.
func (d releaseDraw) draw(ctx context.Context) (*releaseResult, error) {
	s, counts := d.spec, d.counts
	sum, err := s.PersonSummary(len(counts.Counts))
	if err != nil {
		return nil, err
	}
	raw, err := release.Counts(ctx, counts.Counts, s, d.seed, d.secure)
	if err != nil {
		return nil, err
	}
	sup := release.Suppressible(raw, d.threshold)
	var bounds *release.Bounds
	if iv, err := s.Interval(len(raw), intervalLevel); err == nil {
		b := iv.Bounds(raw, sup, d.threshold)
		bounds = &b
		// The file carries them, as privmap release -ci 0.95 writes.
		counts.Bounds = func(x int, _ float64) (float64, float64, float64, float64) {
			return b.Lo[x], b.Hi[x], b.BandLo[x], b.BandHi[x]
		}
	}
	n := release.Suppress(raw, d.threshold)
	if n > 0 {
		counts.Notes = append(counts.Notes, release.Notes(guarantee.Contribution{}, n, d.threshold)...)
	}
	clipped, _ := release.Clip(raw)
	res := &releaseResult{ds: d.ds, spec: s, sum: sum, counts: counts, raw: raw, released: clipped, seed: d.seed, secure: d.secure,
		contrib: d.contrib, small: d.contrib.SmallCells, suppressed: n, threshold: d.threshold, bounds: bounds, level: intervalLevel}
	if d.secure {
		res.entry, err = d.spend(ctx, sum, raw)
		return res, err
	}
	// A preview may say where clipping dropped records.
	res.droppedCells, res.mostDropped = guarantee.DroppedCells(guarantee.DataCounts(d.ds.personStudy()), counts.Counts)
	return res, nil
}

// spend records a publication of the released counts raw: the budget
// checked and its ε spent on these people in one transaction of the
// ledger.
func (d releaseDraw) spend(ctx context.Context, sum release.Summary, raw []float64) (*ledger.Entry, error) {
	var csv bytes.Buffer
	if err := release.Write(&csv, d.counts, raw); err != nil {
		return nil, err
	}
	e, err := d.db.Spend(ctx, d.dataset, sum.WorstEps, ledger.Entry{Mechanism: d.spec.Mechanism, Sensitivity: d.spec.Sensitivity,
		Output: "drawn in the window (Export CSV… writes it)", OutputSHA256: output.BytesDigest("", csv.Bytes()).SHA256})
	if err != nil {
		return nil, err
	}
	return &e, nil
}

// accuracy returns what besides the noise sets the release's errors.
func (res *releaseResult) accuracy() release.Accuracy {
	return release.Accuracy{Suppressed: res.suppressed, Threshold: res.threshold, Dropped: res.contrib.Dropped, Sensitivity: res.contrib.Sensitivity,
		DroppedCells: res.droppedCells, MostDropped: res.mostDropped}
}

// finish shows a release.
func (r *releaseTab) finish(res *releaseResult, err error) {
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			showError(r.win, err, "Nothing was released.")
		}
		return
	}
	r.last = res
	if res.secure {
		r.changed() // what is spent and left
	}
	r.setData(res.ds)
	r.showMaps()
	c := r.brkValue(res.spec)
	mae, mre, within := release.Errors(res.counts.Counts, res.released, c)
	how := fmt.Sprintf("A preview: seeded noise (seed %d), not for publication and not spent.", res.seed)
	if res.secure {
		how = fmt.Sprintf("Exact integer noise from crypto/rand, fit for publication; its ε is spent on these people (ledger entry %d).", res.entry.Seq)
	}
	if iv, err := res.spec.Interval(len(res.raw), intervalLevel); err == nil {
		of := "true"
		if res.contrib.Dropped > 0 {
			of = "clipped"
		}
		how += "\n" + iv.Statement(res.accuracy()) + " The uncertainty map gives each " + of + " count's interval; Only cells surely not empty keeps the cells whose band lies above 0."
	}
	if res.suppressed > 0 {
		how += fmt.Sprintf("\n%s of at most %s set to 0: post-processing of the noisy counts, which costs no privacy.",
			human.Plural(res.suppressed, "released count", "released counts"), roundText(res.threshold, 6))
	}
	if res.small > 0 {
		how += fmt.Sprintf("\n%s hold only one or two people: their released counts are mostly noise, and a reader may take them for people.",
			human.Plural(res.small, "cell", "cells"))
	}
	r.errs.SetText(fmt.Sprintf("Mean absolute error %s\nMean relative error beyond %s: %s\nWithin %s of the truth: %s%% of the %s cells\n%s",
		roundText(mae, 4), roundText(c, 4), roundText(mre, 4), roundText(c, 4), roundText(100*within, 4),
		human.Thousands(len(res.raw)), how))
	r.refresh()
}

// brkValue is the error bound of a release's errors: the mixtures'
// break-point, else the bound typed.
func (r *releaseTab) brkValue(s release.Spec) float64 {
	if s.Mixture() {
		return s.Break
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(r.brk2.Text), 64)
	if err != nil || !(v >= 0) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// figureMaps returns the true and released counts' maps and their
// difference.
func (r *releaseTab) figureMaps() [3]*mapplot.Map {
	res := r.last
	ms := r.triptych.figureMaps(res.counts.Counts, res.released, [2]string{"True counts", "Released counts"}, "count")
	ms[2].Title = "Released − true"
	return ms
}

// refresh redraws the maps of the last release.
func (r *releaseTab) refresh() {
	if r.last == nil {
		r.clear()
		return
	}
	ms := r.figureMaps()
	extra := r.fourthMap(ms[1])
	if extra != nil {
		// Four maps share the row: titles that fit them.
		ms[0].Title, ms[1].Title, ms[2].Title = "True", "Released", "Difference"
	}
	r.show3(ms, extra)
}

// fourthMap returns the uncertainty map of the last release
// (triptych.boundsMap), or nil without intervals or unasked.
func (r *releaseTab) fourthMap(released *mapplot.Map) *mapplot.Map {
	res := r.last
	if res.bounds == nil || !r.uncertain.Checked {
		r.surely.Disable()
		return nil
	}
	r.surely.Enable()
	b := res.bounds
	return r.boundsMap(bounds{b.Lo, b.Hi, b.BandLo, b.BandHi}, res.level, res.released, released, "count", r.surely.Checked, "")
}

// hoverText describes the cell under the mouse: its place, true and
// released count.
func (r *releaseTab) hoverText(cell int) string {
	res := r.last
	if cell < 0 || res == nil || r.maps[0].Map == nil {
		return "Hover over a cell to see its true and released count."
	}
	within := ""
	if b := res.bounds; b != nil && !r.ds.isCensus() {
		within = fmt.Sprintf(", the true count %s–%s at %.0f%%", strconv.FormatFloat(b.Lo[cell], 'f', -1, 64),
			strconv.FormatFloat(b.Hi[cell], 'f', -1, 64), 100*res.level)
	}
	return fmt.Sprintf("%s · true %s · released %s (raw %s%s) · difference %+g", r.place(cell),
		human.Thousands(int(res.counts.Counts[cell])), human.Thousands(int(res.released[cell])),
		strconv.FormatFloat(res.raw[cell], 'f', -1, 64), within, res.released[cell]-res.counts.Counts[cell])
}

// notes describe a release for an exported figure's heading.
func (r *releaseTab) notes() []string {
	res := r.last
	s := res.spec
	mech := fmt.Sprintf("Release: %s, ", releaseNames[s.Mechanism])
	if s.Mixture() {
		mech += fmt.Sprintf("ε %s within the break-point %s, %s beyond", roundText(s.EpsIn, 6), roundText(s.Break, 6), roundText(s.EpsOut, 6))
	} else {
		mech += "ε " + roundText(s.EpsIn, 6)
	}
	mech += fmt.Sprintf(", sensitivity %d", s.Sensitivity)
	if res.secure {
		mech += " · crypto/rand"
	} else {
		mech += fmt.Sprintf(" · preview, seed %d", res.seed)
	}
	return []string{dataNote(res.ds), mech, strings.ReplaceAll(summaryText(res.sum), "\n", " · "),
		release.Reading(res.sum, guarantee.Contribution{Sensitivity: s.Sensitivity, Known: true}), r.spentText(),
		"Colour scale: " + r.colourScale().String() + " · " + basemapNote(r.maps[0].Map)}
}

// onExportPNG exports the maps of the last release.
func (r *releaseTab) onExportPNG() {
	res := r.last
	if res == nil {
		dialog.ShowInformation("Nothing to export", "Release the data's counts first.", r.win)
		return
	}
	views := exportViews
	if res.bounds != nil {
		views = append(slices.Clone(views), viewUnc)
	}
	showPNGExport(r.win, r.app, exportPath(r.app, res.ds.src, "-"+res.spec.Mechanism+".png"), views, func(view string) *mapplot.Figure {
		ms := r.figureMaps()
		extra := r.fourthMap(ms[1])
		title := map[string]string{viewTrue: "true counts", viewEst: "released counts", viewDiff: "released − true", viewUnc: "uncertainty"}[view]
		if title == "" {
			title = "true | released counts | difference"
			if extra != nil {
				title += " | uncertainty"
			}
		}
		return &mapplot.Figure{Notes: r.notes(), Title: res.ds.src.name + ": " + title, Maps: viewMaps(ms, extra, view)}
	}, res.ds.src.path)
}

// onExportCSV writes the last release as privmap release writes it.
func (r *releaseTab) onExportCSV() {
	res := r.last
	if res == nil {
		dialog.ShowInformation("Nothing to export", "Release the data's counts first.", r.win)
		return
	}
	entry, path := pathEntry(r.win, exportPath(r.app, res.ds.src, "-"+res.spec.Mechanism+".csv"), []string{".csv"})
	showPathForm(r.win, "Export the released counts as CSV", "Export", path, entry, nil, func(name string) error {
		rememberFolder(r.app, name)
		return r.writeCSV(name)
	})
}

// writeCSV writes the last release to name.
func (r *releaseTab) writeCSV(name string) error {
	res := r.last
	return output.WriteFile(name, func(w io.Writer) error { return release.Write(w, res.counts, res.raw) }, res.ds.src.path)
}

// dataShown takes Δ from a new data set — the bound on each person's
// data, or the most one of them contributes — and shows its account in
// the ledger.
func (r *releaseTab) dataShown(ds *dataset) {
	delta, _ := ds.personStudy().Sensitivity()
	r.sens.SetText(strconv.Itoa(delta))
	r.showBudget()
	r.changed()
}

// personCounts returns the counts of ds to release at the spec's Δ: each
// person's records beyond Δ refused, or clipped (seeded) when asked.
func (r *releaseTab) personCounts(ds *dataset, s release.Spec, seed int) (*core.CountTable, guarantee.Contribution, error) {
	t := ds.countTable()
	counts, c, err := guarantee.StudyCounts(ds.personStudy(), s.Sensitivity, r.clip.Checked, pipeline.NewRand(uint64(seed)))
	if err != nil {
		return nil, c, err
	}
	t.Counts = counts
	t.Notes = release.Notes(c, 0, 0)
	return t, c, nil
}

// dataset names the data set shown in the ledger: its file's name.
func (r *releaseTab) dataset() string {
	if ds := r.ws.data; ds != nil {
		return ds.src.name
	}
	return ""
}

// openLedger returns the ledger's database, opening it the first time:
// nil and why when it cannot be opened or its chain is broken (a
// *ledger.TamperError, with which nothing may spend).
func (r *releaseTab) openLedger() (*ledger.DB, error) {
	if r.db == nil && r.dbErr == nil {
		path := strings.TrimSpace(r.ledgerPath.Text)
		db, err := ledger.Open(r.ctx, path)
		r.db, r.dbErr = db, err
		if db != nil && err != nil {
			db.Close()
			r.db = nil
		}
	}
	return r.db, r.dbErr
}

// closeLedger closes the ledger, to be opened again when asked (another
// path named).
func (r *releaseTab) closeLedger() {
	if r.db != nil {
		r.db.Close()
	}
	r.db, r.dbErr = nil, nil
}

// budgetValue returns the budget typed, 0 for none.
func (r *releaseTab) budgetValue() float64 {
	v, err := strconv.ParseFloat(strings.TrimSpace(r.budget.Text), 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// setBudget sets the budget typed in the ledger: once; a higher one
// only when the officer confirms the raise, an entry of its own. It
// reports whether the release may go on.
func (r *releaseTab) setBudget(db *ledger.DB) bool {
	b := r.budgetValue()
	if b == 0 || db == nil {
		return true
	}
	err := db.SetBudget(r.ctx, r.dataset(), b, false, ledger.Entry{})
	if errors.Is(err, ledger.ErrRaise) {
		dialog.ShowConfirm("Raise the budget?", fmt.Sprintf("%v.\n\nRaise the budget of %q to ε = %s? The ledger records the raise as an entry of its own.",
			err, r.dataset(), human.Eps(b)), func(ok bool) {
			if !ok {
				r.showBudget()
				return
			}
			if err := db.SetBudget(r.ctx, r.dataset(), b, true, ledger.Entry{}); err != nil {
				showError(r.win, err, "The budget stays as it was.")
				return
			}
			r.changed()
		}, r.win)
		return false
	}
	if err != nil {
		showError(r.win, err, "Nothing was released.")
		return false
	}
	return true
}

// showBudget sets the budget entry from the ledger's account of the data
// set shown.
func (r *releaseTab) showBudget() {
	r.budget.SetText("")
	if db, err := r.openLedger(); err == nil {
		if st, err := db.Status(r.ctx, r.dataset()); err == nil && st.Budget != nil {
			r.budget.SetText(ledger.RatString(st.Budget))
		}
	}
}

// summaryOf returns the summary of a release of s: a person's loss over
// every way her records fall among the cells of the data shown, or one
// count's when none are loaded.
func (r *releaseTab) summaryOf(s release.Spec) (release.Summary, error) {
	ds := r.ws.data
	if ds == nil {
		return s.Summary()
	}
	k := summaryKey{s, ds.studyAlphabet().Len()}
	if sum, ok := r.summaries[k]; ok {
		return sum, nil
	}
	sum, err := s.PersonSummary(k.cells)
	if err == nil {
		if r.summaries == nil || len(r.summaries) > 64 {
			r.summaries = map[summaryKey]release.Summary{}
		}
		r.summaries[k] = sum
	}
	return sum, err
}

// A ledgerAccount is a data set's account in the ledger when a report
// is written: the database's path and the data set's status.
type ledgerAccount struct {
	path   string
	status ledger.Status
}

// ledgerRef returns the data set shown's account, nil when the ledger
// cannot be read.
func (r *releaseTab) ledgerRef() *ledgerAccount {
	db, err := r.openLedger()
	if err != nil {
		return nil
	}
	st, err := db.Status(r.ctx, r.dataset())
	if err != nil {
		return nil
	}
	return &ledgerAccount{path: db.Path(), status: st}
}

// putStudy writes nothing of the ledger into the study: the ledger is
// the organisation's database.
func (r *releaseTab) putStudy(*studyfile.Study) error { return nil }

// takeStudy imports a study's ledger member, written before the
// ledger's database, into it once, under the data set's name.
func (r *releaseTab) takeStudy(s *studyfile.Study) {
	defer r.showBudget()
	if s.Ledger == nil || len(s.Ledger.Entries) == 0 && s.Ledger.Budget == 0 {
		return
	}
	db, err := r.openLedger()
	if err != nil {
		return
	}
	dataset := r.dataset()
	if s.Source != nil && s.Source.Path != "" {
		dataset = filepath.Base(s.Source.Path)
	}
	if _, err := s.Ledger.Import(r.ctx, db, dataset, ""); err != nil {
		showError(r.win, err, "The study's ledger was not imported.")
	}
}

// onCancel stops a release being drawn.
func (r *releaseTab) onCancel() { r.job.onCancel() }

// onRun draws a release (Run › Run, Ctrl+R, on this screen).
func (r *releaseTab) onRun() { r.onRelease() }

// tab names the Release screen.
func (r *releaseTab) tab() (string, fyne.Resource) { return "Release", theme.UploadIcon() }

// shown fits the maps now that the screen has its size.
func (r *releaseTab) shown() { r.fitSplit() }

// peopleText says whom a release at the spec's Δ protects, and whether a
// person of the data set shown has more records than Δ.
func (r *releaseTab) peopleText(s release.Spec) string {
	ds := r.ws.data
	if ds == nil || s.Sensitivity < 1 {
		return ""
	}
	people, most := ds.persons()
	ps := ds.personStudy()
	c := guarantee.ContributionOf(ps, most, s.Sensitivity, r.clip.Checked)
	if !c.Known {
		return fmt.Sprintf("%s records; the data do not say who contributed which. Neighbours: %s.", human.Thousands(len(ps.Data)), c.Neighbours())
	}
	text := fmt.Sprintf("%s people, at most %s of one. Neighbours: %s.", human.Thousands(people), human.Plural(most, "record", "records"), c.Neighbours())
	if most > s.Sensitivity {
		if r.clip.Checked {
			return text + fmt.Sprintf(" Each person keeps %d of her records (a seeded draw); the rest are dropped.", s.Sensitivity)
		}
		return text + fmt.Sprintf(" A person has %s records, more than Δ = %d: the release is refused unless each keeps at most Δ.", human.Thousands(most), s.Sensitivity)
	}
	if !c.InAdvance() {
		text += " Δ is not a bound fixed before the data were read: a preview only, not a differential-privacy guarantee. To publish, tick “keep at most Δ records of each person”."
	}
	return text
}

// spentText says what publications of the data set shown have spent.
func (r *releaseTab) spentText() string {
	db, err := r.openLedger()
	if err != nil {
		return "Ledger: " + err.Error()
	}
	st, err := db.Status(r.ctx, r.dataset())
	if err != nil {
		return "Ledger: " + err.Error()
	}
	text := fmt.Sprintf("Publications of %q have spent ε = %s in all (%d published; their ε add up for every person). Previews spend nothing.",
		st.Dataset, ledger.RatString(st.Spent), st.Publications)
	if st.Budget != nil {
		left := new(big.Rat).Sub(st.Budget, st.Spent)
		if left.Sign() < 0 {
			left.SetInt64(0)
		}
		text += fmt.Sprintf(" Budget: ε = %s, %s left.", ledger.RatString(st.Budget), ledger.RatString(left))
	}
	text += fmt.Sprintf("\nLedger %s, chain head %.12s…", db.Path(), st.Head)
	// The data set's last entries.
	es := st.Entries
	if len(es) > 4 {
		text += fmt.Sprintf("; %d entries, the last 4:", len(es))
		es = es[len(es)-4:]
	}
	for _, e := range es {
		date, _, _ := strings.Cut(e.Date, "T")
		switch e.Kind {
		case ledger.KindPublication:
			text += fmt.Sprintf("\n%d · %s · %s ε %s (Δ %d) by %s", e.Seq, date, e.Mechanism, e.Epsilon, e.Sensitivity, e.Who)
		default:
			text += fmt.Sprintf("\n%d · %s · %s ε %s by %s", e.Seq, date, e.Kind, e.Budget, e.Who)
		}
	}
	return text
}

// planText answers the Release screen's plan as typed: the ε that keeps
// every count of the data shown (and each alone) within ±T at 95%, for
// the mechanism chosen, or why there is none.
func (r *releaseTab) planText() string {
	ds := r.ws.data
	if ds == nil {
		return "Load data to plan their release."
	}
	t, err := strconv.Atoi(strings.TrimSpace(r.within.Text))
	if err != nil || t < 0 {
		return fmt.Sprintf("±%q: want a whole number of counts, such as 10.", r.within.Text)
	}
	s, err := r.spec()
	if err != nil {
		return "Correct the noise above to plan it."
	}
	rp, err := release.PlanFor(s, ds.studyAlphabet().Len(), intervalLevel, t)
	if err != nil {
		return err.Error()
	}
	return rp.Sentence()
}
