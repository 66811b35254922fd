package gui

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/privmap/privmap/app/human"
	"github.com/privmap/privmap/app/interval"
	"github.com/privmap/privmap/app/pipeline"
	"github.com/privmap/privmap/app/studyfile"
	"github.com/privmap/privmap/core"
)

// runMethods are the estimators the run screen offers, in the order of
// core's registry: every one that takes the users of several mechanisms
// (core.Estimator.Offered).
func runMethods() []core.Method {
	var out []core.Method
	for _, e := range core.Estimators() {
		if e.Offered() {
			out = append(out, e.Method)
		}
	}
	return out
}

// Preference keys of the run screen.
const (
	prefRunMethods = "run.methods"
	prefRunTol     = "run.tol"
	prefRunMaxIter = "run.maxIter"
	prefRunPost    = "run.post"
	prefRunAlpha   = "run.alpha"
	prefRunUsers   = "run.users"
	prefRunSeed    = "run.seed"
	prefRunSignif  = "run.significance"
	prefRunPrinted = "run.printedHessian"
	// prefRunIntervals: the Compare screen computes each estimate's
	// intervals after a run.
	prefRunIntervals = "run.intervals"
)

// Post-processing choices as shown.
var postChoices = map[string]core.Post{
	"project onto the simplex": core.PostProj,
	"clip and renormalise":     core.PostNorm,
	"none":                     core.PostNone,
}

// runTab chooses the estimators and their options, simulates the users'
// reports and runs the estimators off the UI goroutine with progress and
// cancel.
type runTab struct {
	ctx context.Context
	app fyne.App
	win fyne.Window
	ws  *workspace
	// estimate is core.Reconstruct, and cost pipeline.EstimateCost, but for
	// tests.
	estimate pipeline.Estimator
	cost     func(pipeline.Request) pipeline.Cost
	// costDialog is the warning before a long run, while it shows.
	costDialog *dialog.CustomDialog

	checks             map[core.Method]*widget.Check
	tol, maxIter       *widget.Entry
	alpha, users, seed *widget.Entry
	signif             *widget.Entry
	printed            *widget.Check
	intervals          *widget.Check
	post               *widget.Select
	stage, detail      *widget.Label
	summary            *widget.Label
	// why says which estimators do not apply to the population, and why.
	why *widget.Label
	// costs says what each ticked estimator is expected to take here.
	costs *widget.Label
	// plan answers how many users, or which ε, an accuracy needs; it
	// is the last card of scroll, the screen's body.
	plan   *planPanel
	scroll *container.Scroll

	jobControls
}

