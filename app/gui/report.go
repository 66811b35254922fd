package gui

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/privmap/privmap/app"
	"github.com/privmap/privmap/app/mapplot"
	"github.com/privmap/privmap/app/report"
	"github.com/privmap/privmap/core"
)

// Preference keys of the report.
const (
	prefReportOperator = "report.operator"
	prefReportPaper    = "report.paper"
	prefReportSections = "report.sections"
)

// sectionNames are the report's sections as the dialog names them.
var sectionNames = map[string]string{
	report.SectionContext: "Context", report.SectionData: "Data", report.SectionPopulation: "Population",
	report.SectionEstimates: "Estimates", report.SectionRelease: "Central release", report.SectionManifest: "Manifest",
}

// reportRequest is what the report dialog asked for.
type reportRequest struct {
	path                   string
	title, operator, notes string
	paper                  string
	sections               []string
	raw                    bool // show the true map and errors against it
}

// onExportReport asks for the report's file, title, operator, notes,
// paper and sections, and writes it with the files it describes.
func (u *ui) onExportReport() {
	if u.ws.data == nil {
		dialog.ShowInformation("Nothing to report", "Open a data file first (Ctrl+O).", u.win)
		return
	}
	p := u.app.Preferences()
	entry, path := pathEntry(u.win, exportPath(u.app, u.ws.data.src, "-report.pdf"), []string{".pdf"})
	title := widget.NewEntry()
	title.SetText("Release report: " + u.ws.data.src.name)
	operator := widget.NewEntry()
	operator.SetText(p.String(prefReportOperator))
	operator.SetPlaceHolder("who prepared the decision")
	notes := widget.NewMultiLineEntry()
	notes.SetPlaceHolder("the decision, and why")
	notes.SetMinRowsVisible(2)
	paper := widget.NewRadioGroup([]string{"A4", "Letter"}, nil)
	paper.Horizontal = true
	paper.SetSelected(choice(p.String(prefReportPaper), []string{"A4", "Letter"}, "A4"))
	var labels []string
	for _, s := range report.Sections {
		labels = append(labels, sectionNames[s])
	}
	sections := widget.NewCheckGroup(labels, nil)
	sections.Horizontal = true
	sections.SetSelected(strings.Split(p.StringWithFallback(prefReportSections, strings.Join(labels, ",")), ","))
	raw := widget.NewCheck("Show the true map and the errors against it", nil)
	items := []*widget.FormItem{
		widget.NewFormItem("Title", title),
		widget.NewFormItem("Operator", operator),
		widget.NewFormItem("Notes", notes),
		widget.NewFormItem("Paper", paper),
		{Text: "Sections", Widget: sections, HintText: "the report's JSON, beside the PDF, holds the same"},
		{Text: "Raw data", Widget: raw, HintText: "the true map is people's data themselves: a preview's, never a release's"},
	}
	showPathForm(u.win, "Export report", "Export", path, entry, items, func(name string) error {
		if !strings.EqualFold(filepath.Ext(name), ".pdf") {
			return errors.New("name the report .pdf: its JSON and the files it describes are written beside it")
		}
		var secs []string
		for i, l := range labels {
			for _, s := range sections.Selected {
				if s == l {
					secs = append(secs, report.Sections[i])
				}
			}
		}
		if len(secs) == 0 {
			return errors.New("choose at least one section")
		}
		p.SetString(prefReportOperator, operator.Text)
		p.SetString(prefReportPaper, paper.Selected)
		p.SetString(prefReportSections, strings.Join(sections.Selected, ","))
		rememberFolder(u.app, name)
		req := reportRequest{path: name, title: strings.TrimSpace(title.Text), operator: strings.TrimSpace(operator.Text), notes: strings.TrimSpace(notes.Text),
			paper: strings.ToLower(paper.Selected), sections: secs, raw: raw.Checked}
		return u.writeReport(req)
	})
}

// writeReport gathers the report's facts off the UI goroutine, behind
// a dialog that can cancel it, and writes its files; errors found before
// the job starts are returned.
func (u *ui) writeReport(req reportRequest) error {
	in, err := u.reportInput(req)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(u.ws.ctx)
	label := widget.NewLabel("Auditing the mechanisms and drawing the maps…")
	d := dialog.NewCustomWithoutButtons("Writing the report", label, u.win)
	d.SetButtons([]fyne.CanvasObject{&widget.Button{Text: "Cancel", OnTapped: cancel}})
	d.Show()
	go func() {
		defer cancel()
		err := in.write(ctx)
		fyne.Do(func() {
			d.Hide()
			switch {
			case ctx.Err() != nil && err != nil:
				// Cancelled: nothing was written, nothing to say.
			case err != nil:
				showError(u.win, fmt.Errorf("%s: %w", req.path, err), "Nothing was written.")
			default:
				showWritten(u.win, req.path)
			}
		})
	}()
	return nil
}

