package cli

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/privmap/privmap/app"
	"github.com/privmap/privmap/app/mapplot"
	"github.com/privmap/privmap/app/report"
	"github.com/privmap/privmap/core"
	"github.com/privmap/privmap/core/emd"
	"github.com/privmap/privmap/geo"
)

// runReport is
//
//	privmap report -study S [-truth T] [-estimate E …] [-release R] [-record J …] [-data F]
//	               [-title T] [-operator NAME] [-notes TEXT] [-paper a4|letter] [-sections a,b,…]
//	               [-date RFC3339] [-basemap B] -o report.pdf
//
// It writes a privacy officer's release report (package report) and
// report.json beside it, both or neither: the study's data with their
// SHA-256, its population with each mechanism's audited guarantee per
// report and per person, each estimate with what its record (estimate
// -record) says — command, seed, certified gap, intervals — and its
// errors against the truth when the truth is given, its maps, the
// central release with its accuracy, and a manifest of every file with
// its digest and the commands that remake them.
func runReport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("report")
	var in reportInputs
	fs.StringVar(&in.study, "study", "", "study JSON `file`")
	fs.StringVar(&in.truth, "truth", "", "true distribution `file`: errors and the true map (raw data, a preview's)")
	fs.Var(&in.estimates, "estimate", "estimate CSV `file` (repeatable)")
	fs.StringVar(&in.release, "release", "", "released counts `file` (privmap release -o)")
	fs.Var(&in.records, "record", "record `file` of an estimate or release (their -record): command, seed, gap, intervals (repeatable)")
	fs.StringVar(&in.data, "data", "", "the data `file` (default: the study's own)")
	fs.StringVar(&in.title, "title", "Release report", "the report's `title`")
	fs.StringVar(&in.operator, "operator", "", "the `name` of who prepared the decision")
	fs.StringVar(&in.notes, "notes", "", "the decision's `notes`")
	fs.StringVar(&in.paper, "paper", "a4", "paper size: a4 or letter")
	sections := fs.String("sections", strings.Join(report.Sections, ","), "the `sections` to print, of "+strings.Join(report.Sections, ", "))
	date := fs.String("date", "", "the report's date, RFC 3339 (default now; SOURCE_DATE_EPOCH is honoured)")
	out := fs.String("o", "", "report PDF to write; its JSON goes beside it with the extension .json")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := cmp.Or(required(fs, "study", "o"), distinct(fs, []string{"o"}, "study", "truth", "release", "data")); err != nil {
		return err
	}
	jsonOut, err := reportPaths(*out, in.paper)
	if err != nil {
		return err
	}
	if in.sections, err = parseSections(*sections); err != nil {
		return err
	}
	if in.created, err = reportDate(*date); err != nil {
		return err
	}
	r, figs, err := gatherReport(ctx, &in, []string{*out, jsonOut})
	if err != nil {
		return err
	}
	var b app.Batch
	sources := append([]string{in.study, in.truth, in.release, in.data}, in.estimates...)
	b.Add(*out, func(w io.Writer) error { return report.WritePDF(w, r, figs) }, sources...)
	b.Add(jsonOut, func(w io.Writer) error { return report.WriteJSON(w, r) }, sources...)
	line, err := json.Marshal(map[string]any{"report": *out, "json": jsonOut, "sections": r.Sections, "estimates": len(r.Estimates), "release": r.Release != nil})
	if err != nil {
		return err
	}
	return commit(ctx, &b, stdout, stderr, printLine(line))
}

// reportInputs are report's flags.
type reportInputs struct {
	study, truth, release, data string
	estimates, records          listFlag
	title, operator, notes      string
	paper                       string
	sections                    []string
	created                     time.Time
}

// reportPaths checks -o and -paper and returns the JSON's path.
func reportPaths(out, paper string) (string, error) {
	if strings.ToLower(filepath.Ext(out)) != ".pdf" {
		return "", usageError{msg: fmt.Sprintf("-o %s: want a .pdf file (its JSON is written beside it)", out)}
	}
	if paper != "a4" && paper != "letter" {
		return "", usageError{msg: fmt.Sprintf("-paper %q: want a4 or letter", paper)}
	}
	return strings.TrimSuffix(out, filepath.Ext(out)) + ".json", nil
}

