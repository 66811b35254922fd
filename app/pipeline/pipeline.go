package pipeline

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/privmap/privmap/app/human"
	"github.com/privmap/privmap/app/interval"
	"github.com/privmap/privmap/core"
	"github.com/privmap/privmap/core/emd"
)

// seedStream is the PCG stream of every simulation ("priv" in ASCII):
// with it, the window and privmap simulate draw the same users and
// reports from the same seed.
const seedStream = 0x70726976

// NewRand returns the generator of a simulation with the given seed.
func NewRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seedStream)) }

// BuildMechanisms builds every mechanism of s. progress, if not nil, is
// called with the mechanism's index before each build, and during a long
// build (Shokri's linear program) with its iteration and relative
// optimality gap (iter > 0). Cancelling ctx stops a long build.
func BuildMechanisms(ctx context.Context, s *core.Study, progress func(i, iter int, gap float64)) ([]core.Mechanism, error) {
	mechs := make([]core.Mechanism, len(s.Mechanisms))
	for i, spec := range s.Mechanisms {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var lp func(int, float64)
		if progress != nil {
			progress(i, 0, 0)
			lp = func(iter int, gap float64) { progress(i, iter, gap) }
		}
		m, err := core.NewMechanismWith(ctx, spec, s.Alphabet, lp)
		if err != nil {
			return nil, err
		}
		mechs[i] = m
	}
	return mechs, nil
}

// Users says whom a simulation sanitises: with N > 0, N users drawn from
// Truth; else every datum of Data, with the study's personal cells, each
// datum's person given by People (nil: every datum a person of its own),
// every person's data through her one mechanism.
type Users struct {
	Data   []int
	Truth  []float64
	N      int
	People []int
}

// Persons returns the people sanitised and the most reports one of them
// sends.
func (u Users) Persons() (people, most int) {
	if u.N > 0 || u.People == nil {
		return u.Count(), min(1, u.Count())
	}
	return (&core.Study{Data: u.Data, People: u.People}).Contributions()
}

// PreviewWords names an estimate from reports privmap simulated from the
// raw data, as the window, the command line and the report say it.
const PreviewWords = "a preview of a collection: simulated from the raw data — not for publication"

// Words says in words whom a run sanitises, in the data's unit: "59,251
// reports from 2,000 people" (a report a check-in), "10,000 users, one
// report each" (drawn from the truth), "8,000 reports, one a datum".
func (u Users) Words() string {
	switch {
	case u.N > 0:
		return human.Thousands(u.N) + " users, one report each"
	case u.People != nil:
		people, _ := u.Persons()
		return fmt.Sprintf("%s reports from %s people", human.Thousands(len(u.Data)), human.Thousands(people))
	}
	return human.Thousands(len(u.Data)) + " reports, one a datum"
}

// Count returns the number of users sanitised.
func (u Users) Count() int {
	if u.N > 0 {
		return u.N
	}
	return len(u.Data)
}

// Sanitise assigns the users — the people, when u.People says who they
// are — to the study's mechanisms by share (largest remainder,
// core.Assign) and sanitises each datum with its person's mechanism,
// drawing from NewRand(seed); emit receives every report in order. It
// returns the number of users (people) of each mechanism.
func Sanitise(ctx context.Context, s *core.Study, mechs []core.Mechanism, u Users, seed uint64,
	emit func(user, j int, r core.Report) error, progress func(float64)) ([]int, error) {
	n := u.Count()
	if n == 0 {
		return nil, errors.New("no users to simulate: the data set is empty")
	}
	shares, err := s.Shares()
	if err != nil {
		return nil, err
	}
	rng := NewRand(seed)
	switch {
	case u.N > 0:
		counts := core.Assign(shares, n)
		return counts, core.Simulate(ctx, rng, mechs, counts, u.Truth, emit, progress)
	case u.People != nil:
		people, _ := u.Persons()
		counts := core.Assign(shares, people)
		return counts, core.SimulatePeople(ctx, rng, mechs, counts, u.Data, u.People, s.Personal, emit, progress)
	}
	counts := core.Assign(shares, n)
	return counts, core.SimulateData(ctx, rng, mechs, counts, u.Data, s.Personal, emit, progress)
}

