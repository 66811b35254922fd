package report

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/privmap/privmap/app/guarantee"
	"github.com/privmap/privmap/app/output"
	"github.com/privmap/privmap/app/pipeline"
	"github.com/privmap/privmap/app/studyfile"
	"github.com/privmap/privmap/core"
)

// WindowCommand is the command a record of a file privmap's window wrote
// names: its facts are the window's, and no command remakes the file, so
// the manifest lists none for it.
const WindowCommand = "window"

// Files names a report's input files, as privmap report's flags do.
type Files struct {
	Study, Truth, Release, Data string
	Estimates, Records          []string
}

// Inputs are what a report describes, read: the study (with its data
// and people), the truth, the estimates and the release with the files
// that hold them, and the records that say how each was made. privmap
// report reads them from files (ReadFiles); the window has them in
// memory. Both gather the facts through Gather.
type Inputs struct {
	Study *studyfile.Study
	// StudyFile is the study's file, DataName the data file (default:
	// the one the study records); StudyWritten says the study was
	// written with the report (the window's), so among its outputs.
	StudyFile    output.FileDigest
	StudyWritten bool
	DataName     string
	// Audits are the population's audits already made, by mechanism
	// (nil entries, or a shorter slice, are audited by Gather).
	Audits []*core.Audit
	// Truth is the true distribution (nil: none), TruthFile its file.
	Truth     []float64
	TruthFile *output.FileDigest
	Estimates []EstimateInput
	Release   *ReleaseInput
	Records   []*output.Record
}

// An EstimateInput is an estimate and the file that holds it.
type EstimateInput struct {
	File      output.FileDigest
	Theta     []float64
	Intervals *core.Intervals
}

// A ReleaseInput is a central release: its file and number of counts.
type ReleaseInput struct {
	File  output.FileDigest
	Cells int
}

// Options are the report's own words and layout.
type Options struct {
	Title, Operator, Notes, Paper string
	Sections                      []string
	Created                       string // RFC 3339
	Under                         Underlay
	// Note says how the files were made when no command made them.
	Note string
	// Progress, when set, is told each stage of Gather as it starts
	// (the data file read again, the mechanisms audited, each estimate):
	// a report takes minutes on a city.
	Progress func(stage string)
}

// ReadFiles reads a report's input files: the study, the truth on the
// study's alphabet, every estimate and the release, each digested as it
// is read, and the records.
func ReadFiles(ctx context.Context, f Files) (*Inputs, error) {
	as, err := studyfile.Open(f.Study)
	if err != nil {
		return nil, err
	}
	in := &Inputs{Study: as, DataName: f.Data}
	if in.StudyFile, err = output.Digest(ctx, f.Study); err != nil {
		return nil, err
	}
	for _, n := range f.Records {
		rec, err := output.ReadRecord(n)
		if err != nil {
			return nil, err
		}
		rec.Path = n
		in.Records = append(in.Records, rec)
	}
	a := as.Study.Alphabet
	if f.Truth != "" {
		fd, err := output.DigestReading(ctx, f.Truth, func(r io.Reader) (err error) {
			in.Truth, err = core.ReadDistributionOn(r, a)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Truth, err)
		}
		in.TruthFile = &fd
	}
	for _, name := range f.Estimates {
		var e EstimateInput
		e.File, err = output.DigestReading(ctx, name, func(r io.Reader) (err error) {
			e.Theta, e.Intervals, err = core.ReadEstimateOn(r, a)
			return err
		})
		if err != nil {
			return nil, err
		}
		in.Estimates = append(in.Estimates, e)
	}
	if f.Release != "" {
		var t *core.CountTable
		fd, err := output.DigestReading(ctx, f.Release, func(r io.Reader) (err error) {
			t, err = core.ReadCountTable(r, a.Len())
			return err
		})
		if err != nil {
			return nil, err
		}
		in.Release = &ReleaseInput{File: fd, Cells: len(t.Counts)}
	}
	return in, nil
}

