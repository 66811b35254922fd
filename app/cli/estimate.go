package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/privmap/privmap/app/human"
	"github.com/privmap/privmap/app/interval"
	"github.com/privmap/privmap/app/output"
	"github.com/privmap/privmap/app/pipeline"
	"github.com/privmap/privmap/core"
)

// runEstimate is
//
//	privmap estimate -study S -reports R -method M [-post proj|norm|none]
//	                 [-alpha A | -alpha-from estimate|reports -alpha-sims N -alpha-loss tv|squared] [-tol D] [-gap-tol G] [-max-iter N]
//	                 [-ci L [-ci-method auto|bootstrap|profile|local-profile|fisher] [-boot B] [-seed S]] -o estimate.csv
//
// It reconstructs the distribution of the users' data from their reports
// and writes it as a distribution CSV, printing one JSON line with the
// method, log-likelihood, iterations, convergence and time (and α for
// cem) on stdout. With -ci it adds each cell's interval and the
// simultaneous band at level L (interval.Of) as the columns
// lo,hi,band_lo,band_hi, and the level, method, replicates and the
// bounds on the error figures to the JSON line.
func runEstimate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("estimate")
	studyName := fs.String("study", "", "study JSON `file`")
	reportsName := fs.String("reports", "", "reports `file`: CSV (user,mechanism,report or mechanism,report,count), Parquet with those columns, or a directory of part-*.parquet files")
	method := fs.String("method", string(core.MethodGIBU), "estimator: "+core.MethodNames(", ", ", "))
	post := fs.String("post", string(core.PostProj), "post-processing of inv and rap estimates: proj, norm or none")
	alpha := fs.Float64("alpha", 0, "cem: fixed weight α of the correction (default: chosen by simulation)")
	alphaFrom := fs.String("alpha-from", string(core.SimulateEstimate), "cem: where the simulation that chooses α draws its data: estimate (EM's estimate, a parametric bootstrap) or reports (the reports' frequencies, CEM §4.3 as written for k-RR)")
	alphaSims := fs.Int("alpha-sims", core.DefaultCEMSims, "cem: simulations whose errors are averaged to choose α")
	alphaLoss := fs.String("alpha-loss", string(core.LossTV), "cem: the error α's choice minimises: tv (total variation) or squared (CEM §4.3)")
	printed := fs.Bool("printed-hessian", false, "cem: use ∇²s as CEM eq. (24) prints it, without the factor 2")
	seed := fs.Uint64("seed", 1, "seed of cem's simulation that chooses α and of -ci's bootstrap")
	tol := fs.Float64("tol", 0, "EM: stop when the log-likelihood changes by less than `δ` (default 1e-14, relative)")
	gapTol := fs.Float64("gap-tol", 0, fmt.Sprintf("EM: converged when the certified log-likelihood gap to the MLE is at most `δ` nats per report (default %g)", core.DefaultGapTol))
	maxIter := fs.Int("max-iter", 0, "EM: at most `N` steps, EM and Newton (default 100000)")
	signif := fs.Float64("significance", 0, "uldp: keep estimates above the Bonferroni threshold at this level (e.g. 0.05)")
	var backgrounds backgroundFlag
	fs.Var(&backgrounds, "background", "uldp with pum: `TAG=FILE`, the distribution of the tag's cells (repeatable)")
	cif := ciFlagsOf(fs)
	out := fs.String("o", "", "estimate CSV to write")
	record := fs.String("record", "", "also write the estimate's record, `J`.json: the command, its inputs' and output's SHA-256 and the JSON line, which privmap report reads")
	if err := parse(fs, args); err != nil {
		return err
	}
	ci, err := cif.ci(fs, *seed)
	if err = cmp.Or(err, required(fs, "study", "reports", "o"), distinct(fs, []string{"o", "record"}, "study", "reports")); err != nil {
		return err
	}
	cemOpt := core.CEMOptions{Alpha: *alpha, From: core.CEMSimulation(*alphaFrom), Sims: *alphaSims, Loss: core.CEMLoss(*alphaLoss), Printed: *printed, Seed: *seed}
	if err := checkEstimateFlags(*tol, *gapTol, *maxIter, *signif, cemOpt); err != nil {
		return err
	}
	if *gapTol == 0 {
		*gapTol = core.DefaultGapTol
	}
	s, mechs, g, bg, err := estimateInputs(ctx, *studyName, *reportsName, backgrounds, stderr, ci)
	if err != nil {
		return err
	}
	start := time.Now()
	say := progressLine(stderr, *method)
	opt := core.EstimateOptions{
		EM: core.EMOptions{Tol: *tol, GapTol: *gapTol, MaxIter: *maxIter,
			Progress: func(iter int, ll, gap float64) {
				say("step %d, log-likelihood %.10g, gap %.1g", iter, ll, math.Max(gap, 0))
			},
			Inner: func(iter int, done float64) {
				say("step %d, Newton step: conjugate gradients %.0f%%", iter, 100*done)
			}},
		Post: core.Post(*post),
		CEM:  cemOpt,
		ULDP: core.ULDPOptions{Significance: *signif, Background: bg},
	}
	opt.CEM.Progress = func(stage string, done float64) { say("bias correction: %s %.0f%%", stage, 100*done) }
	sayCost(stderr, *method, s, g, opt, ci)
	est, err := core.Reconstruct(ctx, core.Method(*method), s, mechs, g, opt)
	if err != nil {
		// The reports were read: what failed is the method, not the file.
		return fmt.Errorf("%s: %w", *method, err)
	}
	if note := pipeline.AlphaNote(est, opt.CEM); note != "" {
		fmt.Fprintf(stderr, "privmap: %s\n", note)
	}
	iv, line, err := withIntervals(ctx, core.Method(*method), s, mechs, g, est, opt, ci, start, *gapTol, stderr)
	if err != nil {
		return err
	}
	var b output.Batch
	if err := addRecorded(ctx, &b, *out, *record, func(w io.Writer) error { return core.WriteEstimate(w, est.Theta, s.Alphabet, iv.core()) },
		"estimate", args, line, append([]string{*studyName, *reportsName}, backgrounds.files()...)); err != nil {
		return err
	}
	return commit(ctx, &b, stdout, stderr, func(w io.Writer) {
		printLine(line)(w)
		iv.say(stderr, s.Alphabet)
	})
}