// reportInput returns what the window's report of req describes: the
// study, the population's audits done, the last run's estimates with
// their intervals, the last release. It refuses a run of another
// population than the one shown.
func (u *ui) reportInput(req reportRequest) (*reportInput, error) {
	as, err := u.study()
	if err != nil {
		return nil, err
	}
	in := &reportInput{req: req, study: as, audits: u.pop.cachedAudits(as.Study), release: u.rel.last}
	if shown := u.cmp.maps[1].Map; shown != nil && shown.Basemap != nil {
		l, opacity := shown.Basemap, shown.Opacity
		in.under = func(maps []*mapplot.Map) string {
			for _, m := range maps {
				m.Basemap, m.Opacity = l, opacity
			}
			return cmp.Or(l.Attribution(), "no credit given by the source")
		}
	}
	if res := u.cmp.res; res != nil {
		if !reflect.DeepEqual(res.Study.Mechanisms, as.Study.Mechanisms) {
			return nil, errors.New("the population was changed after the last run: run the estimators again (Ctrl+R) so that the report's estimates are its population's")
		}
		in.run = res.Result
		for _, m := range res.Succeeded() {
			var iv *core.Intervals
			if e := u.cmp.iv.of(m.Method); e != nil {
				iv = e.Intervals
			}
			in.estimates = append(in.estimates, reportEstimate{m: m, iv: iv})
		}
	}
	return in, nil
}

// reportInput is what a report from the window describes.
type reportInput struct {
	req       reportRequest
	study     *app.Study
	audits    []*core.Audit // the population screen's, nil where none
	run       *app.Result
	estimates []reportEstimate
	release   *releaseResult
	// under lays the window's basemap (its tiles on screen) under the
	// report's maps; nil without one.
	under report.Underlay
}

type reportEstimate struct {
	m  methodResult
	iv *core.Intervals
}

// write gathers the facts and writes, all or none, the PDF, its JSON,
// the study, every estimate and the release beside it.
func (in *reportInput) write(ctx context.Context) error {
	req := in.req
	stem := strings.TrimSuffix(req.path, filepath.Ext(req.path))
	r := report.New(req.title, req.operator, req.notes, req.paper, req.sections, time.Now().UTC().Truncate(time.Second).Format(time.RFC3339))
	var b app.Batch
	var source string
	if in.study.Source != nil {
		source = in.study.Source.Path
	}
	mf := &report.Manifest{Note: "Made in privmap's window: the files below were written with this report. " +
		"privmap estimate -study " + filepath.Base(stem) + "-study.json with the reports remakes an estimate; the window's reports are simulated and not kept."}
	var err error
	if r.Data, err = report.DataFacts(ctx, in.study, ""); err != nil {
		return err
	}
	if r.Data.File != nil {
		mf.Inputs = append(mf.Inputs, *r.Data.File)
	}
	studyBytes, err := fill(func(w io.Writer) error { return app.WriteStudy(w, in.study) })
	if err != nil {
		return err
	}
	mf.Outputs = append(mf.Outputs, add(&b, stem+"-study.json", studyBytes, source))
	if r.Has(report.SectionPopulation) {
		if r.Population, err = in.population(ctx); err != nil {
			return err
		}
	}
	var figs []report.Figure
	for _, e := range in.estimates {
		ef, f, err := in.estimate(ctx, &b, stem, e, source)
		if err != nil {
			return err
		}
		r.Estimates, figs = append(r.Estimates, *ef), append(figs, f...)
		mf.Outputs = append(mf.Outputs, ef.File)
	}
	if rel := in.release; rel != nil {
		data, err := fill(func(w io.Writer) error { return core.WriteRelease(w, rel.counts, rel.raw) })
		if err != nil {
			return err
		}
		fd := add(&b, stem+"-released.csv", data, source)
		mf.Outputs = append(mf.Outputs, fd)
		r.Release = in.releaseFacts(fd)
	}
	mf.Outputs = append(mf.Outputs, app.FileDigest{Path: req.path, SHA256: report.SelfDigest}, app.FileDigest{Path: stem + ".json", SHA256: report.SelfDigest})
	r.Manifest = mf
	report.AddFigures(r, figs)
	report.KeepSections(r)
	b.Add(req.path, func(w io.Writer) error { return report.WritePDF(w, r, figs) }, source)
	b.Add(stem+".json", func(w io.Writer) error { return report.WriteJSON(w, r) }, source)
	return b.Commit(ctx)
}

// fill returns the bytes write writes.
func fill(write func(io.Writer) error) ([]byte, error) {
	var buf bytes.Buffer
	err := write(&buf)
	return buf.Bytes(), err
}

// add adds the file name of data to b and returns its digest.
func add(b *app.Batch, name string, data []byte, source string) app.FileDigest {
	b.Add(name, func(w io.Writer) error { _, err := w.Write(data); return err }, source)
	return app.BytesDigest(name, data)
}