// Gather returns a report's facts and figures from its inputs: the data,
// the population with each mechanism's guarantee per report and per
// person, the estimates and the release with what their records say,
// and the manifest, in which own are the report's own files.
func Gather(ctx context.Context, in *Inputs, opt Options, own []string) (*Report, []Figure, error) {
	r := New(opt.Title, opt.Operator, opt.Notes, opt.Paper, opt.Sections, opt.Created)
	m := manifestBuilder{ctx: ctx, records: in.Records}
	if in.StudyWritten {
		m.output(in.StudyFile)
	} else {
		m.digested(in.StudyFile)
	}
	say := func(format string, a ...any) {
		if opt.Progress != nil {
			opt.Progress(fmt.Sprintf(format, a...))
		}
	}
	var err error
	if in.DataName != "" || in.Study.Source != nil {
		say("reading the data file again")
	}
	if r.Data, err = DataFacts(ctx, in.Study, in.DataName); err != nil {
		return nil, nil, err
	}
	if r.Data.File != nil {
		m.digested(*r.Data.File)
	}
	if r.Has(SectionPopulation) {
		say("auditing the %d mechanisms", len(in.Study.Study.Mechanisms))
		if r.Population, err = population(ctx, in.Study.Study, in.Audits); err != nil {
			return nil, nil, err
		}
	}
	if r.Attack, err = gatherAttack(ctx, r, in, say); err != nil {
		return nil, nil, err
	}
	if in.TruthFile != nil {
		m.digested(*in.TruthFile)
	}
	var figs []Figure
	for i, ei := range in.Estimates {
		say("estimate %d of %d: its errors, intervals and maps", i+1, len(in.Estimates))
		e, fig, err := gatherEstimate(ctx, in, ei, &m, opt.Under)
		if err != nil {
			return nil, nil, err
		}
		r.Estimates, figs = append(r.Estimates, *e), append(figs, fig...)
	}
	if rel := in.Release; rel != nil {
		if r.Release, err = gatherRelease(in, rel, &m); err != nil {
			return nil, nil, err
		}
	}
	r.Manifest = m.build(own)
	r.Manifest.Note = opt.Note
	r.Publishable = publishable(r)
	AddFigures(r, figs)
	KeepSections(r)
	return r, figs, m.err
}

// gatherAttack measures what an attacker learns when r has the section
// and the study mechanisms; nil otherwise.
func gatherAttack(ctx context.Context, r *Report, in *Inputs, say func(string, ...any)) (*Attack, error) {
	if !r.Has(SectionAttack) || len(in.Study.Study.Mechanisms) == 0 {
		return nil, nil
	}
	say("measuring what an attacker learns")
	a, err := attackFacts(ctx, in.Study.Study, in.Truth)
	if err != nil {
		return nil, fmt.Errorf("what an attacker learns: %w", err)
	}
	return a, nil
}

// gatherEstimate describes the estimate ei with what its record says,
// and draws its figures.
func gatherEstimate(ctx context.Context, in *Inputs, ei EstimateInput, m *manifestBuilder, under Underlay) (*Estimate, []Figure, error) {
	m.output(ei.File)
	var run *Run
	rec := recordOf(in.Records, ei.File)
	if rec != nil {
		run = new(Run)
		if err := json.Unmarshal(rec.Result, run); err != nil {
			return nil, nil, fmt.Errorf("the record of %s: %w", ei.File.Path, err)
		}
	}
	a := in.Study.Study.Alphabet
	e, err := EstimateFacts(ctx, ei.File, ei.Theta, ei.Intervals, a, guarantee.MapUnit(in.Study.Study), run, in.Truth)
	if err != nil {
		return nil, nil, err
	}
	e.Reports = reportsOf(rec, in.Records)
	e.Kind = reportsKind[e.Reports]
	if e.Intervals != nil {
		e.Intervals.addNotes(in.Study.Study, run)
	}
	if rec != nil {
		e.Command = m.commandOf(rec)
		if v, ok := argValue(rec.Args, "seed"); ok {
			if seed, err := strconv.ParseUint(v, 10, 64); err == nil {
				e.Seed = &seed
			}
		}
	}
	figs, err := EstimateFigures(a, e, ei.Theta, in.Truth, ei.Intervals, under)
	return e, figs, err
}

