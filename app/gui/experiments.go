package gui

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/privmap/privmap/app/experiment"
	"github.com/privmap/privmap/app/human"
	"github.com/privmap/privmap/app/mapplot"
)

// Preference keys of the experiments screen.
const (
	prefExpName  = "experiment.name"
	prefExpRuns  = "experiment.runs"
	prefExpUsers = "experiment.users"
	prefExpSeed  = "experiment.seed"
)

// Bounds of the experiments screen's entries, checked before a run, as
// privmap experiment checks its flags.
const (
	maxExpRuns  = 10000
	maxExpUsers = 100_000_000
)

// expDefault is the data choice of the embedded data.
const expDefault = "embedded (as the paper, or its stand-in)"

// experimentsTab reproduces the papers' figures: a named experiment with
// its runs, users, seed and data, run off the UI goroutine with progress
// and cancel, its figures and summary shown, and all of them exported to
// a folder as privmap experiment writes them.
type experimentsTab struct {
	ctx context.Context
	app fyne.App
	win fyne.Window
	// run is experiment.Run but for tests.
	run func(context.Context, *experiment.Experiment, []experiment.Panel, experiment.Options) error

	name              *widget.Select
	form              *widget.Form
	about             *widget.Label
	runs, users, seed *widget.Entry
	data              *widget.Label
	dataPath          string
	chooseData        *widget.Button
	resetData         *widget.Button
	exportBtn         *widget.Button
	status            *widget.Label
	results           *container.AppTabs
	empty             *widget.Label
	view              *fyne.Container

	last *expResult
	jobControls
}

// expResult is an experiment's runs, finished or interrupted.
type expResult struct {
	e        *experiment.Experiment
	panels   []experiment.Panel
	d        *experiment.Data
	opt      experiment.Options
	rows     []experiment.Row
	done     int // jobs finished
	total    int
	complete bool
}

func newExperimentsTab(ws *workspace) *experimentsTab {
	a := ws.app
	t := &experimentsTab{ctx: ws.ctx, app: a, win: ws.win, run: experiment.Run}
	var names []string
	for _, e := range experiment.List() {
		names = append(names, experimentLabel(e))
	}
	p := a.Preferences()
	stored := ""
	if e, err := experiment.Lookup(p.String(prefExpName)); err == nil {
		stored = experimentLabel(e)
	}
	t.about = widget.NewLabel("")
	t.about.Wrapping = fyne.TextWrapWord
	t.runs = optionalNumber("the experiment's", p.String(prefExpRuns))
	t.users = widget.NewEntry()
	t.users.SetText(p.String(prefExpUsers))
	t.users.Validator = func(s string) error { _, err := parseUsers(s); return err }
	t.seed = optionalNumber("1", p.String(prefExpSeed))
	for _, e := range []*widget.Entry{t.runs, t.users, t.seed} {
		e.OnChanged = func(string) { t.savePrefs() }
		e.OnSubmitted = func(string) { t.onRun() }
	}
	t.data = widget.NewLabel(expDefault)
	t.data.Wrapping = fyne.TextWrapWord
	t.chooseData = &widget.Button{Text: "Data file…", Icon: theme.FolderOpenIcon(), OnTapped: t.onChooseData}
	t.resetData = &widget.Button{Text: "Embedded", OnTapped: func() { t.setData("") }}
	t.jobControls = newJobControls(t.onRun)
	t.bind()
	t.exportBtn = &widget.Button{Text: "Export…", Icon: theme.DocumentSaveIcon(), OnTapped: t.onExport}
	t.exportBtn.Disable()
	t.status = widget.NewLabel("Choose an experiment and press Run.")
	t.status.Wrapping = fyne.TextWrapWord
	t.results = container.NewAppTabs()
	t.empty = widget.NewLabel("The figures and the summary of a run show here.")
	t.name = widget.NewSelect(names, func(string) { t.chosen() })
	t.name.SetSelected(choice(stored, names, names[0]))
	return t
}

