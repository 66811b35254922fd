package interval

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/privmap/privmap/app/human"
	"github.com/privmap/privmap/core"
	"github.com/privmap/privmap/core/emd"
)

// CI says how an estimate's intervals are computed: privmap estimate's
// -ci, -ci-method, -boot and -seed, the window's Intervals choice.
type CI struct {
	// Level is the probability the intervals cover the truth with, in
	// (0, 1); 0 means no intervals.
	Level float64
	// Method is core.IntervalBootstrap, core.IntervalProfile or
	// core.IntervalFisher; empty (or "auto") chooses (MethodFor).
	Method core.IntervalMethod
	// Replicates is the bootstrap's B (default core.DefaultReplicates).
	Replicates int
	// Seed seeds the bootstrap's draws.
	Seed uint64
}

// Auto is -ci-method's default: the method MethodFor chooses.
const Auto core.IntervalMethod = "auto"

// ProfileAutoSymbols bounds the alphabets on which MethodFor chooses
// profile intervals for the MLE: each symbol's ends cost a few solves
// of the whole likelihood (11 s for FW's San Francisco set-up, 345
// cells and 20,000 users, on two cores; the cost grows as K² with
// likelihood columns), and on New York's 9,024 cells they would take
// hours (docs/PERFORMANCE.md, intervals). A grid of k-RR and planar
// geometric users takes the windowed profile at any size.
const ProfileAutoSymbols = 512

// MethodFor returns the interval method ci computes for an estimate of
// method of the study s: ci.Method when it names one; else, for the MLE
// (gibu, em), the windowed profile on a grid whose mechanisms are all
// k-RR or planar geometric (core.LocalStudy; its ends within 1% of the
// profile's, in a fraction of the time) and the profile likelihood on
// other maps of at most ProfileAutoSymbols symbols — on the cells with
// people they reached their level where the bootstrap's percentile
// intervals fell short (docs/EXPERIMENTS.md, coverage) — and the
// bootstrap for the other estimators and studies.
func (ci CI) MethodFor(method core.Method, s *core.Study) core.IntervalMethod {
	if ci.Method != "" && ci.Method != Auto {
		return ci.Method
	}
	if method != core.MethodGIBU && method != core.MethodEM {
		return core.IntervalBootstrap
	}
	switch {
	case core.LocalStudy(s):
		return core.IntervalLocalProfile
	case s.Alphabet.Len() <= ProfileAutoSymbols:
		return core.IntervalProfile
	}
	return core.IntervalBootstrap
}

// Work says in words how the intervals of an estimate of method of the
// study s are computed, as MethodFor chooses: what a person waits for.
func (ci CI) Work(method core.Method, s *core.Study) string {
	k := s.Alphabet.Len()
	switch ci.MethodFor(method, s) {
	case core.IntervalProfile:
		return fmt.Sprintf("the profile likelihood of each of the %s, a few solves of the likelihood each", human.Plural(k, "symbol", "symbols"))
	case core.IntervalLocalProfile:
		return fmt.Sprintf("the profile likelihood of each of the %s within its window of %d×%d cells, a few small solves each",
			human.Plural(k, "cell", "cells"), core.LocalWindow, core.LocalWindow)
	case core.IntervalFisher:
		return "the observed Fisher information, one matrix"
	}
	return fmt.Sprintf("a parametric bootstrap of %s replicates, each an estimate", human.Thousands(ci.WithDefaults().Replicates))
}

// WithDefaults returns ci with its defaults filled in.
func (ci CI) WithDefaults() CI {
	if ci.Method == Auto {
		ci.Method = ""
	}
	if ci.Replicates == 0 {
		ci.Replicates = core.DefaultReplicates
	}
	return ci
}

// Check checks the options.
func (ci CI) Check() error {
	ci = ci.WithDefaults()
	if !(ci.Level > 0 && ci.Level < 1) {
		return fmt.Errorf("interval level %v: want a probability strictly between 0 and 1, such as 0.95", ci.Level)
	}
	switch ci.Method {
	case core.IntervalBootstrap, "":
		if ci.Replicates < 20 || ci.Replicates > core.MaxReplicates {
			return fmt.Errorf("%d bootstrap replicates: want 20 to %d (200 is the default)", ci.Replicates, core.MaxReplicates)
		}
		// The level's tails must rest on replicates: B(1−L)/2 ≥ 1.
		// (Within rounding: 20 × (1 − 0.9)/2 is 0.9999999999999998.)
		if need := math.Ceil(2/(1-ci.Level) - 1e-9); float64(ci.Replicates) < need {
			return fmt.Errorf("%d bootstrap replicates cannot show a %g%% interval: its tails need at least %d", ci.Replicates, 100*ci.Level, int(need))
		}
	case core.IntervalFisher, core.IntervalProfile, core.IntervalLocalProfile:
	default:
		return fmt.Errorf("interval method %q: want auto, bootstrap, profile, local-profile or fisher", ci.Method)
	}
	return nil
}

