package cli

import (
	"bytes"
	"cmp"
	"context"
	crand "crypto/rand"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"

	"github.com/privmap/privmap/app/guarantee"
	"github.com/privmap/privmap/app/human"
	"github.com/privmap/privmap/app/ledger"
	"github.com/privmap/privmap/app/output"
	"github.com/privmap/privmap/app/pipeline"
	"github.com/privmap/privmap/app/release"
	"github.com/privmap/privmap/app/studyfile"
	"github.com/privmap/privmap/core"
)

// releaseLineHelp says what each member of release's JSON line means,
// in -h's words (docs/COMMANDS.md and package app/release's doc in full).
const releaseLineHelp = `
The JSON line on standard output:
  worst_eps      the privacy loss one person risks at worst, in ε per person (Δ records)
  budget         the same over every way a person's Δ records fall among the cells
  abs_mean, variance, entropy
                 the noise added to one count: its mean absolute value, its variance
                 and its entropy (nats; differential for Laplace)
  mae            mean absolute error of the released counts against the truth
  mre            mean relative error: each cell's error over max(true count, 1),
                 an error within the error bound -break counting 0 (PM eq. 36)
  p_within       the share of cells whose error is at most the error bound -break
  budget_pm      the budget as PM's Table I reads it: ln E e^|L| of the privacy loss L
  worst_split    a person's Δ records in each cell at the worst case
  budget_exact   false when the splits were too many to enumerate: budget is then a bound
  secure, cells, sensitivity, neighbours, bound_in_advance, ...
                 how it was drawn and whom it protects (go doc ./app/release)
`

