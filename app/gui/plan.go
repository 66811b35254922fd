package gui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/privmap/privmap/app/experiment"
	"github.com/privmap/privmap/app/human"
	"github.com/privmap/privmap/app/mapplot"
	"github.com/privmap/privmap/app/output"
	"github.com/privmap/privmap/app/pipeline"
	"github.com/privmap/privmap/app/plan"
	"github.com/privmap/privmap/app/studyfile"
	"github.com/privmap/privmap/core"
)

// Preferences of the Run screen's plan.
const (
	prefPlanMetric = "plan.error"
	prefPlanTarget = "plan.target"
	prefPlanVary   = "plan.vary"
	prefPlanRuns   = "plan.runs"
)

// The plan's errors and axes as the window names them.
var (
	planMetrics  = []string{"TV (share of people misplaced)", "largest error of a cell", "EMD (distance moved)"}
	planMetricOf = map[string]plan.Metric{planMetrics[0]: plan.TV, planMetrics[1]: plan.MaxCell, planMetrics[2]: plan.EMD}
	planAxes     = []string{"users", "ε (every mechanism's, by one factor)"}
	planAxisOf   = map[string]plan.Axis{planAxes[0]: plan.AxisUsers, planAxes[1]: plan.AxisEps}
)

// planPanel is the Run screen's Plan (plan.Make): how many users, or
// which ε, keep the first ticked estimator's error below a target with
// probability 95%, from simulated deployments on the loaded data and
// population: a cancellable job, the answer in a sentence and the curve.
type planPanel struct {
	r            *runTab
	job          jobControls
	metric, vary *widget.Select
	target, runs *widget.Entry
	status       *widget.Label
	figure       *figureView
	// last is the plan shown, which Export PNG… and Export CSV… write.
	last                 *plan.Plan
	exportPNG, exportCSV *widget.Button
	// cost is plan.Cost, but for tests.
	cost func(plan.Request) pipeline.Cost
}

func newPlanPanel(r *runTab) *planPanel {
	p := &planPanel{r: r, cost: plan.Cost, status: widget.NewLabel("How many users, or which ε, does the map need? Set the error you accept and press Plan.")}
	pr := r.app.Preferences()
	p.job = newJobControls(p.onPlan)
	p.job.runBtn.Text, p.job.runBtn.Icon, p.job.runBtn.Importance = "Plan", theme.SearchIcon(), widget.MediumImportance
	p.job.bind()
	p.metric = widget.NewSelect(planMetrics, nil)
	p.metric.SetSelected(choice(pr.String(prefPlanMetric), planMetrics, planMetrics[0]))
	p.vary = widget.NewSelect(planAxes, nil)
	p.vary.SetSelected(choice(pr.String(prefPlanVary), planAxes, planAxes[0]))
	p.target = widget.NewEntry()
	p.target.SetPlaceHolder("such as 0.1")
	p.target.SetText(pr.StringWithFallback(prefPlanTarget, "0.1"))
	p.runs = optionalNumber(strconv.Itoa(plan.DefaultRuns), pr.String(prefPlanRuns))
	for _, e := range []*widget.Entry{p.target, p.runs} {
		e.OnChanged = func(string) { p.savePrefs() }
		e.OnSubmitted = func(string) { p.onPlan() }
	}
	p.metric.OnChanged = func(string) { p.savePrefs() }
	p.vary.OnChanged = func(string) { p.savePrefs() }
	p.job.holds = []fyne.Disableable{p.metric, p.vary, p.target, p.runs}
	p.status.Wrapping = fyne.TextWrapWord
	p.figure = newFigureView(fyne.NewSize(300, 220), nil)
	p.figure.Hide()
	p.exportPNG = &widget.Button{Text: "Export PNG…", Icon: theme.DownloadIcon(), OnTapped: p.onExportPNG}
	p.exportCSV = &widget.Button{Text: "Export CSV…", Icon: theme.DocumentSaveIcon(), OnTapped: p.onExportCSV}
	p.exportPNG.Disable()
	p.exportCSV.Disable()
	return p
}