// sayCost tells stderr, before a run expected to take over five seconds
// or 100 MB, what the cost model expects of it and of its intervals, if
// ci asks for them, on this machine.
func sayCost(stderr io.Writer, method string, s *core.Study, g *core.Groups, opt core.EstimateOptions, ci interval.CI) {
	req := pipeline.Request{Study: s, Methods: []core.Method{core.Method(method)}, Users: pipeline.Users{N: g.N()}, Options: opt, CI: ci}
	c := pipeline.MethodCosts(req)[0]
	if c.Time > 5*time.Second || c.Bytes >= 1e8 {
		what := method
		if ci.Level > 0 {
			what += " and its intervals"
		}
		fmt.Fprintf(stderr, "privmap: %s: expected %s on %s symbols and %s reports (privmap's cost model for this machine)\n",
			what, c, human.Thousands(s.Alphabet.Len()), human.Thousands(g.N()))
	}
}

// withIntervals computes est's intervals when ci asks for them, and the
// JSON line of the estimate begun at start.
func withIntervals(ctx context.Context, method core.Method, s *core.Study, mechs []core.Mechanism, g *core.Groups, est *core.Estimate,
	opt core.EstimateOptions, ci interval.CI, start time.Time, gapTol float64, stderr io.Writer) (*estimateCI, []byte, error) {
	var iv *estimateCI
	if ci.Level > 0 {
		e, err := estimateIntervals(ctx, method, s, mechs, g, est, opt, ci, stderr)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: -ci: %w", method, err)
		}
		iv = &estimateCI{e}
	}
	var e *interval.Set
	if iv != nil {
		e = iv.Set
	}
	line, err := resultLine(method, est, time.Since(start).Seconds(), gapTol, e)
	return iv, line, err
}

// estimateCI are an estimate's intervals, or none when nil.
type estimateCI struct{ *interval.Set }

// say prints on w what the intervals claim, if any.
func (e *estimateCI) say(w io.Writer, a core.Alphabet) {
	if e != nil {
		fmt.Fprintf(w, "privmap: %s\n", interval.Sentence(e.Set, a))
	}
}

// core returns the intervals to write, nil for none.
func (e *estimateCI) core() *core.Intervals {
	if e == nil {
		return nil
	}
	return e.Intervals
}