// parseSections reads -sections.
func parseSections(s string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if !slices.Contains(report.Sections, f) {
			return nil, usageError{msg: fmt.Sprintf("-sections: %q is not a section; want some of %s", f, strings.Join(report.Sections, ", "))}
		}
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out, nil
}

// reportDate returns -date, else SOURCE_DATE_EPOCH's time, else now,
// to the second, in UTC.
func reportDate(s string) (time.Time, error) {
	if s != "" {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return time.Time{}, usageError{msg: fmt.Sprintf("-date %q: want RFC 3339, such as 2026-11-26T09:30:00Z", s)}
		}
		return t.UTC(), nil
	}
	if e := os.Getenv("SOURCE_DATE_EPOCH"); e != "" {
		if sec, err := strconv.ParseInt(e, 10, 64); err == nil {
			return time.Unix(sec, 0).UTC(), nil
		}
	}
	return time.Now().UTC().Truncate(time.Second), nil
}

// gatherReport reads every input and returns the report's facts and
// figures; outputs are the report's own files, named in the manifest.
func gatherReport(ctx context.Context, in *reportInputs, outputs []string) (*report.Report, []report.Figure, error) {
	as, err := app.OpenStudy(in.study)
	if err != nil {
		return nil, nil, err
	}
	r := &report.Report{Schema: report.Schema, Title: in.title, Created: in.created.Format(time.RFC3339), Operator: in.operator, Notes: in.notes,
		Privmap: report.Build{Version: app.Version, Commit: app.Commit(), Go: runtime.Version()}, Paper: in.paper, Sections: in.sections,
		RawData: "Raw data: the true map and the true counts are people's data themselves, shown only in a preview to judge the method; " +
			"they are never part of a release. The estimates and the released counts are what may be published."}
	records, err := readRecords(in.records)
	if err != nil {
		return nil, nil, err
	}
	var m manifestBuilder
	m.input(in.study)
	if r.Data, err = dataFacts(ctx, as, in.data, &m); err != nil {
		return nil, nil, err
	}
	if r.Has(report.SectionPopulation) {
		if r.Population, err = populationFacts(ctx, as.Study); err != nil {
			return nil, nil, err
		}
	}
	var truth []float64
	if in.truth != "" {
		a := as.Study.Alphabet
		if truth, err = readTruth(in.truth, &a); err != nil {
			return nil, nil, err
		}
		m.input(in.truth)
	}
	var figs []report.Figure
	for _, name := range in.estimates {
		e, fig, err := estimateFacts(ctx, as.Study, name, truth, in.truth, records, &m)
		if err != nil {
			return nil, nil, err
		}
		r.Estimates = append(r.Estimates, *e)
		figs = append(figs, fig...)
	}
	if in.release != "" {
		if r.Release, err = releaseFacts(as.Study, in.release, records, &m); err != nil {
			return nil, nil, err
		}
	}
	r.Manifest = m.build(outputs)
	for _, f := range figs {
		r.Figures = append(r.Figures, &report.FigureRef{Section: strings.SplitN(f.Section, ":", 2)[0], Caption: f.Caption})
	}
	keepSections(r)
	return r, figs, m.err
}

// keepSections drops the facts of the sections r does not show, so that
// its JSON holds what its PDF prints.
func keepSections(r *report.Report) {
	if !r.Has(report.SectionData) {
		r.Data = nil
	}
	if !r.Has(report.SectionPopulation) {
		r.Population = nil
	}
	if !r.Has(report.SectionEstimates) {
		r.Estimates = nil
		r.Figures = slices.DeleteFunc(r.Figures, func(f *report.FigureRef) bool { return f.Section == report.SectionEstimates })
	}
	if !r.Has(report.SectionRelease) {
		r.Release = nil
	}
	if !r.Has(report.SectionManifest) {
		r.Manifest = nil
	}
}

// readRecords reads the -record files.
func readRecords(names []string) ([]*app.Record, error) {
	var out []*app.Record
	for _, n := range names {
		rec, err := app.ReadRecord(n)
		if err != nil {
			return nil, err
		}
		rec.Path = n
		out = append(out, rec)
	}
	return out, nil
}

// recordOf returns the record whose output is the file of digest d.
func recordOf(records []*app.Record, d app.FileDigest) *app.Record {
	for _, r := range records {
		if r.Output.SHA256 == d.SHA256 {
			return r
		}
	}
	return nil
}