// ui returns the panel: its form, Plan and Cancel with the progress,
// the answer and the curve.
func (p *planPanel) ui() fyne.CanvasObject {
	form := widget.NewForm(
		widget.NewFormItem("Error", p.metric),
		widget.NewFormItem("At most", p.target),
		widget.NewFormItem("Vary", p.vary),
		widget.NewFormItem("Runs a point", p.runs),
	)
	form.Items[1].HintText = "with probability 95%: TV and a cell's error below 1, EMD in km or steps"
	form.Items[3].HintText = "simulated deployments at each of 7 sizes, each an estimate"
	bar := p.job.busyBar(container.NewStack(p.job.bar))
	buttons := container.NewBorder(nil, nil, container.NewHBox(p.job.runBtn, p.job.cancelBtn), container.NewHBox(p.exportPNG, p.exportCSV), bar)
	return container.NewVBox(form, buttons, p.status, p.figure)
}

// settings returns the plan's question as a study keeps it, nil when
// its target is not a number.
func (p *planPanel) settings() *studyfile.PlanSettings {
	target, err := p.targetValue()
	if err != nil {
		return nil
	}
	runs, _ := optWhole("Runs a point", p.runs)
	return &studyfile.PlanSettings{Error: planMetricOf[p.metric.Selected], Target: target, Vary: planAxisOf[p.vary.Selected], Runs: runs}
}

// setSettings shows a study's plan question.
func (p *planPanel) setSettings(s studyfile.PlanSettings) {
	for label, m := range planMetricOf {
		if m == s.Error {
			p.metric.SetSelected(label)
		}
	}
	for label, a := range planAxisOf {
		if a == s.Vary {
			p.vary.SetSelected(label)
		}
	}
	p.target.SetText(strconv.FormatFloat(s.Target, 'g', -1, 64))
	p.runs.SetText("")
	if s.Runs > 0 {
		p.runs.SetText(strconv.Itoa(s.Runs))
	}
}

// targetValue reads the error the plan accepts.
func (p *planPanel) targetValue() (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(p.target.Text), 64)
	if err != nil {
		return 0, fmt.Errorf("the error you accept, %q: want a number such as 0.1", p.target.Text)
	}
	return v, nil
}

// savePrefs remembers the plan's question.
func (p *planPanel) savePrefs() {
	pr := p.r.app.Preferences()
	pr.SetString(prefPlanMetric, p.metric.Selected)
	pr.SetString(prefPlanVary, p.vary.Selected)
	pr.SetString(prefPlanTarget, p.target.Text)
	pr.SetString(prefPlanRuns, p.runs.Text)
}

// request gathers the plan's question from the panel and the Run
// screen: the loaded data's truth and population, the first estimator
// ticked, the Simulation's users and seed.
func (p *planPanel) request() (plan.Request, error) {
	in, err := p.r.input()
	if err != nil {
		return plan.Request{}, err
	}
	set, err := p.r.settings()
	if err != nil {
		return plan.Request{}, err
	}
	target, err := p.targetValue()
	if err != nil {
		return plan.Request{}, err
	}
	runs, err := optWhole("Runs a point", p.runs)
	if err != nil {
		return plan.Request{}, err
	}
	method := core.MethodGIBU
	if len(set.Methods) > 0 {
		method = set.Methods[0]
	}
	users := set.Users
	if users == 0 {
		users = len(in.Users.Data)
	}
	req := plan.Request{Study: in.Study, Truth: in.Users.Truth, Method: method, Metric: planMetricOf[p.metric.Selected],
		Target: target, Runs: runs, Axis: planAxisOf[p.vary.Selected], Users: users, Seed: set.Seed,
		Options: core.EstimateOptions{EM: core.EMOptions{Tol: set.Tol, MaxIter: set.MaxIter}, Post: set.Post,
			CEM: core.CEMOptions{Alpha: set.Alpha, Seed: set.Seed}}}
	if req.Truth == nil {
		return req, errors.New("the loaded data give no distribution to plan from")
	}
	req = req.WithDefaults()
	return req, req.Check()
}