func (t *experimentsTab) buildUI() fyne.CanvasObject {
	form := widget.NewForm(
		widget.NewFormItem("Experiment", roomy(t.name)),
		widget.NewFormItem("Runs", t.runs),
		widget.NewFormItem("Users", t.users),
		widget.NewFormItem("Seed", t.seed),
		widget.NewFormItem("Data", container.NewVBox(t.data, container.NewHBox(t.chooseData, t.resetData))),
	)
	form.Items[1].HintText = "at each setting; the papers use 100"
	form.Items[3].HintText = "every run's own seed is derived from it"
	t.form = form
	left := container.NewVBox(
		widget.NewCard("", "Experiment", container.NewVBox(form, t.about)),
		container.NewBorder(nil, nil, container.NewHBox(t.runBtn, t.cancelBtn), t.exportBtn),
		t.busyBar(container.NewStack(t.bar)),
		t.status,
	)
	t.view = container.NewStack(container.NewCenter(t.empty))
	split := container.NewHSplit(container.NewVScroll(left), t.view)
	split.Offset = 0.3
	t.chosen() // the hints, now that the form is there
	return split
}

// experimentLabel names e in the experiment picker: its name and what it
// reproduces, on one line ("fw-fig7 · FW Fig. 7: [INV]_M (projection,
// normalisation) and GIBU…"); the text under the picker gives it whole
// with its paper's citation.
func experimentLabel(e *experiment.Experiment) string {
	return e.Name + " · " + shortText(e.Title, 34)
}

// chosenExperiment returns the experiment the picker shows.
func (t *experimentsTab) chosenExperiment() (*experiment.Experiment, error) {
	name, _, _ := strings.Cut(t.name.Selected, " · ")
	return experiment.Lookup(name)
}

// chosen shows what the experiment chosen reproduces and which users it
// takes.
func (t *experimentsTab) chosen() {
	e, err := t.chosenExperiment()
	if err != nil {
		return
	}
	t.app.Preferences().SetString(prefExpName, e.Name)
	t.about.SetText(e.Title + "\n\n" + e.Source() + "\n\n" + e.Claim)
	t.runs.SetPlaceHolder(strconv.Itoa(e.Runs))
	hint := ""
	switch e.UsersRole {
	case experiment.UsersFixed:
		t.users.SetPlaceHolder("fixed by the paper")
		t.users.Disable()
	case experiment.UsersOne:
		t.users.SetPlaceHolder(human.Thousands(e.Users[0]))
		t.users.Enable()
		hint = "one number: the x-axis is not the users"
	default:
		var ns []string
		for _, n := range e.Users {
			ns = append(ns, human.Thousands(n))
		}
		t.users.SetPlaceHolder("the experiment's")
		t.users.Enable()
		hint = "comma-separated; default " + strings.Join(ns, ", ")
	}
	if t.form != nil {
		t.form.Items[2].HintText = hint
		t.form.Refresh()
	}
	if e.Data == experiment.NoData {
		t.chooseData.Disable()
		t.resetData.Disable()
		t.data.SetText("made by the experiment (FW's binomial data)")
		return
	}
	t.chooseData.Enable()
	t.resetData.Enable()
	t.setData(t.dataPath)
}

// setData chooses the data file ("" for the embedded data).
func (t *experimentsTab) setData(path string) {
	t.dataPath = path
	if path == "" {
		t.data.SetText(expDefault)
		return
	}
	t.data.SetText(filepath.Base(path))
}

// onChooseData picks a data file: check-ins or a census file, by the
// experiment's kind of data.
func (t *experimentsTab) onChooseData() {
	showFileOpen(t.win, t.app, dataExts, func(rc fyne.URIReadCloser) {
		rc.Close()
		u := rc.URI()
		if u.Scheme() != "file" {
			showError(t.win, fmt.Errorf("%s is not a local file", u), "Choose a file on this computer.")
			return
		}
		t.setData(u.Path())
	})
}

// savePrefs remembers the entries.
func (t *experimentsTab) savePrefs() {
	p := t.app.Preferences()
	p.SetString(prefExpRuns, t.runs.Text)
	p.SetString(prefExpUsers, t.users.Text)
	p.SetString(prefExpSeed, t.seed.Text)
}

// parseUsers reads a comma-separated list of numbers of users (nil when
// blank).
func parseUsers(s string) ([]int, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var ns []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > maxExpUsers {
			return nil, fmt.Errorf("numbers of users from 1 to %s, comma-separated", human.Thousands(maxExpUsers))
		}
		ns = append(ns, n)
	}
	return ns, nil
}