// runRelease is
//
//	privmap release -truth T [-study S [-clip]] -mechanism laplace|geometric|pm-laplace|pm-geometric
//	                [-eps E | -eps-in E1 -eps-out E2 -break C] [-sensitivity D] [-seed S | -secure] -o released.csv
//
// It releases the truth's counts with central noise (PM): a distribution
// file of the released counts (clipped at 0, with the raw ones beside
// them) and their distribution, and one JSON line of the noise's closed
// forms, its privacy and the release's errors against the truth. With
// the study the truth was gridded with, the unit of privacy is a person:
// Δ is the study's per-person bound (or the largest contribution), and a
// -sensitivity below some person's records is refused, or with -clip
// each person keeps Δ of them (seeded) and the rest are dropped.
func runRelease(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("release")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage of privmap release:")
		fs.PrintDefaults()
		fmt.Fprint(fs.Output(), releaseLineHelp)
	}
	truthName := fs.String("truth", "", "true distribution `file` with a count column (privmap grid writes one)")
	mech := fs.String("mechanism", "", "laplace, geometric, pm-laplace or pm-geometric")
	eps := fs.Float64("eps", 0, "ε of the laplace and geometric mechanisms")
	epsIn := fs.Float64("eps-in", 0, "pm-*: ε within the break-point")
	epsOut := fs.Float64("eps-out", 0, "pm-*: ε beyond the break-point")
	brk := fs.Float64("break", 0, "pm-*: the break-point c (a whole number for pm-geometric); laplace and geometric: the error bound of mre and p_within (default 0)")
	sens := fs.Int("sensitivity", 1, "sensitivity Δ of the counts, a whole number: λ = Δ/ε, α = e^(−ε/Δ) (default with -study: its per-person bound, else 1)")
	studyName := fs.String("study", "", "the truth's study `file`: its people and per-person bound set Δ (privmap grid -study-out)")
	clip := fs.Bool("clip", false, "with -study: keep at most Δ records of each person (a seeded draw) instead of refusing a person with more")
	ci := fs.Float64("ci", 0, "add the interval of each true count at this `level` (such as 0.95), alone and for every cell at once: columns lo,hi,band_lo,band_hi")
	suppress := fs.Float64("suppress", 0, "set released counts of at most `T` to 0: post-processing of the noisy counts, which costs no privacy (default 0: off)")
	budget := fs.Float64("budget", 0, "the total ε publications of the data set may spend, set once in the ledger; a -secure release beyond it is refused")
	raise := fs.Bool("raise-budget", false, "allow -budget above the budget already set (an entry of its own in the ledger)")
	ledgerPath := fs.String("ledger", "", "the organisation's ledger `database` (SQLite) of publications and budgets (default: privmap/ledger.sqlite in the user's data folder)")
	dataset := fs.String("dataset", "", "the data set's `name` in the ledger (default: the data file's name, else the study's or the truth's)")
	seed := fs.Uint64("seed", 1, "seed of a preview's noise")
	secure := fs.Bool("secure", false, "a release for publication: exact integer noise from crypto/rand (geometric and pm-geometric only)")
	out := fs.String("o", "", "released distribution `file` to write")
	record := fs.String("record", "", "also write the release's record, `J`.json: the command, its inputs' and output's SHA-256 and the JSON line, which privmap report reads")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := cmp.Or(required(fs, "truth", "mechanism", "o"), distinct(fs, []string{"o", "record"}, "truth", "study")); err != nil {
		return err
	}
	if err := checkStudyFlags(fs, *studyName, *clip, *budget, *raise); err != nil {
		return err
	}
	spec, err := releaseSpec(fs, *mech, *eps, *epsIn, *epsOut, *brk, *sens)
	if err != nil {
		return err
	}
	if err := checkSecure(fs, spec, *secure); err != nil {
		return err
	}
	r := releaseRun{spec: spec, truthName: *truthName, studyName: *studyName, clip: *clip, seed: *seed, secure: *secure,
		brk: *brk, contrib: guarantee.Contribution{Sensitivity: *sens}, out: *out}
	if err := r.options(fs, *budget, *suppress, *ci); err != nil {
		return err
	}
	if isSet(fs, "sensitivity") {
		r.delta = *sens
	}
	r.raise, r.datasetName, r.ledgerPath = *raise, *dataset, *ledgerPath
	line, content, err := r.draw(ctx, stderr)
	if r.ledger != nil {
		defer r.ledger.Close()
	}
	if err != nil {
		if r.imported != "" {
			return fmt.Errorf("%w\nprivmap release: %s", err, r.imported)
		}
		return err
	}
	var b output.Batch
	if err := addRecorded(ctx, &b, *out, *record, func(w io.Writer) error { _, err := w.Write(content); return err },
		"release", args, line, []string{*truthName, *studyName}); err != nil {
		return err
	}
	if err := commit(ctx, &b, stdout, stderr, printLine(line)); err != nil {
		if r.entry != nil {
			return fmt.Errorf("%w (the ledger %s records this draw as entry %d: its ε is spent on these people though its file was not written)", err, r.ledger.Path(), r.entry.Seq)
		}
		return err
	}
	r.notes(stderr)
	return nil
}

// options takes -budget, -suppress and -ci, refusing a suppression
// below 0 and a level outside (0, 1).
func (r *releaseRun) options(fs *flag.FlagSet, budget, suppress, ci float64) error {
	if isSet(fs, "budget") {
		r.budget = budget
	}
	if !(suppress >= 0) || math.IsInf(suppress, 0) {
		return usageError{msg: fmt.Sprintf("-suppress %v: want a count ≥ 0", suppress)}
	}
	r.suppress = suppress
	if isSet(fs, "ci") && !(ci > 0 && ci < 1) {
		return usageError{msg: fmt.Sprintf("-ci %v: want a level strictly between 0 and 1, such as 0.95", ci)}
	}
	r.ci = ci
	return nil
}

// checkStudyFlags refuses -clip without a study, a budget that is not a
// positive ε, and -raise-budget without one.
func checkStudyFlags(fs *flag.FlagSet, studyName string, clip bool, budget float64, raise bool) error {
	if clip && studyName == "" {
		return usageError{msg: "-clip: bounds each person's records, which the study says: give -study too"}
	}
	if isSet(fs, "budget") && (!(budget > 0) || math.IsInf(budget, 0)) {
		return usageError{msg: fmt.Sprintf("-budget %v: want a positive ε", budget)}
	}
	if raise && !isSet(fs, "budget") {
		return usageError{msg: "-raise-budget: give the new budget with -budget"}
	}
	return nil
}