// gatherRelease describes the release rel with what its record says: a
// publication is listed as its recorded draw, a preview with its command.
func gatherRelease(in *Inputs, rel *ReleaseInput, m *manifestBuilder) (*Release, error) {
	m.output(rel.File)
	rec := recordOf(in.Records, rel.File)
	if rec == nil {
		return ReleaseFacts(rel.File, rel.Cells, nil, ""), nil
	}
	var line ReleaseLine
	if err := json.Unmarshal(rec.Result, &line); err != nil {
		return nil, fmt.Errorf("the record of %s: %w", rel.File.Path, err)
	}
	level := releaseLevel(rec.Args)
	if line.EpsIn > 0 {
		level = line.Level()
	}
	r := ReleaseFacts(rel.File, rel.Cells, &line, level)
	if line.Secure {
		// A publication is a recorded draw, never a command to run
		// again: another draw would be another publication.
		m.draw(rec, &line)
	} else {
		r.Command = m.commandOf(rec)
	}
	return r, nil
}

// population describes every mechanism of s with its audit, auditing
// those not given.
func population(ctx context.Context, s *core.Study, given []*core.Audit) ([]Mechanism, error) {
	audits := make([]core.Audit, len(s.Mechanisms))
	var todo []int
	for i := range audits {
		if i < len(given) && given[i] != nil {
			audits[i] = *given[i]
		} else {
			todo = append(todo, i)
		}
	}
	if len(todo) > 0 {
		mechs, err := pipeline.BuildMechanisms(ctx, s, nil)
		if err != nil {
			return nil, err
		}
		sub := &core.Study{Alphabet: s.Alphabet}
		var ms []core.Mechanism
		for _, i := range todo {
			ms = append(ms, mechs[i])
			sub.Mechanisms = append(sub.Mechanisms, s.Mechanisms[i])
		}
		done, err := Audits(ctx, ms, sub)
		if err != nil {
			return nil, err
		}
		for j, i := range todo {
			audits[i] = done[j]
		}
	}
	return PopulationFacts(s, audits)
}

// reportsOf says where an estimate's reports came from, by its record
// rec: the window simulates them; else a record of privmap simulate among
// records that made one of rec's inputs says they were simulated, and
// none that they were collected.
func reportsOf(rec *output.Record, records []*output.Record) string {
	switch {
	case rec == nil:
		return ReportsUnknown
	case rec.Command == WindowCommand:
		return ReportsSimulated
	}
	for _, r := range records {
		if r.Command == "simulate" && makes(r, rec.Inputs) {
			return ReportsSimulated
		}
	}
	return ReportsCollected
}