// CheckStudy checks the options for an estimate of the study s before
// it runs: Check, Fisher intervals' bound on the information matrix
// (core.MaxFisherSymbols), which would otherwise refuse only after the
// estimate (32 s on New York's 9,024 cells), and the windowed profile's
// need of a grid of k-RR and planar geometric mechanisms.
func (ci CI) CheckStudy(s *core.Study) error {
	if err := ci.Check(); err != nil {
		return err
	}
	k := s.Alphabet.Len()
	if ci.Method == core.IntervalFisher && k > core.MaxFisherSymbols {
		return fmt.Errorf("fisher intervals form the %d×%d information matrix, beyond the %d symbols they take: use the bootstrap", k, k, core.MaxFisherSymbols)
	}
	if ci.Method == core.IntervalLocalProfile && !core.LocalStudy(s) {
		return errors.New("local-profile intervals need a grid whose mechanisms are all k-RR or planar geometric: use profile or the bootstrap")
	}
	return nil
}

// Set are an estimate's intervals with the bound on its
// EMD to the truth, which core cannot compute (core/emd measures it).
type Set struct {
	*core.Intervals
	// EMD bounds the EMD between the estimate and the truth at the
	// level, in EMDUnit (km, step); NaN when not computed, EMDNote
	// saying why.
	EMD              float64
	EMDUnit, EMDNote string
}

// MaxEMDCells bounds the grids whose replicates' EMDs are measured:
// an exact transport a replicate, 43 ms on 384 cells, seconds beyond
// a few thousand.
const MaxEMDCells = 4096

// Of returns the intervals of est, the estimate of method on the
// reports g, as ci says. progress, when not nil, gets the fraction done.
func Of(ctx context.Context, method core.Method, s *core.Study, mechs []core.Mechanism, g *core.Groups, est *core.Estimate,
	opt core.EstimateOptions, ci CI, progress func(float64)) (*Set, error) {
	ci = ci.WithDefaults()
	if err := ci.Check(); err != nil {
		return nil, err
	}
	ci.Method = ci.MethodFor(method, s)
	out := &Set{EMD: math.NaN()}
	switch ci.Method {
	case core.IntervalFisher, core.IntervalProfile, core.IntervalLocalProfile:
		if method != core.MethodGIBU && method != core.MethodEM {
			return nil, fmt.Errorf("%s intervals are the MLE's, gibu's: %s's estimate needs the bootstrap", ci.Method, method)
		}
	}
	switch ci.Method {
	case core.IntervalFisher:
		iv, err := core.Fisher(ctx, mechs, g, s, est.Theta, ci.Level)
		out.Intervals, out.EMDNote = iv, "the Fisher method bounds no error figure"
		return out, err
	case core.IntervalProfile, core.IntervalLocalProfile:
		k := len(est.Theta)
		profile := core.Profile
		if ci.Method == core.IntervalLocalProfile {
			profile = core.LocalProfile
		}
		iv, err := profile(ctx, mechs, g, s, est.Theta, ci.Level, func(done int) {
			if progress != nil {
				progress(float64(done) / float64(k))
			}
		})
		out.Intervals, out.EMDNote = iv, "the profile likelihood bounds cells, not error figures"
		return out, err
	}
	return bootstrapIntervals(ctx, method, s, mechs, g, est, opt, ci, progress)
}

// bootstrapIntervals are Of's intervals by the bootstrap, with
// core.ZeroEnds for the MLE, and the bound on the EMD.
func bootstrapIntervals(ctx context.Context, method core.Method, s *core.Study, mechs []core.Mechanism, g *core.Groups, est *core.Estimate,
	opt core.EstimateOptions, ci CI, progress func(float64)) (*Set, error) {
	out := &Set{EMD: math.NaN()}
	b := ci.Replicates
	// Replicates are nine tenths of the work, their EMDs the rest.
	reps, err := core.Bootstrap(ctx, method, s, mechs, g, est, opt, b, ci.Seed, func(done int) {
		if progress != nil {
			progress(0.9 * float64(done) / float64(b))
		}
	})
	if err != nil {
		return nil, err
	}
	iv, err := core.BootstrapIntervals(est.Theta, reps, ci.Level)
	if err != nil {
		return nil, err
	}
	if method == core.MethodGIBU || method == core.MethodEM {
		// The cells the MLE puts at 0, which its replicates keep there:
		// their profile's bound (docs/EXPERIMENTS.md, coverage), where
		// the estimate is certified.
		if iv, err = core.ZeroEnds(mechs, g, s, est.Theta, iv); err != nil {
			return nil, err
		}
	}
	out.Intervals = iv
	out.EMD, out.EMDUnit, out.EMDNote, err = emdBound(ctx, s.Alphabet, est.Theta, reps, ci.Level, func(f float64) {
		if progress != nil {
			progress(0.9 + 0.1*f)
		}
	})
	return out, err
}