// manifestBuilder gathers the manifest's files (each once) and
// commands, and the first error of a digest.
type manifestBuilder struct {
	inputs, outputs []app.FileDigest
	commands        []string
	err             error
}

func (m *manifestBuilder) input(name string) {
	if name == "" || slices.ContainsFunc(m.inputs, func(d app.FileDigest) bool { return d.Path == name }) {
		return
	}
	d, err := app.Digest(name)
	if err != nil {
		m.err = cmp.Or(m.err, err)
		return
	}
	m.inputs = append(m.inputs, d)
}

func (m *manifestBuilder) output(d app.FileDigest) {
	if !slices.ContainsFunc(m.outputs, func(o app.FileDigest) bool { return o.Path == d.Path }) {
		m.outputs = append(m.outputs, d)
	}
}

// command adds a record's command, its files named by their base names
// (the manifest's commands run in a folder holding them).
func (m *manifestBuilder) command(rec *app.Record) {
	paths := map[string]bool{rec.Output.Path: true, rec.Path: true}
	for _, in := range rec.Inputs {
		paths[in.Path] = true
		m.input(in.Path)
	}
	words := []string{"privmap", rec.Command}
	for _, a := range rec.Args {
		if flag, val, ok := strings.Cut(a, "="); ok && paths[val] {
			a = flag + "=" + filepath.Base(val)
		} else if paths[a] {
			a = filepath.Base(a)
		}
		words = append(words, shellQuote(a))
	}
	m.commands = append(m.commands, strings.Join(words, " "))
}

// build returns the manifest, the report's own files named without
// digests (a file cannot hold its own).
func (m *manifestBuilder) build(own []string) *report.Manifest {
	mf := &report.Manifest{Inputs: m.inputs, Outputs: slices.Clone(m.outputs), Commands: m.commands}
	for _, o := range own {
		mf.Outputs = append(mf.Outputs, app.FileDigest{Path: o, SHA256: report.SelfDigest})
	}
	return mf
}