func newRunTab(ws *workspace) *runTab {
	r := &runTab{ctx: ws.ctx, app: ws.app, win: ws.win, ws: ws, estimate: core.Reconstruct, cost: pipeline.EstimateCost, checks: map[core.Method]*widget.Check{}}
	// The estimators offered follow the population.
	ws.populationChanged = append(ws.populationChanged, r.updateEstimators)
	p := r.app.Preferences()
	chosen := strings.Split(p.StringWithFallback(prefRunMethods, string(core.MethodGIBU)), ",")
	for _, m := range runMethods() {
		info, _ := m.Info()
		c := widget.NewCheck(methodTitle(m)+" — "+info.Help, func(bool) { r.checked() })
		c.Checked = slices.Contains(chosen, string(m))
		r.checks[m] = c
	}
	r.tol = optionalNumber("1e-14 (relative)", p.String(prefRunTol))
	r.maxIter = optionalNumber("100000", p.String(prefRunMaxIter))
	r.alpha = optionalNumber("chosen by simulation", p.String(prefRunAlpha))
	r.users = optionalNumber("every datum", p.String(prefRunUsers))
	r.signif = optionalNumber("keep every estimate", p.String(prefRunSignif))
	r.printed = widget.NewCheck("∇²s as CEM eq. (24) prints it (without the 2)", func(bool) { r.checked() })
	r.printed.Checked = p.Bool(prefRunPrinted)
	r.intervals = widget.NewCheck("each estimate's, after the run (95%)", func(bool) { r.checked() })
	r.intervals.Checked = p.BoolWithFallback(prefRunIntervals, true)
	r.seed = optionalNumber("1", p.String(prefRunSeed))
	posts := []string{"project onto the simplex", "clip and renormalise", "none"}
	r.post = widget.NewSelect(posts, func(string) { r.savePrefs() })
	r.post.SetSelected(choice(p.String(prefRunPost), posts, posts[0]))
	for _, e := range []*widget.Entry{r.tol, r.maxIter, r.alpha, r.signif, r.users, r.seed} {
		e.OnChanged = func(string) { r.savePrefs() }
		e.OnSubmitted = func(string) { r.onRun() }
	}
	for _, e := range []*widget.Entry{r.users, r.alpha} {
		e.OnChanged = func(string) { r.savePrefs(); r.updateCosts() }
	}
	r.jobControls = newJobControls(r.onRun)
	r.bind()
	r.stage = widget.NewLabel("Choose estimators and press Run (Ctrl+R).")
	r.detail = widget.NewLabel("")
	r.detail.Truncation = fyne.TextTruncateEllipsis
	r.detail.Importance = widget.LowImportance
	r.summary = widget.NewLabel("No run yet.")
	r.why = widget.NewLabel("")
	r.why.Wrapping = fyne.TextWrapWord
	r.why.Hide()
	r.costs = widget.NewLabel("")
	r.costs.Wrapping = fyne.TextWrapWord
	r.costs.Hide()
	r.summary.Wrapping = fyne.TextWrapWord
	r.plan = newPlanPanel(r)
	return r
}

// optionalNumber is an entry that may be left blank for a default.
func optionalNumber(placeholder, text string) *widget.Entry {
	e := widget.NewEntry()
	e.SetPlaceHolder(placeholder)
	e.SetText(text)
	e.Validator = func(s string) error {
		_, err := parseOptional(s)
		return err
	}
	return e
}

// parseOptional parses an optional number ≥ 0, 0 when blank.
func parseOptional(s string) (float64, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, nil
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0, errors.New("a number ≥ 0, or blank for the default")
	}
	return v, nil
}

func (r *runTab) buildUI() fyne.CanvasObject {
	methods := container.NewVBox()
	for _, m := range runMethods() {
		methods.Add(r.checks[m])
	}
	methods.Add(r.why)
	methods.Add(r.costs)
	opts := widget.NewForm(
		widget.NewFormItem("EM tolerance δ", r.tol),
		widget.NewFormItem("EM max. steps", r.maxIter),
		widget.NewFormItem("Post-processing", r.post),
		widget.NewFormItem("CEM weight α", r.alpha),
		widget.NewFormItem("CEM Hessian", r.printed),
		widget.NewFormItem("ULDP significance", r.signif),
		widget.NewFormItem("Intervals", r.intervals),
	)
	opts.Items[2].HintText = "of inversion and RAPPOR estimates"
	opts.Items[6].HintText = "GIBU's profile likelihood (in windows on a grid), else a bootstrap"
	opts.Items[5].HintText = "keep estimates above the Bonferroni threshold at this level, e.g. 0.05"
	sim := widget.NewForm(
		widget.NewFormItem("Users", r.users),
		widget.NewFormItem("Seed", r.seed),
	)
	sim.Items[0].HintText = "blank: sanitise every datum; else draw this many from the truth"
	left := container.NewVBox(widget.NewCard("", "Estimators", methods), widget.NewCard("", "Last run", r.summary))
	right := container.NewVBox(widget.NewCard("", "Options", opts), widget.NewCard("", "Simulation", sim),
		widget.NewCard("", "Plan: how many users for an accuracy?", r.plan.ui()))
	// Run, Cancel and the progress stay in view at the top; the stage
	// and the estimator's step share a line.
	top := container.NewVBox(
		container.NewBorder(nil, nil, container.NewHBox(r.runBtn, r.cancelBtn), nil, r.busyBar(container.NewStack(r.bar))),
		container.NewBorder(nil, nil, r.stage, nil, r.detail),
	)
	r.scroll = container.NewVScroll(container.NewGridWithColumns(2, left, right))
	return container.NewBorder(top, nil, nil, nil, r.scroll)
}