// estimateIntervals computes the intervals of est as ci says, printing
// progress on stderr every five seconds and what the intervals assume.
func estimateIntervals(ctx context.Context, method core.Method, s *core.Study, mechs []core.Mechanism, g *core.Groups, est *core.Estimate,
	opt core.EstimateOptions, ci interval.CI, stderr io.Writer) (*interval.Set, error) {
	say := progressLine(stderr, string(method))
	for _, note := range []string{interval.CoverageNote(method, ci.MethodFor(method, s), s), interval.Caveat(s, g)} {
		if note != "" {
			fmt.Fprintf(stderr, "privmap: %s\n", note)
		}
	}
	opt.EM.Progress, opt.EM.Inner = nil, nil
	return interval.Of(ctx, method, s, mechs, g, est, opt, ci, func(f float64) { say("intervals %.0f%%", 100*f) })
}

// estimateInputs reads what privmap estimate works on: the study, its
// mechanisms, the grouped reports and the PUM backgrounds.
func estimateInputs(ctx context.Context, studyName, reportsName string, backgrounds backgroundFlag, stderr io.Writer, ci interval.CI) (
	*core.Study, []core.Mechanism, *core.Groups, map[string][]float64, error) {
	s, err := readStudy(studyName)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	if ci.Level > 0 {
		// Refused before the mechanisms are built and the estimate runs.
		if err := ci.CheckStudy(s); err != nil {
			return nil, nil, nil, nil, usageError{msg: "-ci: " + err.Error()}
		}
	}
	mechs, err := buildAll(ctx, studyName, s, stderr)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	g, err := pipeline.ReadReportsFile(ctx, reportsName, s, mechs)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	bg, err := backgrounds.read(s)
	return s, mechs, g, bg, err
}

// checkEstimateFlags checks estimate's numeric flags and α's
// simulation.
func checkEstimateFlags(tol, gapTol float64, maxIter int, signif float64, cem core.CEMOptions) error {
	if tol < 0 || gapTol < 0 || maxIter < 0 || cem.Alpha < 0 || signif < 0 || signif >= 1 {
		return usageError{msg: "-tol, -gap-tol, -max-iter and -alpha must be ≥ 0 and -significance in [0, 1)"}
	}
	if cem.Sims < 1 {
		return usageError{msg: fmt.Sprintf("-alpha-sims %d: want at least 1 simulation", cem.Sims)}
	}
	if err := core.CheckCEMChoice(cem.From, cem.Sims, cem.Loss); err != nil {
		return usageError{msg: err.Error()}
	}
	return nil
}

// resultLine returns the JSON line of an estimate: for the iterative
// maximum-likelihood methods with the certified gap and its tolerance.
func resultLine(method core.Method, est *core.Estimate, secs, gapTol float64, iv *interval.Set) ([]byte, error) {
	res := struct {
		Method     core.Method `json:"method"`
		LogLik     *float64    `json:"loglik"`
		Iterations int         `json:"iterations"`
		Converged  bool        `json:"converged"`
		Seconds    float64     `json:"seconds"`
		Alpha      *float64    `json:"alpha,omitempty"`
		AlphaLoss  *float64    `json:"alpha_loss,omitempty"`
		EMLoss     *float64    `json:"em_loss,omitempty"`
		Gap        *float64    `json:"gap,omitempty"`
		GapTol     *float64    `json:"gap_tol,omitempty"`
		*ciFields
	}{Method: method, Iterations: est.Iterations, Converged: est.Converged, Seconds: math.Round(secs*1000) / 1000, ciFields: newCIFields(iv)}
	if !math.IsInf(est.LogLik, 0) && !math.IsNaN(est.LogLik) {
		res.LogLik = &est.LogLik // null when the estimate rules some report out
	}
	if info, _ := method.Info(); info.Alpha {
		res.Alpha = &est.Alpha
		if est.EMLoss > 0 {
			res.AlphaLoss, res.EMLoss = &est.AlphaLoss, &est.EMLoss
		}
	}
	if method.Certified() {
		res.Gap, res.GapTol = &est.Gap, &gapTol
	}
	return json.Marshal(res)
}

// ciFlags are estimate's -ci, -ci-method and -boot.
type ciFlags struct {
	level  *float64
	method *string
	boot   *int
}