// shellQuote quotes a word for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.,/=:+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// dataFacts describes the study's data: its file with digest and what a
// reading of it finds (check-in files), the alphabet and the people.
func dataFacts(ctx context.Context, as *app.Study, dataName string, m *manifestBuilder) (*report.Data, error) {
	s := as.Study
	d := &report.Data{Alphabet: alphabetText(s.Alphabet), Cells: s.Alphabet.Len(), Data: len(s.Data)}
	d.People, d.MostPerPerson = s.Contributions()
	if delta, bound := s.Sensitivity(); bound {
		d.Bound = delta
	}
	d.PerPerson = "every datum a person of its own"
	if s.People != nil {
		d.PerPerson = "people as the data file names them"
	}
	if as.Source != nil {
		d.Format = as.Source.Format
		if as.Source.PerUser != "" {
			d.PerPerson += "; per-person rule: " + as.Source.PerUser
		}
		dataName = cmp.Or(dataName, as.Source.Path)
	}
	if dataName == "" {
		return d, nil
	}
	fd, err := app.Digest(dataName)
	if err != nil {
		return nil, fmt.Errorf("the data file: %w", err)
	}
	d.File = &fd
	m.input(dataName)
	if f, err := geo.ParseFormat(d.Format); err == nil {
		if err := countLines(ctx, dataName, f, d); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// countLines reads a check-in file for its lines, records and
// malformed lines.
func countLines(ctx context.Context, name string, f geo.Format, d *report.Data) error {
	file, err := os.Open(name)
	if err != nil {
		return err
	}
	defer file.Close()
	records := 0
	res, err := geo.ScanCheckins(ctx, file, f, geo.Options{SkipBad: true}, func(geo.Checkin) error { records++; return nil })
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	d.Read = &report.Read{Lines: res.Lines, Records: records, Skipped: res.Skipped}
	return nil
}

// alphabetText describes an alphabet: a grid's cells, side and box, or
// a census table's attributes.
func alphabetText(a core.Alphabet) string {
	if a.Kind == core.KindGrid {
		s := fmt.Sprintf("a grid of %d×%d = %s cells of about %.3g km", a.Cols, a.Rows, app.Thousands(a.Len()), a.CellKm)
		if a.North > a.South {
			s += fmt.Sprintf(", %s–%s, %s–%s (WGS 84)", app.Lat(a.South), app.Lat(a.North), app.Lon(a.West), app.Lon(a.East))
		}
		return s
	}
	var names []string
	for _, at := range a.Attributes {
		names = append(names, at.Name)
	}
	s := fmt.Sprintf("%s alphabet of %s symbols", a.Kind, app.Thousands(a.Len()))
	if len(names) > 0 {
		s += ": the attributes " + strings.Join(names, " × ")
	}
	return s
}

// populationFacts builds and audits every mechanism of s.
func populationFacts(ctx context.Context, s *core.Study) ([]report.Mechanism, error) {
	mechs, err := app.BuildMechanisms(ctx, s, nil)
	if err != nil {
		return nil, err
	}
	shares, err := s.Shares()
	if err != nil {
		return nil, err
	}
	_, most := s.Contributions()
	audits, err := auditAll(ctx, mechs, s)
	if err != nil {
		return nil, err
	}
	var out []report.Mechanism
	for i, spec := range s.Mechanisms {
		au := audits[i]
		m := report.Mechanism{ID: spec.ID, Kind: string(spec.Kind), Level: levelWithUnits(spec, au), Eps: spec.Epsilon, Share: shares[i],
			Sensitive: len(spec.Sensitive), PerReport: app.PlainReading(au), PerPerson: app.PersonReading(au, most)}
		if m.PerPerson == "" {
			m.PerPerson = "Each person sends one report: the guarantee of one report is hers."
		}
		if !math.IsInf(au.LDP, 1) {
			m.LDP = &au.LDP
		}
		if !math.IsNaN(au.GeoInd) && !math.IsInf(au.GeoIndUpper, 1) {
			m.GeoInd, m.GeoUnit = &au.GeoIndUpper, au.GeoUnit
		}
		out = append(out, m)
	}
	return out, nil
}

// auditAll audits every mechanism, as many at once as there are cores
// (a planar mechanism on New York's 9,024 cells takes 3.6 s alone).
func auditAll(ctx context.Context, mechs []core.Mechanism, s *core.Study) ([]core.Audit, error) {
	audits := make([]core.Audit, len(mechs))
	errs := make([]error, len(mechs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(mechs)) {
		wg.Go(func() {
			for i := range next {
				audits[i], errs[i] = core.AuditMechanism(ctx, mechs[i], s.Alphabet)
			}
		})
	}
	for i := range mechs {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("mechanism %s: %w", s.Mechanisms[i].ID, err)
		}
	}
	return audits, nil
}

// levelWithUnits writes a mechanism's parameter with its units: "krr
// ε 3.05 nats per report", "planar-geometric ε 0.632 per km".
func levelWithUnits(spec core.MechanismSpec, au core.Audit) string {
	l := app.MechanismLevel(spec)
	if info, ok := spec.Kind.Info(); ok && info.Convolution && au.GeoUnit != "" {
		return l + " per " + au.GeoUnit
	}
	if strings.Contains(l, "ε") {
		return l + " nats per report"
	}
	return l
}

// estimateFacts describes the estimate file name: its digest, what its
// record says, its errors against truth (when given) and its figure.
func estimateFacts(ctx context.Context, s *core.Study, name string, truth []float64, truthName string, records []*app.Record,
	m *manifestBuilder) (*report.Estimate, []report.Figure, error) {
	est, iv, err := readEstimate(name, s.Alphabet)
	if err != nil {
		return nil, nil, err
	}
	fd, err := app.Digest(name)
	if err != nil {
		return nil, nil, err
	}
	m.output(fd)
	e := &report.Estimate{File: fd, Method: "unknown", Title: "An estimate without a record",
		Certified: "not known: no record of this file was given (privmap estimate -record writes one), so its method and convergence are not stated"}
	line := recordLine{}
	if rec := recordOf(records, fd); rec != nil {
		if err := json.Unmarshal(rec.Result, &line); err != nil {
			return nil, nil, fmt.Errorf("the record of %s: %w", name, err)
		}
		m.command(rec)
		e.Command = m.commands[len(m.commands)-1 : len(m.commands)]
		e.Method, e.Title = line.Method, core.Method(line.Method).Title()
		e.LogLik, e.Gap, e.GapTol, e.Converged = line.LogLik, line.Gap, line.GapTol, &line.Converged
		e.Certified = certifiedText(line)
		if v, ok := argValue(rec.Args, "seed"); ok {
			if seed, err := strconv.ParseUint(v, 10, 64); err == nil {
				e.Seed = &seed
			}
		}
	}
	if truth != nil {
		mt, err := emd.Compare(ctx, truth, est, s.Alphabet)
		if err != nil {
			return nil, nil, err
		}
		e.Errors = &report.Errors{TV: mt.TV, JSD: mt.JSD, SqErr: mt.MSE, Reading: app.MetricsReading(mt)}
		if !math.IsNaN(mt.EMD) {
			e.Errors.EMD, e.Errors.EMDUnit = &mt.EMD, mt.EMDUnit
		}
	}
	if iv != nil {
		e.Intervals = intervalFacts(iv, est, line)
	}
	fig, err := estimateFigure(s, name, truthName, e)
	if err != nil {
		return nil, nil, err
	}
	return e, fig, nil
}

// recordLine is what report reads of an estimate's JSON line.
type recordLine struct {
	Method       string   `json:"method"`
	LogLik       *float64 `json:"loglik"`
	Converged    bool     `json:"converged"`
	Iterations   int      `json:"iterations"`
	Gap          *float64 `json:"gap"`
	GapTol       *float64 `json:"gap_tol"`
	CILevel      *float64 `json:"ci_level"`
	CIMethod     string   `json:"ci_method"`
	CIReplicates int      `json:"ci_replicates"`
	CITV         *float64 `json:"ci_tv"`
	CIMaxError   *float64 `json:"ci_max_error"`
}

// certifiedText says an estimate's convergence in words.
func certifiedText(l recordLine) string {
	switch {
	case l.Gap != nil && l.Converged:
		return fmt.Sprintf("certified: its log-likelihood is within %.2g nats a report of the maximum (tolerance %.2g), after %d steps", *l.Gap, deref(l.GapTol), l.Iterations)
	case l.Gap != nil:
		return fmt.Sprintf("NOT certified: its log-likelihood may be %.2g nats a report below the maximum, more than the tolerance %.2g", *l.Gap, deref(l.GapTol))
	case l.Converged:
		return fmt.Sprintf("the method stopped by its own rule after %d steps (it has no certificate of optimality)", l.Iterations)
	}
	return fmt.Sprintf("the method did not converge within %d steps", l.Iterations)
}

func deref(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// argValue returns the value of -name in a command's arguments.
func argValue(args []string, name string) (string, bool) {
	for i, a := range args {
		a = strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v, true
		}
		if a == name && i+1 < len(args) {
			return args[i+1], true
		}
	}
	return "", false
}

// intervalFacts summarises an estimate's intervals.
func intervalFacts(iv *core.Intervals, est []float64, l recordLine) *report.Intervals {
	out := &report.Intervals{Level: iv.Level, Method: l.CIMethod, Replicates: l.CIReplicates, TV: l.CITV, MaxError: l.CIMaxError}
	for x := range est {
		h := (iv.Hi[x] - iv.Lo[x]) / 2
		out.MeanHalf += h / float64(len(est))
		out.MaxHalf = math.Max(out.MaxHalf, h)
	}
	level := iv.Level
	if l.CILevel != nil {
		level = *l.CILevel
	}
	out.Level = level
	p := strconv.FormatFloat(100*level, 'f', -1, 64)
	s := fmt.Sprintf("With probability %s%%, each cell's probability lies within its interval (half-width %.2g on average, %.2g at most), and every cell at once within its band", p, out.MeanHalf, out.MaxHalf)
	if out.TV != nil {
		s += fmt.Sprintf("; the total variation to the truth is at most %.3g", *out.TV)
	}
	if out.Method != "" {
		s += fmt.Sprintf(" (%s, %d replicates; approximate: docs/EXPERIMENTS.md measures how often they hold)", out.Method, out.Replicates)
	}
	out.Sentence = s + "."
	return out
}

// estimateFigure draws an estimate's maps for the report: with the
// truth, true | estimate | difference (and the uncertainty when the
// file has intervals), else the estimate (and its uncertainty) alone.
func estimateFigure(s *core.Study, name, truthName string, e *report.Estimate) ([]report.Figure, error) {
	a := s.Alphabet
	if a.Kind != core.KindGrid || !(a.North > a.South) {
		return nil, nil
	}
	opt := renderOpts{scale: mapplot.Linear, w: 2400, h: 1100, opacity: 1}
	var f *mapplot.Figure
	var err error
	if truthName != "" {
		f, err = renderFigure(s, "", truthName, name, opt)
	} else {
		f, err = estimateAlone(s, name, opt)
	}
	if err != nil {
		return nil, err
	}
	names := []string{"the estimate"}
	if truthName != "" {
		names = []string{"true map (raw data)", "estimate", "estimate − truth"}
	}
	if e.Intervals != nil {
		names = append(names, "uncertainty (interval half-width)")
	}
	var figs []report.Figure
	for i := 0; i < len(f.Maps); i += 2 {
		j := min(i+2, len(f.Maps))
		part := &mapplot.Figure{Maps: f.Maps[i:j]}
		b, err := figurePNG(part, renderOpts{w: 2000, h: 900})
		if err != nil {
			return nil, err
		}
		figs = append(figs, report.Figure{Section: report.SectionEstimates + ":" + e.File.SHA256, Caption: e.Title + ": " + strings.Join(names[i:j], " | "), PNG: b})
	}
	return figs, nil
}

// estimateAlone is the figure of an estimate without the truth.
func estimateAlone(s *core.Study, name string, opt renderOpts) (*mapplot.Figure, error) {
	a := s.Alphabet
	est, iv, err := readEstimate(name, a)
	if err != nil {
		return nil, err
	}
	f := &mapplot.Figure{Title: "privmap: " + filepath.Base(name), Maps: []*mapplot.Map{gridFigureMap(a, est, "Estimate", opt.scale)}}
	if iv != nil {
		um, err := uncertaintyMap(a, iv, func(v []float64, title string) (*mapplot.Map, error) {
			return gridFigureMap(a, v, title, opt.scale), nil
		})
		if err != nil {
			return nil, err
		}
		f.Maps = append(f.Maps, um)
	}
	f.Notes = renderNotes(s, opt, f.TypeScale(opt.w, opt.h))
	return f, nil
}

// reportPxPerPt is the report's figures' pixels a typographic point:
// 2,000 pixels span the A4 page's 174 mm of text (493 points, 4.1
// pixels a point), and type at 2.6 pixels a point prints at about 60%
// of its size: the figures' 12-point labels at about 7.5 points, legible
// beside maps that fill the width.
const reportPxPerPt = 2.6

// figurePNG draws f within opt's size as PNG, its type at
// reportPxPerPt.
func figurePNG(f *mapplot.Figure, opt renderOpts) ([]byte, error) {
	img, err := f.Image(opt.w, opt.h, reportPxPerPt)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// releaseFacts describes the released counts file name and what its
// record says.
func releaseFacts(s *core.Study, name string, records []*app.Record, m *manifestBuilder) (*report.Release, error) {
	t, err := readCountFile(name, s.Alphabet)
	if err != nil {
		return nil, err
	}
	fd, err := app.Digest(name)
	if err != nil {
		return nil, err
	}
	m.output(fd)
	r := &report.Release{File: fd, Mechanism: "unknown", Level: "not known: no record of this file was given (privmap release -record writes one)", Cells: len(t.Counts)}
	rec := recordOf(records, fd)
	if rec == nil {
		return r, nil
	}
	m.command(rec)
	r.Command = m.commands[len(m.commands)-1:]
	var line releaseLine
	if err := json.Unmarshal(rec.Result, &line); err != nil {
		return nil, fmt.Errorf("the record of %s: %w", name, err)
	}
	r.Mechanism, r.WorstEps, r.Sensitivity, r.Publication, r.Neighbours = line.Mechanism, line.WorstEps, line.Sensitivity, line.Secure, line.Neighbours
	r.LedgerSpent, r.LedgerLimit = line.LedgerSpent, line.LedgerBudget
	if !line.Secure {
		r.MAE = &line.MAE
	}
	r.Level = releaseLevel(rec.Args)
	if line.CILevel != nil && line.CIEach != nil && line.CIAll != nil {
		r.Accuracy = app.ReleaseInterval{Level: *line.CILevel, Cells: line.Cells, Each: *line.CIEach, All: *line.CIAll}.Sentence()
	}
	return r, nil
}

// releaseLevel writes a release's ε from its command's arguments.
func releaseLevel(args []string) string {
	if v, ok := argValue(args, "eps"); ok {
		return "ε " + v + " nats for every count"
	}
	in, _ := argValue(args, "eps-in")
	out, _ := argValue(args, "eps-out")
	brk, _ := argValue(args, "break")
	return fmt.Sprintf("ε %s within the break-point %s and %s beyond it", in, brk, out)
}