// savePrefs remembers the options.
func (r *runTab) savePrefs() {
	p := r.app.Preferences()
	p.SetString(prefRunMethods, strings.Join(kindNames(r.ticked()), ","))
	p.SetString(prefRunTol, r.tol.Text)
	p.SetString(prefRunMaxIter, r.maxIter.Text)
	p.SetString(prefRunAlpha, r.alpha.Text)
	p.SetString(prefRunUsers, r.users.Text)
	p.SetString(prefRunSeed, r.seed.Text)
	p.SetString(prefRunPost, r.post.Selected)
	p.SetString(prefRunSignif, r.signif.Text)
	p.SetBool(prefRunPrinted, r.printed.Checked)
	p.SetBool(prefRunIntervals, r.intervals.Checked)
}

// checked saves a ticked option and gives the keyboard back to the
// window: a focused check box would take Escape, which cancels a run.
func (r *runTab) checked() {
	r.savePrefs()
	r.updateCosts()
	if c := r.win.Canvas(); c != nil {
		c.Unfocus()
	}
}

// methods returns the chosen estimators that apply, in order.
func (r *runTab) methods() []core.Method {
	var out []core.Method
	for _, m := range r.ticked() {
		if !r.checks[m].Disabled() {
			out = append(out, m)
		}
	}
	return out
}

// ticked returns the estimators ticked, in order, whether or not they
// apply to the population: the choice remembered.
func (r *runTab) ticked() []core.Method {
	var out []core.Method
	for _, m := range runMethods() {
		if r.checks[m].Checked {
			out = append(out, m)
		}
	}
	return out
}

// withoutMethod drops from an estimator's error the package and the
// method's name it starts with ("core: rap needs …" → "needs …"): the
// window names the estimator itself.
func withoutMethod(msg string) string {
	msg = strings.TrimPrefix(msg, "core: ")
	for _, m := range core.Methods {
		for _, sep := range []string{": ", " "} {
			if rest, ok := strings.CutPrefix(msg, string(m)+sep); ok {
				return rest
			}
		}
	}
	return msg
}

// setApplicable disables the estimators for which why gives a reason,
// or whose memory the machine cannot give (core.Study.Fits), and says
// the reasons under them; nil enables every estimator. The costs of the
// ticked ones follow.
func (r *runTab) setApplicable(why func(core.Method) error) {
	defer r.updateCosts()
	var reasons []string
	var s *core.Study
	if why != nil {
		s, _ = r.ws.population()
	}
	for _, m := range runMethods() {
		c := r.checks[m]
		var err error
		if why != nil {
			err = why(m)
		}
		if err == nil && s != nil {
			err = s.Fits(m)
		}
		if err == nil {
			c.Enable()
			continue
		}
		c.Disable()
		reasons = append(reasons, methodTitle(m)+": "+withoutMethod(err.Error())+".")
	}
	if len(reasons) == 0 {
		r.why.Hide()
		return
	}
	r.why.SetText("Not for this population:\n" + strings.Join(reasons, "\n"))
	r.why.Show()
}