// onPlan starts the plan off the UI goroutine.
func (p *planPanel) onPlan() {
	if p.job.running {
		return
	}
	req, err := p.request()
	if err != nil {
		showError(p.r.win, err, "Nothing was planned: correct the question or the population, then press Plan.")
		return
	}
	if cost := p.cost(req); cost.Long() {
		d := dialog.NewConfirm("A long plan", fmt.Sprintf("This plan will take %s.\n\nFewer runs a point, or fewer users (Simulation), make it quicker; Cancel stops it at any time.", cost),
			func(ok bool) {
				if ok {
					p.start(req)
				}
			}, p.r.win)
		d.SetConfirmText("Plan anyway")
		d.SetDismissText("Cancel")
		d.Show()
		return
	}
	p.start(req)
}

// start runs the plan req off the UI goroutine.
func (p *planPanel) start(req plan.Request) {
	if p.job.running {
		return
	}
	p.r.showPlan()
	p.status.SetText(fmt.Sprintf("Planning the %s: %s simulated deployments of %s at each of %d %s…", p.metric.Selected, human.Thousands(req.Runs),
		methodTitle(req.Method), len(req.Points), req.Axis.Noun()))
	start := time.Now()
	progress := p.job.timeLeft(p.status, nil, nil)
	release := p.r.ws.audits.hold()
	p.job.start(p.r.ctx, func(ctx context.Context) func() {
		defer release()
		plan, err := guarded(func() (*plan.Plan, error) {
			mechs, err := pipeline.BuildMechanisms(ctx, req.Study, nil)
			if err != nil {
				return nil, err
			}
			return plan.Make(ctx, req, mechs, progress)
		})
		return func() { p.done(plan, err, time.Since(start)) }
	})
}

// done shows a plan, or why there is none.
func (p *planPanel) done(plan *plan.Plan, err error, took time.Duration) {
	if p.job.stopped(p.r.win, p.status, err, "Plan cancelled.", "The plan failed.", "Check the population and the question, then plan again.") {
		return
	}
	p.last = plan
	p.exportPNG.Enable()
	p.exportCSV.Enable()
	p.status.SetText(fmt.Sprintf("%s (%s.)", plan.Sentence(), took.Round(100*time.Millisecond)))
	p.r.win.SetTitle("privmap — planned")
	curve := experiment.PlanCurve(plan)
	p.figure.set(func(st mapplot.Style) (imager, error) {
		pl, err := mapplot.PlanPlot(st, curve)
		return mapplot.StyledPlot{Plot: pl, Style: st}, err
	})
	p.figure.Show()
	p.r.showPlan()
}

// showPlan scrolls the Run screen down to its Plan, the last card.
func (r *runTab) showPlan() {
	if r.scroll != nil {
		r.scroll.Refresh()
		r.scroll.ScrollToBottom()
	}
}

// onCancel cancels the Run screen's jobs: a run and a plan.
func (r *runTab) onCancel() {
	r.jobControls.onCancel()
	r.plan.job.onCancel()
}

// onExportPNG writes the plan's curve, black on white, headed by its
// answer.
func (p *planPanel) onExportPNG() {
	if p.last == nil {
		return
	}
	last := p.last
	entry, path := pathEntry(p.r.win, exportPath(p.r.app, p.r.ws.data.src, "-plan.png"), []string{".png"})
	showPathForm(p.r.win, "Export the plan's curve as PNG", "Export", path, entry, nil, func(name string) error {
		rememberFolder(p.r.app, name)
		return output.WriteFile(name, func(w io.Writer) error {
			return experiment.WritePlanPNG(w, last, wrapWords(last.Sentence(), 110))
		}, p.r.ws.data.src.path)
	})
}

// onExportCSV writes every run's error of the plan (privmap plan -o).
func (p *planPanel) onExportCSV() {
	if p.last == nil {
		return
	}
	last := p.last
	entry, path := pathEntry(p.r.win, exportPath(p.r.app, p.r.ws.data.src, "-plan.csv"), []string{".csv"})
	showPathForm(p.r.win, "Export the plan's runs as CSV", "Export", path, entry, nil, func(name string) error {
		rememberFolder(p.r.app, name)
		return output.WriteFile(name, func(w io.Writer) error { return plan.WriteCSV(w, last) }, p.r.ws.data.src.path)
	})
}