// request reads the entries: the experiment, its options and users.
func (t *experimentsTab) request() (*experiment.Experiment, experiment.Options, []int, error) {
	var opt experiment.Options
	e, err := t.chosenExperiment()
	if err != nil {
		return nil, opt, nil, err
	}
	runs, err := optWhole("Runs", t.runs)
	if err != nil {
		return nil, opt, nil, err
	}
	if runs == 0 {
		runs = e.Runs
	}
	if runs > maxExpRuns {
		return nil, opt, nil, fmt.Errorf("%s %q: at most %s", "Runs", t.runs.Text, human.Thousands(maxExpRuns))
	}
	seed, err := optWhole("Seed", t.seed)
	if err != nil {
		return nil, opt, nil, err
	}
	if strings.TrimSpace(t.seed.Text) == "" {
		seed = 1
	}
	var users []int
	if e.UsersRole != experiment.UsersFixed {
		if users, err = parseUsers(t.users.Text); err != nil {
			return nil, opt, nil, fmt.Errorf("%s %q: %w", "Users", t.users.Text, err)
		}
		if e.UsersRole == experiment.UsersOne && len(users) > 1 {
			return nil, opt, nil, fmt.Errorf("%s %q: %s takes one number of users (its x-axis is not the users)", "Users", t.users.Text, e.Name)
		}
	}
	return e, experiment.Options{Runs: runs, Seed: uint64(seed)}, users, nil
}

// onRun starts the experiment off the UI goroutine.
func (t *experimentsTab) onRun() {
	if t.running {
		return
	}
	e, opt, users, err := t.request()
	if err != nil {
		showError(t.win, err, "Correct it on the Experiments screen and run again.")
		return
	}
	t.win.SetTitle("privmap — " + e.Name + " running…")
	t.status.SetText("Reading the data…")
	src := experiment.Source{Path: t.dataPath}
	start := time.Now()
	t.start(t.ctx, func(ctx context.Context) func() {
		res, err := guarded(func() (*expResult, error) { return t.runExperiment(ctx, e, src, opt, users) })
		return func() { t.finish(res, err, time.Since(start)) }
	})
}

// runExperiment loads the data, builds the panels and runs every job,
// reporting progress; an interrupted run returns the jobs finished with
// the error.
func (t *experimentsTab) runExperiment(ctx context.Context, e *experiment.Experiment, src experiment.Source, opt experiment.Options,
	users []int) (*expResult, error) {
	d, err := experiment.Load(ctx, e, src)
	if err != nil {
		return nil, err
	}
	panels, err := e.Panels(d, users)
	if err != nil {
		return nil, err
	}
	res := &expResult{e: e, panels: panels, d: d, opt: opt, total: len(experiment.Jobs(panels, opt.Runs))}
	jobs.Do(func() { t.status.SetText("Building the mechanisms…") })
	var mu sync.Mutex
	opt.Emit = func(_ experiment.Job, rows []experiment.Row) error {
		mu.Lock()
		res.rows = append(res.rows, rows...)
		mu.Unlock()
		return nil
	}
	opt.Progress = experiment.TimeLeft(func(done, total int, left string) {
		mu.Lock()
		res.done = done
		mu.Unlock()
		text := fmt.Sprintf("%s of %s runs%s.", human.Thousands(done), human.Thousands(total), left)
		jobs.Do(func() {
			t.bar.SetValue(float64(done) / float64(total))
			t.status.SetText(text)
		})
	})
	err = t.run(ctx, e, panels, opt)
	res.complete = err == nil
	return res, err
}

// finish shows an experiment's outcome: the figures and summary of the
// runs finished, also when it was cancelled.
func (t *experimentsTab) finish(res *expResult, err error, took time.Duration) {
	t.win.SetTitle("privmap")
	switch {
	case errors.Is(err, context.Canceled) && res != nil && len(res.rows) > 0:
		t.status.SetText(fmt.Sprintf("Cancelled after %s of %s runs; the figures show those. Run again to finish.",
			human.Thousands(res.done), human.Thousands(res.total)))
	case t.stopped(t.win, t.status, err, "Cancelled.", "The experiment failed.", "Check the data and the entries, then run again."):
		return
	default:
		t.status.SetText(fmt.Sprintf("Ran %s in %s.", human.Plural(res.total, "run", "runs"), took.Round(time.Second)))
		t.win.SetTitle("privmap — " + res.e.Name + " finished")
	}
	t.show(res)
}