// updateCosts says under the estimators what each ticked one that
// applies is expected to take on the data and population shown (the
// cost model, pipeline.MethodCosts), before the run.
func (r *runTab) updateCosts() {
	if r.costs == nil {
		return
	}
	req, err := r.input()
	methods := r.methods()
	if err != nil || len(methods) == 0 {
		r.costs.Hide()
		return
	}
	users, _ := parseOptional(r.users.Text)
	alpha, _ := parseOptional(r.alpha.Text)
	req.Methods, req.Users.N, req.Options.CEM.Alpha = methods, int(users), alpha
	var lines []string
	for _, c := range pipeline.MethodCosts(req.Request) {
		lines = append(lines, "• "+methodTitle(c.Method)+": "+c.String())
	}
	symbols := "symbols"
	if req.Study.Alphabet.Kind == core.KindGrid {
		symbols = "cells"
	}
	r.costs.SetText(fmt.Sprintf("Expected on %s %s and %s, on this machine (an estimate):\n%s",
		human.Thousands(req.Study.Alphabet.Len()), symbols, req.Users.Words(), strings.Join(lines, "\n")))
	r.costs.Show()
}

// settings reads the options.
func (r *runTab) settings() (studyfile.RunSettings, error) {
	s := studyfile.RunSettings{Methods: r.methods(), Post: postChoices[r.post.Selected]}
	if len(s.Methods) == 0 && len(r.ticked()) > 0 {
		return s, errors.New("none of the estimators ticked applies to this population (the Run screen says why): tick another, or change the population")
	}
	if len(s.Methods) == 0 {
		return s, errors.New("choose at least one estimator")
	}
	var err error
	if s.Tol, err = optNumber("EM tolerance", r.tol); err != nil {
		return s, err
	}
	if s.MaxIter, err = optWhole("EM max. steps", r.maxIter); err != nil {
		return s, err
	}
	if s.Alpha, err = optNumber("CEM weight α", r.alpha); err != nil {
		return s, err
	}
	if s.Significance, err = optNumber("ULDP significance", r.signif); err != nil {
		return s, err
	}
	if s.Significance >= 1 {
		return s, fmt.Errorf("ULDP significance %q: want a level below 1", r.signif.Text)
	}
	s.PrintedHessian = r.printed.Checked
	if s.Users, err = optWhole("Users", r.users); err != nil {
		return s, err
	}
	if s.Users > core.MaxUsers {
		return s, fmt.Errorf("%s %q: at most %d (2³²) users are simulated", "Users", r.users.Text, core.MaxUsers)
	}
	seed, err := optWhole("Seed", r.seed)
	if err != nil {
		return s, err
	}
	s.Seed = uint64(seed)
	if strings.TrimSpace(r.seed.Text) == "" {
		s.Seed = 1
	}
	return s, nil
}

// optNumber reads an optional number ≥ 0 (0 when blank).
func optNumber(name string, e *widget.Entry) (float64, error) {
	v, err := parseOptional(e.Text)
	if err != nil {
		return 0, fmt.Errorf("%s %q: want a number ≥ 0, or blank for the default", name, e.Text)
	}
	return v, nil
}

// optWhole reads an optional whole number ≥ 0 (0 when blank).
func optWhole(name string, e *widget.Entry) (int, error) {
	v, err := optNumber(name, e)
	if err == nil && (v != math.Trunc(v) || v > 1e15) {
		err = fmt.Errorf("%s %q: want a whole number", name, e.Text)
	}
	return int(v), err
}

// setSettings shows saved options.
func (r *runTab) setSettings(s studyfile.RunSettings) {
	for m, c := range r.checks {
		c.SetChecked(slices.Contains(s.Methods, m))
	}
	f := func(v float64) string {
		if v == 0 {
			return ""
		}
		return roundText(v, 6) // α 0.3, not 0.30000000000000004
	}
	r.tol.SetText(f(s.Tol))
	r.maxIter.SetText(f(float64(s.MaxIter)))
	r.alpha.SetText(f(s.Alpha))
	r.signif.SetText(f(s.Significance))
	r.printed.SetChecked(s.PrintedHessian)
	r.users.SetText(f(float64(s.Users)))
	r.seed.SetText(strconv.FormatUint(s.Seed, 10))
	for label, p := range postChoices {
		if p == s.Post {
			r.post.SetSelected(label)
		}
	}
	if s.Intervals != nil {
		r.intervals.SetChecked(*s.Intervals)
	}
	if s.Plan != nil {
		r.plan.setSettings(*s.Plan)
	}
}

