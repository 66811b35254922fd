package app

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/privmap/privmap/core"
)

// runRequest is what a run needs: the study, the users' true data and
// the estimators with their options.
type runRequest struct {
	ds    *dataset // the data set the run was made on, for the maps
	study *core.Study
	// data is every user's true symbol and truth their distribution;
	// with users > 0, that many users are drawn from truth instead. The
	// study's Personal holds the users' personal cells, if any.
	data    []int
	truth   []float64
	users   int
	seed    uint64
	methods []string
	opt     core.EstimateOptions
}

// methodResult is one estimator's outcome.
type methodResult struct {
	method  string
	est     *core.Estimate // nil when err is set
	metrics core.Metrics
	elapsed time.Duration
	err     error
}

// runResult is a finished run.
type runResult struct {
	req     runRequest
	n       int   // users simulated
	counts  []int // users per mechanism
	results []methodResult
}

// ok returns the results that produced an estimate.
func (r *runResult) ok() []methodResult {
	var out []methodResult
	for _, m := range r.results {
		if m.err == nil {
			out = append(out, m)
		}
	}
	return out
}

// estimator is core.Reconstruct's signature, so that tests can slow it.
type estimator func(ctx context.Context, method string, s *core.Study, mechs []core.Mechanism, g *core.Groups, opt core.EstimateOptions) (*core.Estimate, error)

// progressFunc reports a run's stage, the fraction of the run done and a
// line of detail (the estimator's step and log-likelihood).
type progressFunc func(stage string, done float64, detail string)

// execute builds the mechanisms, sanitises the users' data, and runs
// every estimator, comparing each estimate with the truth. An
// estimator's own failure (a method that does not apply to these
// mechanisms, say) is kept in its result; cancelling ctx ends the run
// with ctx's error.
func execute(ctx context.Context, req runRequest, estimate estimator, progress progressFunc) (*runResult, error) {
	s := req.study
	steps := float64(len(s.Mechanisms) + 1 + len(req.methods))
	mechs := make([]core.Mechanism, len(s.Mechanisms))
	for i, spec := range s.Mechanisms {
		progress("Building "+spec.ID, float64(i)/steps, "")
		m, err := core.NewMechanismWith(ctx, spec, s.Alphabet, func(iter int, gap float64) {
			progress("Building "+spec.ID, float64(i)/steps, fmt.Sprintf("linear program: iteration %d, optimality gap %.1e", iter, gap))
		})
		if err != nil {
			return nil, fmt.Errorf("mechanism %q: %w", spec.ID, err)
		}
		mechs[i] = m
	}
	base := float64(len(mechs))
	n := req.users
	if n == 0 {
		n = len(req.data)
	}
	if n == 0 {
		return nil, errors.New("no users to simulate: the data set is empty")
	}
	shares, err := s.Shares()
	if err != nil {
		return nil, err
	}
	counts := core.Assign(shares, n)
	rng := rand.New(rand.NewPCG(req.seed, 0x70726976))
	var mech []int
	var reps []core.Report
	emit := func(_, j int, r core.Report) error {
		mech, reps = append(mech, j), append(reps, r)
		return nil
	}
	simProgress := func(f float64) { progress("Sanitising", (base+f)/steps, fmt.Sprintf("%d users", n)) }
	if req.users == 0 {
		err = core.SimulateData(ctx, rng, mechs, counts, req.data, s.Personal, emit, simProgress)
	} else {
		err = core.Simulate(ctx, rng, mechs, counts, req.truth, emit, simProgress)
	}
	if err != nil {
		return nil, err
	}
	g := core.GroupReports(len(mechs), mech, reps)
	res := &runResult{req: req, n: n, counts: counts}
	for i, method := range req.methods {
		done := (base + 1 + float64(i)) / steps
		progress(methodTitle(method), done, "")
		opt := req.opt
		opt.EM.Progress = func(iter int, ll float64) {
			progress(methodTitle(method), done, fmt.Sprintf("step %d · log-likelihood %.10g", iter, ll))
		}
		start := time.Now()
		est, err := estimate(ctx, method, s, mechs, g, opt)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		r := methodResult{method: method, est: est, elapsed: time.Since(start), err: err}
		if err == nil {
			r.metrics, r.err = core.Compare(req.truth, est.Theta, s.Alphabet)
		}
		res.results = append(res.results, r)
	}
	progress("Done", 1, "")
	return res, nil
}

// methodTitles name the estimators as the window shows them.
var methodTitles = map[string]string{
	core.MethodGIBU: "GIBU",
	core.MethodCEM:  "Corrected EM",
	core.MethodIBUM: "[IBU]_M",
	core.MethodIBUR: "[IBU]_R",
	core.MethodINVM: "[INV]_M",
	core.MethodINVR: "[INV]_R",
	core.MethodRAPM: "[RAP]_M",
	core.MethodRAPR: "[RAP]_R",
	core.MethodULDP: "ULDP empirical",
}

// methodTitle returns the title of a method.
func methodTitle(m string) string {
	if t, ok := methodTitles[m]; ok {
		return t
	}
	return m
}