// show puts a result's figures, one tab a panel, and its summary on the
// screen.
func (t *experimentsTab) show(res *expResult) {
	t.last = res
	t.exportBtn.Enable()
	rows := append([]experiment.Row(nil), res.rows...)
	experiment.Sort(rows, experiment.OrderOf(res.panels))
	points := experiment.Points(res.panels, rows)
	t.results = container.NewAppTabs()
	for _, p := range res.panels {
		t.results.Append(container.NewTabItem("("+p.Name+") "+shortText(p.Title, 28), newFigureView(fyne.NewSize(320, 240), func(st mapplot.Style) (imager, error) { return experiment.Figure(p, points, st) })))
	}
	t.results.Append(container.NewTabItem("Summary", container.NewVScroll(summaryView(res, points))))
	t.view.Objects = []fyne.CanvasObject{t.results}
	t.view.Refresh()
}

// summaryView is the summary: the paper's claim, the data, and a table a
// panel and metric.
func summaryView(res *expResult, points []experiment.Point) fyne.CanvasObject {
	box := container.NewVBox()
	text := func(s string, style fyne.TextStyle) {
		l := widget.NewLabelWithStyle(s, fyne.TextAlignLeading, style)
		l.Wrapping = fyne.TextWrapWord
		box.Add(l)
	}
	text(res.e.Title, fyne.TextStyle{Bold: true})
	text("The paper: "+res.e.Claim, fyne.TextStyle{})
	if res.d != nil {
		data := "Data: " + res.d.Source + "."
		if res.d.StandIn != "" {
			data += " Stand-in: " + res.d.StandIn + "."
		}
		text(data, fyne.TextStyle{})
	}
	runs := human.Plural(res.opt.Runs, "run", "runs") + " at each setting"
	if !res.complete {
		runs = fmt.Sprintf("%s of %s runs finished (cancelled)", human.Thousands(res.done), human.Thousands(res.total))
	}
	text(fmt.Sprintf("%s, seed %d; means with 95%% intervals (%s).", runs, res.opt.Seed, experiment.IntervalsOf(points)), fyne.TextStyle{Italic: true})
	for _, tb := range experiment.Tables(res.panels, points) {
		text(tb.Title, fyne.TextStyle{Bold: true})
		cells := container.New(columnsLayout{cols: len(tb.Head)})
		for _, h := range tb.Head {
			cells.Add(widget.NewLabelWithStyle(h, fyne.TextAlignTrailing, fyne.TextStyle{Bold: true}))
		}
		for _, r := range tb.Rows {
			for _, c := range r {
				cells.Add(widget.NewLabelWithStyle(c, fyne.TextAlignTrailing, fyne.TextStyle{}))
			}
		}
		box.Add(container.NewHScroll(cells))
	}
	return box
}

// onExport writes the last result into a folder as privmap experiment
// does: runs.csv, a PNG and an SVG figure a panel, summary.md.
func (t *experimentsTab) onExport() {
	res := t.last
	if res == nil {
		return
	}
	if !res.complete {
		showError(t.win, errors.New("the experiment was cancelled before its last run"),
			"Run it to the end to export it: the files must hold every run of the settings they name.")
		return
	}
	d := dialog.NewFolderOpen(func(u fyne.ListableURI, err error) {
		if err != nil {
			dialog.ShowError(err, t.win)
			return
		}
		if u == nil {
			return
		}
		dir := u.Path()
		if err := t.write(dir, res); err != nil {
			showError(t.win, fmt.Errorf("%s: %w", dir, err), "Choose another folder and try again.")
			return
		}
		rememberFolder(t.app, filepath.Join(dir, experiment.RunsFile))
		showWritten(t.win, filepath.Join(dir, experiment.SummaryFile))
	}, t.win)
	if l, err := storage.ListerForURI(storage.NewFileURI(lastFolder(t.app))); err == nil {
		d.SetLocation(l)
	}
	d.Resize(fyne.NewSize(800, 560))
	d.Show()
}

// write writes res into dir.
func (t *experimentsTab) write(dir string, res *expResult) error {
	rows := append([]experiment.Row(nil), res.rows...)
	return experiment.Write(t.ctx, dir, res.e, res.panels, res.d, res.opt, rows)
}

// tab names the Experiments screen.
func (t *experimentsTab) tab() (string, fyne.Resource) { return "Experiments", theme.ListIcon() }

func (t *experimentsTab) shown() {}
