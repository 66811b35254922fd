package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/privmap/privmap/app"
	"github.com/privmap/privmap/app/basemap"
	"github.com/privmap/privmap/app/mapplot"
	"github.com/privmap/privmap/app/report"
	"github.com/privmap/privmap/core"
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
	fs.StringVar(&in.basemap, "basemap", "", "map tiles under the maps: an MBTiles `file` or an XYZ URL template such as "+basemap.OSMTemplate)
	fs.Float64Var(&in.opacity, "opacity", mapplot.DefaultOpacity, "opacity of the maps over the basemap, 0–1")
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
	if !(in.opacity > 0 && in.opacity <= 1) {
		return usageError{msg: fmt.Sprintf("-opacity %v: want a number in (0, 1]", in.opacity)}
	}
	in.stderr = stderr
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
	basemap                     string
	opacity                     float64
	stderr                      io.Writer
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
	r := report.New(in.title, in.operator, in.notes, in.paper, in.sections, in.created.Format(time.RFC3339))
	records, err := readRecords(in.records)
	if err != nil {
		return nil, nil, err
	}
	m := manifestBuilder{records: records}
	m.input(in.study)
	if r.Data, err = report.DataFacts(ctx, as, in.data); err != nil {
		return nil, nil, err
	}
	if r.Data.File != nil {
		m.digested(*r.Data.File)
	}
	if r.Has(report.SectionPopulation) {
		if r.Population, err = population(ctx, as.Study); err != nil {
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
	under, closeBase, err := in.underlay(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer closeBase()
	var figs []report.Figure
	for _, name := range in.estimates {
		e, fig, err := estimateFacts(ctx, as.Study, name, truth, records, &m, under)
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
	report.AddFigures(r, figs)
	report.KeepSections(r)
	return r, figs, m.err
}

// underlay opens -basemap and returns the underlay of the report's
// maps (nil without one) and what closes it; a basemap that cannot be
// reached is said on stderr and the maps go without it, their caption
// saying so.
func (in *reportInputs) underlay(ctx context.Context) (report.Underlay, func(), error) {
	src, err := openBasemap(in.basemap)
	if err != nil || src == nil {
		return nil, func() {}, err
	}
	closeBase := func() {
		if c, ok := src.(io.Closer); ok {
			c.Close()
		}
	}
	return func(maps []*mapplot.Map) string {
		credit, err := underlay(ctx, src, maps, renderOpts{w: 2000, h: 900, opacity: in.opacity})
		if err != nil {
			fmt.Fprintf(in.stderr, "privmap report: basemap %s: %v; the maps are drawn without it\n", in.basemap, err)
			return "none (" + basemap.Reason(err) + ")" // the full reason on stderr only
		}
		return credit
	}, closeBase, nil
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
	records         []*app.Record // every record given
	used            []*app.Record // those whose commands it lists, as found
	commands        map[*app.Record]string
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
	m.digested(d)
}

// digested adds the input d, its digest already made, unless it is
// there under another name (the study's absolute path, a record's
// relative one).
func (m *manifestBuilder) digested(d app.FileDigest) {
	if !slices.ContainsFunc(m.inputs, func(o app.FileDigest) bool {
		return o.SHA256 == d.SHA256 && filepath.Base(o.Path) == filepath.Base(d.Path)
	}) {
		m.inputs = append(m.inputs, d)
	}
}

func (m *manifestBuilder) output(d app.FileDigest) {
	if !slices.ContainsFunc(m.outputs, func(o app.FileDigest) bool { return o.Path == d.Path }) {
		m.outputs = append(m.outputs, d)
	}
}

// outputsOf returns a record's outputs: its Output and its Also.
func outputsOf(rec *app.Record) []app.FileDigest {
	return append([]app.FileDigest{rec.Output}, rec.Also...)
}

// command adds a record's command, its files named by their base names
// (the manifest's commands run in a folder holding them), and returns
// it.
func (m *manifestBuilder) command(rec *app.Record) string {
	if c, ok := m.commands[rec]; ok {
		return c
	}
	paths := map[string]bool{rec.Path: true}
	for _, o := range outputsOf(rec) {
		paths[o.Path] = true
	}
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
	c := strings.Join(words, " ")
	if m.commands == nil {
		m.commands = map[*app.Record]string{}
	}
	m.commands[rec] = c
	m.used = append(m.used, rec)
	return c
}

// makes reports whether rec made one of the files of ds (same SHA-256).
func makes(rec *app.Record, ds []app.FileDigest) bool {
	for _, o := range outputsOf(rec) {
		if slices.ContainsFunc(ds, func(d app.FileDigest) bool { return d.SHA256 == o.SHA256 }) {
			return true
		}
	}
	return false
}

// build returns the manifest: the commands of the records used and of
// every record that made one of their inputs (privmap grid's and
// simulate's), the makers before the users; the files some command
// makes among the outputs, the others the inputs; and the report's own
// files named without digests (a file cannot hold its own).
func (m *manifestBuilder) build(own []string) *report.Manifest {
	for grown := true; grown; {
		grown = false
		for _, r := range m.records {
			if _, used := m.commands[r]; !used && makes(r, m.inputs) {
				m.command(r)
				grown = true
			}
		}
	}
	mf := &report.Manifest{Outputs: slices.Clone(m.outputs)}
	for _, d := range m.inputs {
		made := slices.ContainsFunc(m.used, func(r *app.Record) bool { return makes(r, []app.FileDigest{d}) })
		if made {
			mf.Outputs = append(mf.Outputs, d)
		} else {
			mf.Inputs = append(mf.Inputs, d)
		}
	}
	// Makers first: a record goes once none of the others left makes
	// one of its inputs.
	left := slices.Clone(m.used)
	for len(left) > 0 {
		i := slices.IndexFunc(left, func(r *app.Record) bool {
			return !slices.ContainsFunc(left, func(o *app.Record) bool { return o != r && makes(o, r.Inputs) })
		})
		if i < 0 {
			i = 0 // a cycle cannot be made by commands run in turn; keep the order found
		}
		mf.Commands = append(mf.Commands, m.commands[left[i]])
		left = slices.Delete(left, i, i+1)
	}
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

// estimateFacts describes the estimate file name: its digest, what its
// record says, its errors against truth (when given) and its figures.
func estimateFacts(ctx context.Context, s *core.Study, name string, truth []float64, records []*app.Record,
	m *manifestBuilder, under report.Underlay) (*report.Estimate, []report.Figure, error) {
	// Read once, digested as it is read.
	var est []float64
	var iv *core.Intervals
	fd, err := app.DigestReading(name, func(r io.Reader) (err error) {
		est, iv, err = core.ReadEstimateOn(r, s.Alphabet)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	m.output(fd)
	var run *report.Run
	rec := recordOf(records, fd)
	if rec != nil {
		run = new(report.Run)
		if err := json.Unmarshal(rec.Result, run); err != nil {
			return nil, nil, fmt.Errorf("the record of %s: %w", name, err)
		}
	}
	e, err := report.EstimateFacts(ctx, fd, est, iv, s.Alphabet, run, truth)
	if err != nil {
		return nil, nil, err
	}
	if rec != nil {
		e.Command = []string{m.command(rec)}
		if v, ok := argValue(rec.Args, "seed"); ok {
			if seed, err := strconv.ParseUint(v, 10, 64); err == nil {
				e.Seed = &seed
			}
		}
	}
	figs, err := report.EstimateFigures(s.Alphabet, e, est, truth, iv, under)
	return e, figs, err
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

// releaseFacts describes the released counts file name and what its
// record says.
func releaseFacts(s *core.Study, name string, records []*app.Record, m *manifestBuilder) (*report.Release, error) {
	var t *core.CountTable
	fd, err := app.DigestReading(name, func(r io.Reader) (err error) {
		t, err = core.ReadCountTable(r, s.Alphabet.Len())
		return err
	})
	if err != nil {
		return nil, err
	}
	m.output(fd)
	rec := recordOf(records, fd)
	if rec == nil {
		return report.ReleaseFacts(fd, len(t.Counts), nil, ""), nil
	}
	var line report.ReleaseLine
	if err := json.Unmarshal(rec.Result, &line); err != nil {
		return nil, fmt.Errorf("the record of %s: %w", name, err)
	}
	r := report.ReleaseFacts(fd, len(t.Counts), &line, releaseLevel(rec.Args))
	r.Command = []string{m.command(rec)}
	return r, nil
}

// population builds and audits every mechanism of s.
func population(ctx context.Context, s *core.Study) ([]report.Mechanism, error) {
	mechs, err := app.BuildMechanisms(ctx, s, nil)
	if err != nil {
		return nil, err
	}
	audits, err := report.Audits(ctx, mechs, s)
	if err != nil {
		return nil, err
	}
	return report.PopulationFacts(s, audits)
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