// notes says on stderr what the release protects and spends: Δ read off
// the data, a preview, the ledger's total.
func (r *releaseRun) notes(stderr io.Writer) {
	fmt.Fprintln(stderr, "privmap release: "+release.Reading(r.sum, guarantee.Contribution{Sensitivity: r.spec.Sensitivity, Known: r.contrib.Known}))
	if r.interval != nil {
		fmt.Fprintln(stderr, "privmap release: "+r.interval.Statement(r.accuracy()))
	}
	if c := r.contrib; !c.InAdvance() {
		fmt.Fprintf(stderr, "privmap release: a preview only: Δ = %s is the largest contribution read off the data — %s\n", human.Thousands(c.Sensitivity), guarantee.ErrBoundFromData)
	}
	if n := r.contrib.SmallCells; n > 0 {
		who := "people"
		if !r.contrib.Known {
			who = "records (the data do not say whose)"
		}
		fmt.Fprintf(stderr, "privmap release: %s cells hold only one or two %s: their released counts are mostly noise, and a reader may take them for people; say so, or set small counts to 0 (-suppress T)\n", human.Thousands(n), who)
	}
	if r.suppress > 0 {
		fmt.Fprintf(stderr, "privmap release: %s released counts of at most %g set to 0: post-processing of the noisy counts, which costs no privacy\n", human.Thousands(r.suppressed), r.suppress)
	}
	if !r.secure {
		fmt.Fprintf(stderr, "privmap release: a preview, its noise drawn from seeded math/rand (seed %d), not published and not spent; a release for publication takes -secure (geometric mechanisms)\n", r.seed)
	}
	if r.imported != "" {
		fmt.Fprintln(stderr, "privmap release: "+r.imported)
	}
	if r.ledger != nil && r.status.Spent != nil {
		fmt.Fprintln(stderr, "privmap release: "+ledgerWords(r.status, r.ledger.Path()))
	}
}

// ledgerWords says what publications of a data set have spent.
func ledgerWords(st ledger.Status, path string) string {
	s := fmt.Sprintf("publications of data set %q have spent ε = %s in all (%d published; under basic composition their ε add up for every person)",
		st.Dataset, ledger.RatString(st.Spent), st.Publications)
	if st.Budget != nil {
		s += fmt.Sprintf(", of a budget of %s", ledger.RatString(st.Budget))
	}
	return s + fmt.Sprintf("; ledger %s, chain head %.16s…", path, st.Head)
}

// checkSecure refuses a secure release with a seed or Laplace noise.
func checkSecure(fs *flag.FlagSet, spec release.Spec, secure bool) error {
	if !secure {
		return nil
	}
	if isSet(fs, "seed") {
		return usageError{msg: "-seed: a secure release draws from crypto/rand, not from a seed"}
	}
	if !spec.Discrete() {
		return usageError{msg: "-secure: " + release.ErrPreviewOnly.Error()}
	}
	return nil
}

// releaseRun is one run of privmap release once its flags are checked.
type releaseRun struct {
	spec                 release.Spec
	truthName, studyName string
	delta                int // -sensitivity when given, else 0
	clip, secure         bool
	seed                 uint64
	brk                  float64
	contrib              guarantee.Contribution
	out                  string
	budget               float64 // -budget when given, else 0
	suppress             float64 // -suppress
	suppressed           int     // cells suppressed
	ci                   float64 // -ci, 0 for none
	interval             *release.Interval
	study                *studyfile.Study // read with -study
	sum                  release.Summary
	// The ledger: its database (opened by draw), the data set's name and
	// what it has spent, -raise-budget, and the entry of this publication.
	ledgerPath, datasetName string
	ledger                  *ledger.DB
	raise                   bool
	status                  ledger.Status
	entry                   *ledger.Entry
	imported                string // what was imported from the study, said last
	// droppedCells and mostDropped say, in a preview, in how many cells
	// clipping dropped records and at most how many from one.
	droppedCells, mostDropped int
}