// A Request is one run: the study, its users and the estimators.
type Request struct {
	Study *core.Study
	// Users are the users sanitised; Users.Truth is also the truth the
	// estimates are compared with.
	Users   Users
	Seed    uint64
	Methods []core.Method
	Options core.EstimateOptions
	// CI, when its Level is above 0, are the intervals of each estimate
	// asked for after the run (interval.Of, which Run does not compute):
	// the cost model counts them.
	CI interval.CI
}

// A MethodResult is one estimator's outcome.
type MethodResult struct {
	Method   core.Method
	Estimate *core.Estimate // nil when Err is set
	Metrics  emd.Metrics
	Elapsed  time.Duration
	Err      error
}

// A Result is a finished run.
type Result struct {
	Request
	Counts  []int // users per mechanism
	Results []MethodResult
	// Mechs and Groups are the mechanisms built and the reports grouped,
	// from which intervals are computed after the run (interval.Of).
	Mechs  []core.Mechanism
	Groups *core.Groups
}

// N returns the number of users sanitised.
func (r *Result) N() int { return r.Users.Count() }

// Succeeded returns the results that produced an estimate.
func (r *Result) Succeeded() []MethodResult {
	var out []MethodResult
	for _, m := range r.Results {
		if m.Err == nil {
			out = append(out, m)
		}
	}
	return out
}

// An Estimator is core.Reconstruct's signature, so that tests can slow it.
type Estimator func(ctx context.Context, method core.Method, s *core.Study, mechs []core.Mechanism, g *core.Groups, opt core.EstimateOptions) (*core.Estimate, error)

// Progress reports a run's stage, the fraction of the run done and a
// line of detail (the estimator's step and log-likelihood).
type Progress func(stage string, done float64, detail string)

// shokriTol is the relative optimality gap Shokri's solver stops at
// (core.ShokriOptions' default).
const shokriTol = 1e-6

// gapFraction returns how far a certified gap has come from 1 down to
// tol on a log scale, in [0, 1]: the bar of a solver that certifies its
// result moves with it.
func gapFraction(gap, tol float64) float64 {
	f := math.Log(1/math.Max(gap, tol)) / math.Log(1/tol)
	if !(f > 0) { // also NaN
		return 0
	}
	return math.Min(1, f)
}

// methodProgress returns an estimator's progress callbacks, which set
// its share of the bar through set: the certified gap's way down to tol
// (gapFraction), and, during a Newton step solved by conjugate gradients,
// the way towards the square of the last gap (what a Newton step nearly
// reaches) as they proceed. The bar never moves back within a method.
func methodProgress(set func(frac float64, detail string), tol float64) (func(int, float64, float64), func(int, float64)) {
	best, last := 0.0, 1.0
	move := func(f float64, detail string) {
		best = math.Max(best, math.Min(f, 1))
		set(best, detail)
	}
	return func(iter int, ll, gap float64) {
			last = math.Max(gap, 0)
			move(gapFraction(gap, tol), fmt.Sprintf("step %d · log-likelihood %.10g · gap %.1g", iter, ll, last))
		}, func(iter int, done float64) {
			from, to := gapFraction(last, tol), gapFraction(last*last, tol)
			move(from+done*(to-from), fmt.Sprintf("step %d · Newton step, conjugate gradients %.0f%% · gap %.1g", iter, 100*done, last))
		}
}

// runWeights are the shares of a run's progress bar: each mechanism's
// building, the sanitising, then each method, in proportion to what the
// cost model expects of them (a corrected EM of minutes is not one
// step among thirteen).
type runWeights struct{ end []float64 }

func weighRun(req Request) runWeights {
	s := req.Study
	k := float64(s.Alphabet.Len())
	var secs []float64
	for _, m := range s.Mechanisms {
		v := 0.05
		if info, ok := m.Kind.Info(); ok && info.Solved {
			v = shokriSeconds(k)
		}
		secs = append(secs, v)
	}
	secs = append(secs, math.Max(0.05, float64(req.Users.Count())*userCost))
	for _, c := range MethodCosts(req) {
		secs = append(secs, math.Max(0.05, c.Time.Seconds()))
	}
	w := runWeights{end: make([]float64, len(secs))}
	total := 0.0
	for i, v := range secs {
		total += v
		w.end[i] = total
	}
	for i := range w.end {
		w.end[i] /= total
	}
	return w
}