// onRun starts a run off the UI goroutine.
func (r *runTab) onRun() {
	if r.running {
		return
	}
	req, err := r.input()
	if err != nil {
		showError(r.win, err, "Nothing was run; the last results stay on the Compare screen.")
		return
	}
	r.setApplicable(req.Study.Applicable)
	set, err := r.settings()
	if err != nil {
		showError(r.win, err, "Correct the option on the Run screen and run again.")
		return
	}
	req.Methods, req.Users.N, req.Seed = set.Methods, set.Users, set.Seed
	req.Options = core.EstimateOptions{
		EM:   core.EMOptions{Tol: set.Tol, MaxIter: set.MaxIter},
		Post: set.Post,
		CEM:  core.CEMOptions{Alpha: set.Alpha, Seed: set.Seed, Printed: set.PrintedHessian},
		ULDP: core.ULDPOptions{Significance: set.Significance},
	}
	if cost := r.cost(req.Request); cost.Long() {
		r.warnCost(req, cost)
		return
	}
	r.start(req)
}

// warnCost says what a long run will cost before it starts, and offers
// to run it anyway or, on a grid, to grid the data on cells twice as wide.
func (r *runTab) warnCost(req runRequest, cost pipeline.Cost) {
	text := "This run will take " + cost.String() + "."
	coarse, coarseCost, ok := pipeline.Coarser(req.Request)
	ok = ok && r.ws.regrid != nil
	if ok {
		text += fmt.Sprintf("\n\nOn cells of %.3g km (%d × %d = %s cells) it would take about %s.",
			coarse.CellKm, coarse.Cols, coarse.Rows, human.Thousands(coarse.Len()), strings.TrimPrefix(coarseCost.String(), "about "))
	}
	label := widget.NewLabel(text)
	label.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustomWithoutButtons("A long run", label, r.win)
	r.costDialog = d
	buttons := []fyne.CanvasObject{&widget.Button{Text: "Cancel", OnTapped: func() { d.Hide() }}}
	if ok {
		buttons = append(buttons, &widget.Button{Text: fmt.Sprintf("Grid on %.3g km cells", coarse.CellKm), OnTapped: func() {
			d.Hide()
			r.ws.regrid(coarse.CellKm)
		}})
	}
	buttons = append(buttons, &widget.Button{Text: "Run anyway", Importance: widget.HighImportance, OnTapped: func() { d.Hide(); r.start(req) }})
	d.SetButtons(buttons)
	d.SetOnClosed(func() { r.costDialog = nil })
	d.Resize(fyne.NewSize(560, 0))
	d.Show()
}

// start runs req off the UI goroutine, holding the population's audits
// until it ends.
func (r *runTab) start(req runRequest) {
	if r.running {
		return
	}
	r.summary.SetText("")
	r.win.SetTitle("privmap — running…")
	r.ws.runStage("starting")
	start := time.Now()
	var last time.Time
	lastStage, lastDetail := "", ""
	progress := func(stage string, done float64, detail string) {
		// The estimators call this every step: show at most ten updates
		// a second, but always a new stage and its first detail.
		if stage == lastStage && lastDetail != "" && time.Since(last) < 100*time.Millisecond {
			return
		}
		last, lastStage, lastDetail = time.Now(), stage, detail
		el := time.Since(start).Round(100 * time.Millisecond)
		jobs.Do(func() {
			r.bar.SetValue(done)
			r.stage.SetText(fmt.Sprintf("%s… (%s)", stage, el))
			r.detail.SetText(detail)
			r.ws.runStage(fmt.Sprintf("%s, %s", stage, el))
		})
	}
	release := r.ws.audits.hold()
	r.jobControls.start(r.ctx, func(ctx context.Context) func() {
		defer release()
		var res *runResult
		out, err := guarded(func() (*pipeline.Result, error) {
			return pipeline.Run(ctx, req.Request, r.estimate, methodTitle, progress)
		})
		if err == nil {
			res = &runResult{Result: out, ds: req.ds, intervals: req.intervals}
		}
		return func() { r.finish(res, err, time.Since(start)) }
	})
}