// accuracy returns what besides the noise sets the release's errors.
func (r *releaseRun) accuracy() release.Accuracy {
	return release.Accuracy{Suppressed: r.suppressed, Threshold: r.suppress, Dropped: r.contrib.Dropped, Sensitivity: r.contrib.Sensitivity,
		DroppedCells: r.droppedCells, MostDropped: r.mostDropped}
}

// draw reads the truth (and the study), draws the noise and returns the
// JSON line and the released file's content; a publication is recorded
// in the ledger's database, which checks the budget in the same
// transaction, before any file is written.
func (r *releaseRun) draw(ctx context.Context, stderr io.Writer) ([]byte, []byte, error) {
	f, err := os.Open(r.truthName)
	if err != nil {
		return nil, nil, err
	}
	t, err := core.ReadCountTable(f, 0)
	f.Close()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", r.truthName, err)
	}
	if err := r.readStudy(t); err != nil {
		return nil, nil, err
	}
	// A person's loss over every way her Δ records fall among the cells.
	sum, err := r.spec.PersonSummary(len(t.Counts))
	if err != nil {
		return nil, nil, err
	}
	r.sum = sum
	if err := r.openLedger(ctx, stderr); err != nil {
		return nil, nil, err
	}
	raw, err := release.Counts(ctx, t.Counts, r.spec, r.seed, r.secure)
	if err != nil {
		return nil, nil, err
	}
	if err := r.bounds(t, raw); err != nil {
		return nil, nil, err
	}
	r.suppressed = release.Suppress(raw, r.suppress)
	t.Notes = release.Notes(r.contrib, r.suppressed, r.suppress)
	var content bytes.Buffer
	if err := release.Write(&content, t, raw); err != nil {
		return nil, nil, err
	}
	if err := r.spend(ctx, sum.WorstEps, content.Bytes()); err != nil {
		return nil, nil, err
	}
	clipped, _ := release.Clip(raw)
	mae, mre, within := release.Errors(t.Counts, clipped, r.brk)
	rl := release.NewLine(release.Facts{Spec: r.spec, Summary: sum, Contribution: r.contrib, Secure: r.secure, Cells: len(raw),
		MAE: mae, MRE: mre, PWithin: within, Suppressed: r.suppressed, Interval: r.interval, Accuracy: r.accuracy()})
	if r.ledger != nil && r.status.Spent != nil {
		spent, budget := r.status.SpentFloat(), r.status.BudgetFloat()
		rl.LedgerSpent, rl.LedgerBudget = &spent, &budget
		rl.Ledger = &release.LedgerRef{Path: r.ledger.Path(), Dataset: r.status.Dataset, Head: r.status.Head}
		if r.entry != nil {
			rl.Ledger.Entry = r.entry.Seq
		}
	}
	line, err := json.Marshal(rl)
	return line, content.Bytes(), err
}

// readStudy reads the study, if any, and replaces the truth's counts by
// its data's, bounded per person at Δ; without one, each record is taken
// for a person.
func (r *releaseRun) readStudy(t *core.CountTable) error {
	if r.studyName == "" {
		r.contrib.SmallCells = guarantee.SmallCells(t.Counts)
		return nil
	}
	var err error
	if r.study, err = studyfile.Open(r.studyName); err != nil {
		return err
	}
	whole := slices.Clone(t.Counts)
	if r.contrib, err = studyCounts(r.study.Study, r.studyName, r.truthName, t, r.delta, r.clip, r.seed, r.secure); err != nil {
		return err
	}
	if !r.secure {
		// A preview may say where clipping dropped records; a
		// publication does not.
		r.droppedCells, r.mostDropped = guarantee.DroppedCells(whole, t.Counts)
	}
	r.spec.Sensitivity = r.contrib.Sensitivity
	if err := r.spec.Validate(); err != nil {
		return fmt.Errorf("%s: %w", r.studyName, err)
	}
	if r.secure && !r.contrib.InAdvance() {
		return fmt.Errorf("%s: -secure: Δ = %s is the largest contribution, %w", r.studyName, human.Thousands(r.contrib.Sensitivity), guarantee.ErrBoundFromData)
	}
	return nil
}