// population audits the mechanisms the population screen has not.
func (in *reportInput) population(ctx context.Context) ([]report.Mechanism, error) {
	s := in.study.Study
	audits := make([]core.Audit, len(s.Mechanisms))
	var todo []int
	for i := range audits {
		if i < len(in.audits) && in.audits[i] != nil {
			audits[i] = *in.audits[i]
		} else {
			todo = append(todo, i)
		}
	}
	if len(todo) > 0 {
		mechs, err := app.BuildMechanisms(ctx, s, nil)
		if err != nil {
			return nil, err
		}
		var ms []core.Mechanism
		for _, i := range todo {
			ms = append(ms, mechs[i])
		}
		sub := &core.Study{Alphabet: s.Alphabet}
		for _, i := range todo {
			sub.Mechanisms = append(sub.Mechanisms, s.Mechanisms[i])
		}
		done, err := report.Audits(ctx, ms, sub)
		if err != nil {
			return nil, err
		}
		for j, i := range todo {
			audits[i] = done[j]
		}
	}
	return report.PopulationFacts(s, audits)
}

// estimate writes the estimate e beside the report and describes it.
func (in *reportInput) estimate(ctx context.Context, b *app.Batch, stem string, e reportEstimate, source string) (*report.Estimate, []report.Figure, error) {
	a := in.study.Alphabet
	data, err := fill(func(w io.Writer) error { return core.WriteEstimate(w, e.m.Estimate.Theta, a, e.iv) })
	if err != nil {
		return nil, nil, err
	}
	fd := add(b, stem+"-"+string(e.m.Method)+".csv", data, source)
	est := e.m.Estimate
	run := &report.Run{Method: string(e.m.Method), Converged: est.Converged, Iterations: est.Iterations}
	if ll := est.LogLik; ll == ll && ll > -1e308 {
		run.LogLik = &ll
	}
	if e.m.Method.Certified() {
		tol := in.run.Options.EM.GapTol
		if tol == 0 {
			tol = core.DefaultGapTol
		}
		run.Gap, run.GapTol = &est.Gap, &tol
	}
	if a := est.Alpha; a > 0 {
		run.Alpha = &a
	}
	if iv := e.iv; iv != nil {
		run.CILevel, run.CIMethod, run.CIReplicates = &iv.Level, string(iv.Method), iv.Replicates
		if iv.TV == iv.TV {
			run.CITV, run.CIMaxError = &iv.TV, &iv.MaxError
		}
	}
	var truth []float64
	if in.req.raw {
		truth = in.run.Users.Truth
	}
	ef, err := report.EstimateFacts(ctx, fd, est.Theta, e.iv, a, run, truth)
	if err != nil {
		return nil, nil, err
	}
	seed := in.run.Seed
	ef.Seed = &seed
	figs, err := report.EstimateFigures(a, ef, est.Theta, truth, e.iv, in.under)
	return ef, figs, err
}

// releaseFacts describes the window's last release, written as fd.
func (in *reportInput) releaseFacts(fd app.FileDigest) *report.Release {
	rel := in.release
	s := rel.sum
	l := &report.ReleaseLine{Mechanism: rel.spec.Mechanism, WorstEps: s.WorstEps, Sensitivity: rel.spec.Sensitivity, Secure: rel.secure,
		Neighbours: app.Contribution{Sensitivity: rel.spec.Sensitivity, Known: true}.Neighbours()}
	if !rel.secure {
		l.MAE, _, _ = core.ReleaseErrors(rel.counts.Counts, rel.released, 0)
	}
	level := rel.level
	if level == 0 {
		level = 0.95
	}
	if iv, err := rel.spec.Interval(len(rel.raw), level); err == nil {
		l.CILevel, l.CIEach, l.CIAll = &iv.Level, &iv.Each, &iv.All
		l.Accuracy = iv.Statement(rel.accuracy())
	}
	eps := fmt.Sprintf("ε %g nats for every count", rel.spec.EpsIn)
	if rel.spec.EpsOut != rel.spec.EpsIn {
		eps = fmt.Sprintf("ε %g within the break-point %g and %g beyond it", rel.spec.EpsIn, rel.spec.Break, rel.spec.EpsOut)
	}
	return report.ReleaseFacts(fd, len(rel.raw), l, eps)
}

// cachedAudits returns the audits of the rows whose mechanism is s's,
// nil for the others and while an audit runs.
func (p *populationTab) cachedAudits(s *core.Study) []*core.Audit {
	out := make([]*core.Audit, len(s.Mechanisms))
	for i, r := range p.rows {
		if i >= len(out) || r.au == nil {
			continue
		}
		if spec, err := r.spec(); err == nil && reflect.DeepEqual(spec, s.Mechanisms[i]) {
			out[i] = r.au
		}
	}
	return out
}