// emdBound returns the level-quantile of the replicates' EMDs to θ̂ with
// its unit, or NaN and the reason it was not measured.
func emdBound(ctx context.Context, a core.Alphabet, theta []float64, reps [][]float64, level float64, progress func(float64)) (float64, string, string, error) {
	switch {
	case a.Kind == core.KindCategorical:
		return math.NaN(), "", "a categorical alphabet has no ground distance", nil
	case a.Kind == core.KindGrid && len(theta) > MaxEMDCells:
		return math.NaN(), "", fmt.Sprintf("the EMD bound is measured on grids of at most %s cells (an exact transport a replicate); this one has %s",
			human.Thousands(MaxEMDCells), human.Thousands(len(theta))), nil
	}
	d, unit, err := emd.EMDs(ctx, a, theta, reps, func(done int) { progress(float64(done) / float64(len(reps))) })
	var large *core.TooLargeError
	switch {
	case errors.As(err, &large):
		return math.NaN(), "", "a replicate's exact transport was too large: " + large.Error(), nil
	case err != nil:
		return 0, "", "", err
	}
	slices.Sort(d)
	return core.Quantile(d, level), unit, "", nil
}

// Sentence says what the intervals claim in words: the level,
// how they were made, what each interval and the band cover on the
// alphabet a, and the bounds on the error figures — each marked
// approximate, as a bootstrap's and a normal approximation's are.
func Sentence(iv *Set, a core.Alphabet) string {
	one, what := "category", "categories"
	switch a.Kind {
	case core.KindGrid:
		one, what = "cell", "cells"
	case core.KindLinear:
		one, what = "value", "values"
	}
	how := fmt.Sprintf("a parametric bootstrap of %s replicates", human.Thousands(iv.Replicates))
	band := fmt.Sprintf("±%.3g standard errors", iv.Critical)
	switch iv.Method {
	case core.IntervalFisher:
		how = "the observed Fisher information, a normal approximation"
	case core.IntervalProfile, core.IntervalLocalProfile:
		how = fmt.Sprintf("the profile likelihood: the values each %s can take whose best likelihood is within χ²₁'s %s quantile of the most likely map's",
			one, human.Percent(iv.Level))
		if iv.Method == core.IntervalLocalProfile {
			how = fmt.Sprintf("the profile likelihood in a window: the values each %s can take whose best likelihood, moving the %d×%d %s around it and the rest of the map's mass as a whole, is within χ²₁'s %s quantile of the most likely map's",
				one, core.LocalWindow, core.LocalWindow, what, human.Percent(iv.Level))
			if iv.ZeroEnds == 0 {
				how += fmt.Sprintf(" (over the whole map at the %s the estimate puts at 0)", what)
			}
		}
		band = fmt.Sprintf("each %s's interval with its chance of missing cut to %.2g%% by Šidák's rule", one, 100*(1-math.Pow(iv.Level, 1/float64(len(iv.Lo)))))
	}
	how += ", approximate"
	if iv.ZeroEnds > 0 {
		how += fmt.Sprintf("; at the %s the estimate puts at 0, upper ends that hold the profile likelihood's", human.Plural(iv.ZeroEnds, one, what))
	}
	parts := []string{fmt.Sprintf("With %s confidence (%s), each of the %s %s lies in its own interval (columns lo–hi), and all of them at once lie in their band (band_lo–band_hi, %s).",
		human.Percent(iv.Level), how, human.Thousands(len(iv.Lo)), what, band)}
	if !math.IsNaN(iv.TV) {
		parts = append(parts, fmt.Sprintf("Against the unknown truth: TV at most %.3g (at most %s of the map's mass in the wrong place), no %s off by more than %.3g",
			iv.TV, human.Percent(iv.TV), one, iv.MaxError))
		if !math.IsNaN(iv.EMD) {
			parts[len(parts)-1] += fmt.Sprintf(", EMD at most %.3g %s", iv.EMD, iv.EMDUnit)
		}
		parts[len(parts)-1] += "."
	}
	return strings.Join(parts, " ")
}

// Caveat returns what the intervals of the reports g of study
// s are about when the study's people sent several, or "": like the
// estimate, they describe the distribution of the data set's records,
// not of its people. Each record's report is drawn by its person's
// mechanism independently of her other records, so the likelihood —
// and the intervals — hold for the records (docs/EXPERIMENTS.md,
// coverage: San Francisco's check-ins at up to 20 a person); a person
// with more records weighs more in both.
func Caveat(s *core.Study, g *core.Groups) string {
	if s.People == nil || len(s.Data) != g.N() {
		return ""
	}
	return RecordsEstimand(s)
}

// RecordsEstimand says, for a study whose people hold several records
// each, that its estimates and intervals describe the records, or "".
func RecordsEstimand(s *core.Study) string {
	if s.People == nil {
		return ""
	}
	people, most := s.Contributions()
	if most <= 1 {
		return ""
	}
	return fmt.Sprintf("the estimate and its intervals describe the %s records, up to %s from one of the %s people: each record's report was drawn independently by its person's mechanism, so they hold for the records' distribution, in which a person with more records weighs more (for people counted once, grid with -per-user first)",
		human.Thousands(len(s.Data)), human.Thousands(most), human.Thousands(people))
}