// recordOf returns the record whose output is the file of digest d.
func recordOf(records []*output.Record, d output.FileDigest) *output.Record {
	for _, r := range records {
		if r.Output.SHA256 == d.SHA256 {
			return r
		}
	}
	return nil
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

// releaseLevel writes a release's ε from its command's arguments, for a
// record written before its line said them.
func releaseLevel(args []string) string {
	if v, ok := argValue(args, "eps"); ok {
		return "ε " + v + " nats for every count"
	}
	in, _ := argValue(args, "eps-in")
	out, _ := argValue(args, "eps-out")
	brk, _ := argValue(args, "break")
	return fmt.Sprintf("ε %s within the break-point %s and %s beyond it", in, brk, out)
}

// manifestBuilder gathers the manifest's files (each once) and
// commands, and the first error of a digest.
type manifestBuilder struct {
	ctx             context.Context // stops the digests
	inputs, outputs []output.FileDigest
	records         []*output.Record // every record given
	used            []*output.Record // those whose commands it lists, as found
	commands        map[*output.Record]string
	draws           []string
	drawn           []*output.Record // publications' records, never commands
	err             error
}

// draw lists the publication rec made as a recorded draw: its output's
// digest and its ledger entry.
func (m *manifestBuilder) draw(rec *output.Record, line *ReleaseLine) {
	d := fmt.Sprintf("%s (SHA-256 %s): drawn for publication from crypto/rand", filepath.Base(rec.Output.Path), rec.Output.SHA256)
	if l := line.Ledger; l != nil {
		d += fmt.Sprintf(", ledger entry %d of data set %q in %s (chain head %s)", l.Entry, l.Dataset, l.Path, l.Head)
	}
	m.draws = append(m.draws, d+"; not remade by any command: another draw would be another publication")
	m.drawn = append(m.drawn, rec)
}

func (m *manifestBuilder) input(name string) {
	if name == "" || slices.ContainsFunc(m.inputs, func(d output.FileDigest) bool { return d.Path == name }) {
		return
	}
	d, err := output.Digest(m.ctx, name)
	if err != nil {
		m.err = cmp.Or(m.err, err)
		return
	}
	m.digested(d)
}

// digested adds the input d, its digest already made, unless it is
// there under another name (the study's absolute path, a record's
// relative one).
func (m *manifestBuilder) digested(d output.FileDigest) {
	if d.SHA256 == "" {
		return
	}
	if !slices.ContainsFunc(m.inputs, func(o output.FileDigest) bool {
		return o.SHA256 == d.SHA256 && filepath.Base(o.Path) == filepath.Base(d.Path)
	}) {
		m.inputs = append(m.inputs, d)
	}
}

func (m *manifestBuilder) output(d output.FileDigest) {
	if !slices.ContainsFunc(m.outputs, func(o output.FileDigest) bool { return o.Path == d.Path }) {
		m.outputs = append(m.outputs, d)
	}
}

// outputsOf returns a record's outputs: its Output and its Also.
func outputsOf(rec *output.Record) []output.FileDigest {
	return append([]output.FileDigest{rec.Output}, rec.Also...)
}

// commandOf returns the command a record lists for the fact it made:
// none for the window's.
func (m *manifestBuilder) commandOf(rec *output.Record) []string {
	if rec.Command == WindowCommand {
		return nil
	}
	return []string{m.command(rec)}
}

// command adds a record's command, its files named by their base names
// (the manifest's commands run in a folder holding them), and returns
// it.
func (m *manifestBuilder) command(rec *output.Record) string {
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
	words := []string{"privmap", shellQuote(rec.Command)}
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
		m.commands = map[*output.Record]string{}
	}
	m.commands[rec] = c
	m.used = append(m.used, rec)
	return c
}

// makes reports whether rec made one of the files of ds (same SHA-256).
func makes(rec *output.Record, ds []output.FileDigest) bool {
	for _, o := range outputsOf(rec) {
		if slices.ContainsFunc(ds, func(d output.FileDigest) bool { return d.SHA256 == o.SHA256 }) {
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
func (m *manifestBuilder) build(own []string) *Manifest {
	for grown := true; grown; {
		grown = false
		for _, r := range m.records {
			if _, used := m.commands[r]; !used && r.Command != WindowCommand && !slices.Contains(m.drawn, r) && !secureRecord(r) && makes(r, m.inputs) {
				m.command(r)
				grown = true
			}
		}
	}
	mf := &Manifest{Outputs: slices.Clone(m.outputs), Draws: m.draws}
	for _, d := range m.inputs {
		made := slices.ContainsFunc(m.used, func(r *output.Record) bool { return makes(r, []output.FileDigest{d}) })
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
		i := slices.IndexFunc(left, func(r *output.Record) bool {
			return !slices.ContainsFunc(left, func(o *output.Record) bool { return o != r && makes(o, r.Inputs) })
		})
		if i < 0 {
			i = 0 // a cycle cannot be made by commands run in turn; keep the order found
		}
		mf.Commands = append(mf.Commands, m.commands[left[i]])
		left = slices.Delete(left, i, i+1)
	}
	for _, o := range own {
		mf.Outputs = append(mf.Outputs, output.FileDigest{Path: o, SHA256: SelfDigest})
	}
	return mf
}

// secureRecord reports whether rec is a publication's (a release
// whose line says secure).
func secureRecord(rec *output.Record) bool {
	var l struct {
		Secure bool `json:"secure"`
	}
	return rec.Command == "release" && json.Unmarshal(rec.Result, &l) == nil && l.Secure
}

// shellQuote quotes a word for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.,/=:+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
