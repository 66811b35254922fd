package gui

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/privmap/privmap/app/mapplot"
	"github.com/privmap/privmap/app/output"
	"github.com/privmap/privmap/app/pipeline"
	"github.com/privmap/privmap/app/release"
	"github.com/privmap/privmap/app/report"
	"github.com/privmap/privmap/app/studyfile"
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
	report.SectionContext: "Context", report.SectionData: "Data", report.SectionPopulation: "Population", report.SectionAttack: "Attacker",
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
	// The study the report describes holds the data and their people,
	// as privmap grid -study-out writes it: whom the guarantees protect.
	ps := u.ws.data.personStudy()
	st := *as.Study
	st.Data, st.People, st.MaxPerPerson = ps.Data, ps.People, ps.MaxPerPerson
	as.Study = &st
	in := &reportInput{req: req, study: as, audits: u.pop.cachedAudits(as.Study), release: u.rel.last, ledger: u.rel.ledgerRef()}
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
	study     *studyfile.Study
	audits    []*core.Audit // the population screen's, nil where none
	run       *pipeline.Result
	estimates []reportEstimate
	release   *releaseResult
	ledger    *ledgerAccount
	// under lays the window's basemap (its tiles on screen) under the
	// report's maps; nil without one.
	under report.Underlay
}

type reportEstimate struct {
	m  methodResult
	iv *core.Intervals
}

// write gathers the facts through report.Gather, as privmap report
// does, and writes, all or none, the PDF, its JSON, the study (with its
// data and people), every estimate and the release beside it, and a
// record of each of these saying what the window knows of it, so that
// privmap report on the same files states the same facts.
func (in *reportInput) write(ctx context.Context) error {
	req := in.req
	stem := strings.TrimSuffix(req.path, filepath.Ext(req.path))
	var b output.Batch
	var source string
	if in.study.Source != nil {
		source = in.study.Source.Path
	}
	studyBytes, err := fill(func(w io.Writer) error { return studyfile.Write(w, in.study) })
	if err != nil {
		return err
	}
	inputs := &report.Inputs{Study: in.study, StudyFile: add(&b, stem+"-study.json", studyBytes, source), StudyWritten: true, Audits: in.audits}
	if in.req.raw && in.run != nil {
		inputs.Truth = in.run.Users.Truth
	}
	record := func(name string, out output.FileDigest, args []string, line any) error {
		result, err := json.Marshal(line)
		if err != nil {
			return err
		}
		rec, err := output.NewRecord(ctx, report.WindowCommand, args, nil, out, result)
		if err != nil {
			return err
		}
		data, err := fill(func(w io.Writer) error { return output.WriteRecord(w, rec) })
		if err != nil {
			return err
		}
		add(&b, name, data, source)
		inputs.Records = append(inputs.Records, rec)
		return nil
	}
	if err := in.writeEstimates(&b, stem, source, inputs, record); err != nil {
		return err
	}
	if err := in.writeRelease(&b, stem, source, inputs, record); err != nil {
		return err
	}
	opt := report.Options{Title: req.title, Operator: req.operator, Notes: req.notes, Paper: req.paper, Sections: req.sections,
		Created: time.Now().UTC().Truncate(time.Second).Format(time.RFC3339), Under: in.under,
		Note: "Made in privmap's window: the files below were written with this report, each with a record of what the window knows of it (privmap report -study " +
			filepath.Base(stem) + "-study.json with them and their -record files states the same facts). " +
			"privmap estimate -study " + filepath.Base(stem) + "-study.json with the reports remakes an estimate; the window's reports are simulated and not kept."}
	r, figs, err := report.Gather(ctx, inputs, opt, []string{req.path, stem + ".json"})
	if err != nil {
		return err
	}
	b.Add(req.path, func(w io.Writer) error { return report.WritePDF(w, r, figs) }, source)
	b.Add(stem+".json", func(w io.Writer) error { return report.WriteJSON(w, r) }, source)
	return b.Commit(ctx)
}

// recorder adds a record of a file the window writes to the batch and
// to the report's inputs.
type recorder func(name string, out output.FileDigest, args []string, line any) error

// writeEstimates adds every estimate and its record to b and inputs.
func (in *reportInput) writeEstimates(b *output.Batch, stem, source string, inputs *report.Inputs, record recorder) error {
	a := in.study.Study.Alphabet
	for _, e := range in.estimates {
		data, err := fill(func(w io.Writer) error { return core.WriteEstimate(w, e.m.Estimate.Theta, a, e.iv) })
		if err != nil {
			return err
		}
		name := stem + "-" + string(e.m.Method)
		fd := add(b, name+".csv", data, source)
		inputs.Estimates = append(inputs.Estimates, report.EstimateInput{File: fd, Theta: e.m.Estimate.Theta, Intervals: e.iv})
		if err := record(name+".record.json", fd, []string{"-seed", strconv.FormatUint(in.run.Seed, 10)}, in.runLine(e)); err != nil {
			return err
		}
	}
	return nil
}

// writeRelease adds the last release, if any, and its record to b and
// inputs.
func (in *reportInput) writeRelease(b *output.Batch, stem, source string, inputs *report.Inputs, record recorder) error {
	rel := in.release
	if rel == nil {
		return nil
	}
	data, err := fill(func(w io.Writer) error { return release.Write(w, rel.counts, rel.raw) })
	if err != nil {
		return err
	}
	fd := add(b, stem+"-released.csv", data, source)
	inputs.Release = &report.ReleaseInput{File: fd, Cells: len(rel.raw)}
	var args []string
	if !rel.secure {
		args = []string{"-seed", strconv.FormatUint(rel.seed, 10)}
	}
	return record(stem+"-released.record.json", fd, args, in.releaseLine())
}

// fill returns the bytes write writes.
func fill(write func(io.Writer) error) ([]byte, error) {
	var buf bytes.Buffer
	err := write(&buf)
	return buf.Bytes(), err
}

// add adds the file name of data to b and returns its digest.
func add(b *output.Batch, name string, data []byte, source string) output.FileDigest {
	b.Add(name, func(w io.Writer) error { _, err := w.Write(data); return err }, source)
	return output.BytesDigest(name, data)
}

// runLine returns what the window knows of an estimate, as privmap
// estimate's JSON line says it.
func (in *reportInput) runLine(e reportEstimate) *report.Run {
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
	return run
}

// releaseLine returns the window's last release's JSON line, made as
// privmap release makes it (release.NewLine).
func (in *reportInput) releaseLine() *release.Line {
	rel := in.release
	level := rel.level
	if level == 0 {
		level = intervalLevel
	}
	c := 0.0
	if rel.spec.Mixture() {
		c = rel.spec.Break
	}
	mae, mre, within := release.Errors(rel.counts.Counts, rel.released, c)
	f := release.Facts{Spec: rel.spec, Summary: rel.sum, Contribution: rel.contrib, Secure: rel.secure, Cells: len(rel.raw),
		MAE: mae, MRE: mre, PWithin: within, Suppressed: rel.suppressed, Accuracy: rel.accuracy()}
	if iv, err := rel.spec.Interval(len(rel.raw), level); err == nil {
		f.Interval = &iv
	}
	l := release.NewLine(f)
	if led := in.ledger; led != nil {
		spent, budget := led.status.SpentFloat(), led.status.BudgetFloat()
		l.LedgerSpent, l.LedgerBudget = &spent, &budget
		l.Ledger = &release.LedgerRef{Path: led.path, Dataset: led.status.Dataset, Head: led.status.Head}
		if rel.entry != nil {
			l.Ledger.Entry = rel.entry.Seq
		}
	}
	return l
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