// at returns the bar's fraction at frac of stage i.
func (w runWeights) at(i int, frac float64) float64 {
	lo := 0.0
	if i > 0 {
		lo = w.end[i-1]
	}
	return lo + math.Min(1, math.Max(0, frac))*(w.end[i]-lo)
}

// emShare is the share of a method's work that is EM: all of it, but
// for corrected EM a twentieth (a tenth when α is given and one bias
// correction follows, not two).
func emShare(method core.Method, opt core.EstimateOptions) float64 {
	switch {
	case method != core.MethodCEM:
		return 1
	case opt.CEM.Alpha > 0:
		return 0.1
	}
	return 0.05
}

// cemStages returns the fraction of corrected EM's bias corrections done
// at frac of the stage named name (core.CEMOptions.Progress): forming Ŝ,
// inverting and the quadratic forms a third of a correction each; the
// data's correction first, then each of the sims simulations' that
// choose α ("Choosing α (i of N): …", or "Choosing α: …" for one).
func cemStages(name string, frac float64, sims int) float64 {
	i := 0.0
	switch {
	case strings.Contains(name, "Inverting"):
		i = 1
	case strings.Contains(name, "Quadratic"):
		i = 2
	}
	f := (i + frac) / 3
	which := 0
	if strings.HasPrefix(name, "Choosing α") {
		which = 1
		var of int
		fmt.Sscanf(strings.TrimPrefix(name, "Choosing α ("), "%d of %d", &which, &of)
	}
	return (float64(which) + f) / float64(1+sims)
}

// Run builds the mechanisms, sanitises the users' data, and runs every
// estimator, comparing each estimate with the truth. An estimator's own
// failure (a method that does not apply to these mechanisms, say) is
// kept in its result; cancelling ctx ends the run with ctx's error.
// title names a method in the progress stages.
func Run(ctx context.Context, req Request, estimate Estimator, title func(core.Method) string, progress Progress) (*Result, error) {
	s := req.Study
	w := weighRun(req)
	mechs, err := BuildMechanisms(ctx, s, func(i, iter int, gap float64) {
		stage, detail, frac := "Building "+s.Mechanisms[i].ID, "", 0.0
		if iter > 0 {
			detail = fmt.Sprintf("linear program: iteration %d, optimality gap %.1e", iter, gap)
			frac = gapFraction(gap, shokriTol)
		}
		progress(stage, w.at(i, frac), detail)
	})
	if err != nil {
		return nil, err
	}
	base := len(mechs)
	n := req.Users.Count()
	var mech []int
	var reps []core.Report
	emit := func(_, j int, r core.Report) error {
		mech, reps = append(mech, j), append(reps, r)
		return nil
	}
	counts, err := Sanitise(ctx, s, mechs, req.Users, req.Seed, emit, func(f float64) {
		progress("Sanitising", w.at(base, f), fmt.Sprintf("%d users", n))
	})
	if err != nil {
		return nil, err
	}
	g := core.GroupReports(len(mechs), mech, reps)
	res := &Result{Request: req, Counts: counts, Mechs: mechs, Groups: g}
	for i, method := range req.Methods {
		stage := base + 1 + i
		done := w.at(stage, 0)
		progress(title(method), done, "")
		opt := req.Options
		tol := opt.EM.GapTol
		if tol <= 0 {
			tol = core.DefaultGapTol
		}
		em := emShare(method, opt)
		opt.EM.Progress, opt.EM.Inner = methodProgress(func(frac float64, detail string) {
			progress(title(method), w.at(stage, frac*em), detail)
		}, tol)
		opt.CEM.Progress = func(name string, frac float64) {
			progress(title(method), w.at(stage, em+(1-em)*cemStages(name, frac, opt.CEM.Simulations())),
				fmt.Sprintf("bias correction: %s %.0f%%", name, 100*frac))
		}
		start := time.Now()
		est, err := estimate(ctx, method, s, mechs, g, opt)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		r := MethodResult{Method: method, Estimate: est, Elapsed: time.Since(start), Err: err}
		if err == nil {
			// A stage of its own, so that a window thinning the
			// estimator's step lines still shows it.
			progress("Comparing "+title(method)+" with the truth", w.at(stage, 1), "exact EMD, squared error, JSD, TV")
			r.Metrics, r.Err = emd.Compare(ctx, req.Users.Truth, est.Theta, s.Alphabet)
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
		}
		res.Results = append(res.Results, r)
	}
	progress("Done", 1, "")
	return res, nil
}