func ciFlagsOf(fs *flag.FlagSet) ciFlags {
	return ciFlags{
		level:  fs.Float64("ci", 0, "add each cell's interval and a band for all cells at once at this `level` (such as 0.95): columns lo,hi,band_lo,band_hi"),
		method: fs.String("ci-method", string(interval.Auto), "-ci: auto (for gibu and em local-profile on a grid of k-RR and planar geometric users, else profile on at most 512 symbols; else bootstrap; bootstrap with -boot), bootstrap (a parametric bootstrap, every method), profile (gibu's profile likelihood, cells at 0 too), local-profile (the profile likelihood in a 9×9-cell window around each cell, for a city's grid) or fisher (gibu's observed information, an estimate with no cell at 0)"),
		boot:   fs.Int("boot", core.DefaultReplicates, "-ci bootstrap: the number of `replicates`"),
	}
}

// ci returns the intervals asked for (Level 0 for none), seeded with
// seed, refusing options without -ci and values out of range.
func (f ciFlags) ci(fs *flag.FlagSet, seed uint64) (interval.CI, error) {
	ci := interval.CI{Level: *f.level, Method: core.IntervalMethod(*f.method), Replicates: *f.boot, Seed: seed}
	if isSet(fs, "boot") && !isSet(fs, "ci-method") {
		ci.Method = core.IntervalBootstrap // replicates asked for
	}
	if !isSet(fs, "ci") {
		if isSet(fs, "ci-method") || isSet(fs, "boot") {
			return ci, usageError{msg: "-ci-method and -boot need -ci LEVEL"}
		}
		return ci, nil
	}
	if isSet(fs, "boot") && *f.boot == 0 {
		// CI reads 0 replicates as "the default": asked for, it is none.
		return ci, usageError{msg: fmt.Sprintf("-ci: 0 bootstrap replicates: want 20 to %d (200 is the default)", core.MaxReplicates)}
	}
	if err := ci.Check(); err != nil {
		return ci, usageError{msg: "-ci: " + err.Error()}
	}
	return ci, nil
}

// ciFields are the JSON line's members of -ci: the level, method and
// replicates, the band's critical value, and the bounds at the level on
// the estimate's TV, largest cell error and EMD to the truth (null where
// the method gives none).
type ciFields struct {
	Level      float64             `json:"ci_level"`
	Method     core.IntervalMethod `json:"ci_method"`
	Replicates int                 `json:"ci_replicates"`
	Critical   float64             `json:"ci_critical"`
	TV         *float64            `json:"ci_tv"`
	MaxError   *float64            `json:"ci_max_error"`
	EMD        *float64            `json:"ci_emd"`
	EMDUnit    string              `json:"ci_emd_unit,omitempty"`
	EMDNote    string              `json:"ci_emd_note,omitempty"`
}

func newCIFields(iv *interval.Set) *ciFields {
	if iv == nil {
		return nil
	}
	finite := func(v float64) *float64 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		return &v
	}
	return &ciFields{Level: iv.Level, Method: iv.Method, Replicates: iv.Replicates, Critical: iv.Critical,
		TV: finite(iv.TV), MaxError: finite(iv.MaxError), EMD: finite(iv.EMD), EMDUnit: iv.EMDUnit, EMDNote: iv.EMDNote}
}

// backgroundFlag collects -background TAG=FILE flags.
type backgroundFlag []string

func (b *backgroundFlag) String() string { return strings.Join(*b, " ") }

func (b *backgroundFlag) Set(v string) error {
	if tag, file, ok := strings.Cut(v, "="); !ok || tag == "" || file == "" {
		return fmt.Errorf("want TAG=FILE, got %q", v)
	}
	*b = append(*b, v)
	return nil
}

// read reads the background distributions over the study's alphabet.
func (b backgroundFlag) read(s *core.Study) (map[string][]float64, error) {
	if len(b) == 0 {
		return nil, nil
	}
	out := map[string][]float64{}
	for _, v := range b {
		tag, file, _ := strings.Cut(v, "=")
		p, err := readTruth(file, &s.Alphabet)
		if err != nil {
			return nil, err
		}
		out[tag] = p
	}
	return out, nil
}

// files returns the background files named.
func (b backgroundFlag) files() []string {
	var out []string
	for _, v := range b {
		_, file, _ := strings.Cut(v, "=")
		out = append(out, file)
	}
	return out
}