// finish shows a run's outcome, and hands a result to the workspace.
func (r *runTab) finish(res *runResult, err error, took time.Duration) {
	r.ws.runStage("")
	r.detail.SetText("")
	r.win.SetTitle("privmap")
	if r.stopped(r.win, r.stage, err, "Run cancelled; the last results stay on the Compare screen.",
		"The run failed; the last results stay on the Compare screen.", "Check the population of mechanisms and the data, then run again.") {
		return
	}
	r.stage.SetText(fmt.Sprintf("Ran %s on %s in %s. %s.", human.Plural(len(res.Results), "estimator", "estimators"),
		res.Users.Words(), took.Round(time.Millisecond), "The estimates are "+pipeline.PreviewWords))
	var b strings.Builder
	for _, m := range res.Results {
		if m.Err != nil {
			fmt.Fprintf(&b, "%s: failed: %v\n", methodTitle(m.Method), m.Err)
			continue
		}
		fmt.Fprintf(&b, "%s: %s, %s\n", methodTitle(m.Method), metricsLine(m), m.Elapsed.Round(time.Millisecond))
	}
	r.summary.SetText(strings.TrimSpace(b.String()))
	r.ws.published(res)
}

// input gathers a run's study, data and truth from the workspace.
func (r *runTab) input() (runRequest, error) {
	ds := r.ws.data
	switch {
	case r.ws.loading:
		return runRequest{}, errors.New("the data are still loading: wait for them (or cancel), then run")
	case ds == nil:
		return runRequest{}, errors.New("no data are loaded: open a check-in or census file on the Data screen")
	}
	s, err := r.ws.population()
	if err != nil {
		return runRequest{}, fmt.Errorf("the population of mechanisms: %w\n\nCorrect it on the Population screen, then run", err)
	}
	req := runRequest{ds: ds, Request: pipeline.Request{Study: s}, intervals: r.intervals.Checked}
	if req.intervals {
		// Computed after the run, and counted in what it is said to cost.
		req.CI = interval.CI{Level: intervalLevel}
	}
	req.Users.Data, req.Users.Truth, s.Personal = ds.users()
	if ds.checkins != nil {
		// Each person's check-ins go through her one mechanism.
		req.Users.People = ds.grid.People
	}
	return req, nil
}

// tab names the Run screen.
func (r *runTab) tab() (string, fyne.Resource) { return "Run", theme.MediaPlayIcon() }

// shown offers the estimators that apply to the population.
func (r *runTab) shown() { r.updateEstimators(r.ws.population()) }

// updateEstimators offers the estimators that apply to the population s
// (all of them while it has an error: err says why on the Population
// screen and at Run).
func (r *runTab) updateEstimators(s *core.Study, err error) {
	if err != nil {
		r.setApplicable(nil)
		return
	}
	r.setApplicable(s.Applicable)
}

// putStudy records the run's options in a study being saved; options
// that do not parse are left out.
func (r *runTab) putStudy(s *studyfile.Study) error {
	if set, err := r.settings(); err == nil {
		on := r.intervals.Checked
		set.Intervals, set.Plan = &on, r.plan.settings()
		s.Run = &set
	}
	return nil
}

// takeStudy sets the run's options from a study opened.
func (r *runTab) takeStudy(s *studyfile.Study) {
	if s.Run != nil {
		r.setSettings(*s.Run)
	}
}

// metricsLine summarises an estimate's errors.
func metricsLine(m methodResult) string {
	s := ""
	if !math.IsNaN(m.Metrics.EMD) {
		s = fmt.Sprintf("EMD %.4g %s, ", m.Metrics.EMD, m.Metrics.EMDUnit)
	}
	return s + fmt.Sprintf("squared error %.4g, JSD %.4g, TV %.4g", m.Metrics.MSE, m.Metrics.JSD, m.Metrics.TV)
}