// openLedger opens the ledger's database and the data set's account:
// a study's old ledger member imported once (said on stderr), the budget
// set if -budget was given (raised only with -raise-budget), what was
// spent read.
func (r *releaseRun) openLedger(ctx context.Context, stderr io.Writer) error {
	path := r.ledgerPath
	if path == "" {
		var err error
		if path, err = ledger.DefaultPath(); err != nil {
			return fmt.Errorf("the ledger: %w (give -ledger PATH)", err)
		}
	}
	db, err := ledger.Open(ctx, path)
	if db != nil {
		r.ledger = db
	}
	if err != nil {
		if r.secure || r.budget > 0 {
			return err
		}
		fmt.Fprintf(stderr, "privmap release: %v\n", err) // a preview spends nothing
	}
	r.status.Dataset = r.dataset()
	if db == nil {
		return nil
	}
	if r.study != nil && r.study.Ledger != nil && err == nil {
		if err := r.importLedger(ctx, stderr); err != nil {
			return err
		}
	}
	if r.budget > 0 {
		if err := db.SetBudget(ctx, r.status.Dataset, r.budget, r.raise, ledger.Entry{Study: r.studyName}); err != nil {
			return err
		}
	}
	if st, err := db.Status(ctx, r.status.Dataset); err == nil {
		r.status = st
	}
	return nil
}

// dataset names the data set in the ledger: -dataset, else the data
// file's name, else the study's or the truth's.
func (r *releaseRun) dataset() string {
	switch {
	case r.datasetName != "":
		return r.datasetName
	case r.study != nil && r.study.Source != nil && r.study.Source.Path != "":
		return filepath.Base(r.study.Source.Path)
	case r.studyName != "":
		return filepath.Base(r.studyName)
	}
	return filepath.Base(r.truthName)
}

// importLedger imports the study's ledger member into the database,
// once (by its digest), under the data set's name.
func (r *releaseRun) importLedger(ctx context.Context, stderr io.Writer) error {
	l := r.study.Ledger
	done, err := l.Import(ctx, r.ledger, r.status.Dataset, r.studyName)
	if err != nil {
		return err
	}
	if done {
		r.imported = fmt.Sprintf("%s: its ledger (%d publications, budget %g) imported into %s as data set %q; the study's member is now only read from there",
			r.studyName, len(l.Entries), l.Budget, r.ledger.Path(), r.status.Dataset)
	}
	return nil
}

// spend records a publication of eps whose file holds content: the
// budget checked and the entry appended in one transaction. A preview
// spends nothing.
func (r *releaseRun) spend(ctx context.Context, eps float64, content []byte) error {
	if !r.secure {
		return nil
	}
	e := ledger.Entry{Study: r.studyName, Mechanism: r.spec.Mechanism, Sensitivity: r.spec.Sensitivity, Output: filepath.Base(r.out),
		OutputSHA256: output.BytesDigest(r.out, content).SHA256, DataSHA256: r.dataDigest(ctx)}
	got, err := r.ledger.Spend(ctx, r.status.Dataset, eps, e)
	if err != nil {
		return err
	}
	r.entry = &got
	if st, err := r.ledger.Status(ctx, r.status.Dataset); err == nil {
		r.status = st
	}
	return nil
}

// dataDigest returns the SHA-256 of the data file the study names, ""
// when there is none or it cannot be read.
func (r *releaseRun) dataDigest(ctx context.Context) string {
	if r.study == nil || r.study.Source == nil || r.study.Source.Path == "" {
		return ""
	}
	d, err := output.Digest(ctx, r.study.Source.Path)
	if err != nil {
		return ""
	}
	return d.SHA256
}

// bounds sets, with -ci, the intervals the released file's columns give:
// a true count lies within ±Each of its raw released count alone, and
// within ±All for every cell at once; a count suppressed to 0 (released
// at most T) within T more; true counts are ≥ 0.
func (r *releaseRun) bounds(t *core.CountTable, raw []float64) error {
	if r.ci == 0 {
		return nil
	}
	iv, err := r.spec.Interval(len(raw), r.ci)
	if err != nil {
		return err
	}
	r.interval = &iv
	b := iv.Bounds(raw, release.Suppressible(raw, r.suppress), r.suppress)
	t.Bounds = func(x int, _ float64) (float64, float64, float64, float64) {
		return b.Lo[x], b.Hi[x], b.BandLo[x], b.BandHi[x]
	}
	return nil
}

// studyCounts replaces t's counts by those of the study's data, bounded
// per person at Δ (delta, or 0 for the study's own bound), after checking
// that the study's data are the truth's; the draw of the records kept,
// when clipping, is seeded for a preview and from crypto/rand for a
// secure release.
func studyCounts(s *core.Study, studyName, truthName string, t *core.CountTable, delta int, clip bool, seed uint64, secure bool) (guarantee.Contribution, error) {
	if len(s.Data) == 0 {
		return guarantee.Contribution{}, fmt.Errorf("%s: %w", studyName, guarantee.ErrNoData)
	}
	if !slices.Equal(guarantee.DataCounts(s), t.Counts) {
		return guarantee.Contribution{}, fmt.Errorf("%s: its data are not the counts of %s: give the truth and the study privmap grid wrote together", studyName, truthName)
	}
	rng := pipeline.NewRand(seed)
	if secure {
		var key [32]byte
		if _, err := crand.Read(key[:]); err != nil {
			return guarantee.Contribution{}, err
		}
		rng = rand.New(rand.NewChaCha8(key))
	}
	counts, c, err := guarantee.StudyCounts(s, delta, clip, rng)
	if err != nil {
		return c, fmt.Errorf("%s: %w", studyName, err)
	}
	t.Counts = counts
	return c, nil
}

// releaseSpec reads the mechanism's flags: -eps for the standard
// mechanisms, -eps-in, -eps-out and -break for the mixtures.
func releaseSpec(fs *flag.FlagSet, mech string, eps, epsIn, epsOut, brk float64, sens int) (release.Spec, error) {
	s := release.Spec{Mechanism: mech, Break: brk, Sensitivity: sens}
	switch mech {
	case release.Laplace, release.Geometric:
		if isSet(fs, "eps-in") || isSet(fs, "eps-out") {
			return s, usageError{msg: fmt.Sprintf("-eps-in, -eps-out: for pm-laplace and pm-geometric; %s takes -eps", mech)}
		}
		if !isSet(fs, "eps") {
			return s, usageError{msg: fmt.Sprintf("%s needs -eps", mech)}
		}
		s.EpsIn, s.EpsOut = eps, eps
	case release.PMLaplace, release.PMGeometric:
		if isSet(fs, "eps") {
			return s, usageError{msg: fmt.Sprintf("-eps: for laplace and geometric; %s takes -eps-in, -eps-out and -break", mech)}
		}
		for _, name := range []string{"eps-in", "eps-out", "break"} {
			if !isSet(fs, name) {
				return s, usageError{msg: fmt.Sprintf("%s needs -eps-in, -eps-out and -break", mech)}
			}
		}
		s.EpsIn, s.EpsOut = epsIn, epsOut
	default:
		return s, usageError{msg: fmt.Sprintf("-mechanism %q: want laplace, geometric, pm-laplace or pm-geometric", mech)}
	}
	if !(brk >= 0) {
		return s, usageError{msg: fmt.Sprintf("-break %v: want ≥ 0", brk)}
	}
	if err := s.Validate(); err != nil {
		return s, usageError{msg: err.Error()}
	}
	return s, nil
}
