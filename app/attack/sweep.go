package attack

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/privmap/privmap/app/interval"
	"github.com/privmap/privmap/app/pipeline"
	"github.com/privmap/privmap/app/plan"
	"github.com/privmap/privmap/core"
)

// A SweepRequest asks for the trade-off of one kind of mechanism: at
// each ε, an attacker's success from one report (x) against the error
// of the estimate of a population of that kind alone (y).
type SweepRequest struct {
	Study  *core.Study
	Truth  []float64
	Prior  Prior
	Kind   core.MechanismKind
	Eps    []float64 // increasing
	Metric plan.Metric
	Method core.Method
	Runs   int // simulated deployments an ε; 0: DefaultSweepRuns
	Users  int // 0: the study's data, else 10,000
	Seed   uint64
}

// DefaultSweepRuns is the deployments simulated at each ε of a sweep;
// their median error is drawn.
const DefaultSweepRuns = 5

// A SweepPoint is one ε of a sweep: the attacker's success with one
// report and without, the median error of the estimate and every run's.
type SweepPoint struct {
	Eps, Success, Prior, Error float64
	Errors                     []float64
}

// A Sweep is a kind's trade-off between what an attacker learns and
// how far the estimate is from the truth.
type Sweep struct {
	SweepRequest
	Unit   string // the error's unit: km, step or ""
	Points []SweepPoint
	// Current is the study's ε of the kind (its first mechanism of the
	// kind), NaN when the study has none; it is among the points.
	Current float64
}

// SweepKinds returns the kinds a sweep takes, in the registry's order:
// those whose level is an ε, without sensitive symbols or personal tags
// (CheckSweep's rule).
func SweepKinds() []core.MechanismKind {
	var out []core.MechanismKind
	for _, k := range core.Kinds() {
		if k.Param == core.ParamEpsilon && !k.Sensitive && !k.Personal {
			out = append(out, k.Name)
		}
	}
	return out
}

// DefaultMetric returns a sweep's error on alphabet a when none is
// asked: the EMD where a plan measures it (grids of at most
// interval.MaxEMDCells cells, and lines), else TV.
func DefaultMetric(a core.Alphabet) plan.Metric {
	if a.Kind == core.KindCategorical || a.Kind == core.KindGrid && a.Len() > interval.MaxEMDCells {
		return plan.TV
	}
	return plan.EMD
}

// CheckSweep refuses a sweep out of range before any work.
func (r SweepRequest) CheckSweep() error {
	k, ok := r.Kind.Info()
	switch {
	case !ok:
		return fmt.Errorf("kind %q: unknown", r.Kind)
	case k.Param != core.ParamEpsilon:
		return fmt.Errorf("kind %s has no ε to sweep", r.Kind)
	case k.Personal:
		return fmt.Errorf("kind %s: %s", r.Kind, personalWhy)
	case k.Sensitive:
		return fmt.Errorf("kind %s needs its sensitive symbols, which a sweep of the kind alone does not choose", r.Kind)
	case len(r.Truth) != r.Study.Alphabet.Len():
		return fmt.Errorf("the truth has %d cells, the study's alphabet %d", len(r.Truth), r.Study.Alphabet.Len())
	case len(r.Eps) < 2 || len(r.Eps) > plan.MaxPoints:
		return fmt.Errorf("%d values of ε: want 2 to %d", len(r.Eps), plan.MaxPoints)
	case !slices.IsSorted(r.Eps) || !(r.Eps[0] > 0) || math.IsInf(r.Eps[len(r.Eps)-1], 0):
		return fmt.Errorf("ε from %g to %g: want increasing values above 0", r.Eps[0], r.Eps[len(r.Eps)-1])
	}
	if len(k.Alphabets) > 0 && !slices.Contains(k.Alphabets, r.Study.Alphabet.Kind) {
		return fmt.Errorf("kind %s does not work on a %s alphabet", r.Kind, r.Study.Alphabet.Kind)
	}
	return nil
}

// MakeSweep draws the trade-off: at each ε, the exposure of one report
// (Expose) and the median error of Runs simulated deployments of the
// kind alone (plan.Curve, which draws the users from Truth). progress,
// when not nil, gets the fraction done; ctx cancels.
func MakeSweep(ctx context.Context, req SweepRequest, progress func(float64)) (*Sweep, error) {
	if err := req.CheckSweep(); err != nil {
		return nil, err
	}
	if progress == nil {
		progress = func(float64) {}
	}
	if req.Runs == 0 {
		req.Runs = DefaultSweepRuns
	}
	// One mechanism of the kind at ε = 1, scaled by each point: the
	// plan's ε axis is a factor of the population's ε.
	one := *req.Study
	one.Mechanisms = []core.MechanismSpec{{ID: string(req.Kind), Kind: req.Kind, Epsilon: 1}}
	one.Data, one.People, one.Personal, one.MaxPerPerson = nil, nil, nil, 0
	cur := currentEps(req)
	req.Eps = withCurrent(req.Eps, cur)
	truth := normalised(req.Truth)
	users := req.Users
	if users == 0 {
		users = len(req.Study.Data)
	}
	mechs, err := pipeline.BuildMechanisms(ctx, &one, nil)
	if err != nil {
		return nil, err
	}
	curve, err := plan.Curve(ctx, plan.Request{Study: &one, Truth: truth, Method: req.Method, Metric: req.Metric,
		Level: 0.5, Runs: req.Runs, Axis: plan.AxisEps, Points: req.Eps, Users: users, Seed: req.Seed},
		mechs, func(f float64) { progress(0.7 * f) })
	if err != nil {
		return nil, err
	}
	sw := &Sweep{SweepRequest: req, Unit: curve.Unit, Current: cur}
	for i, pt := range curve.Points {
		at := one
		at.Mechanisms = []core.MechanismSpec{{ID: string(req.Kind), Kind: req.Kind, Epsilon: req.Eps[i]}}
		ms, err := pipeline.BuildMechanisms(ctx, &at, nil)
		if err != nil {
			return nil, fmt.Errorf("ε %g: %w", req.Eps[i], err)
		}
		e, err := core.Expose(ctx, ms[0], at.Alphabet, req.Prior.Masses, nil, nil)
		if err != nil {
			return nil, fmt.Errorf("ε %g: %w", req.Eps[i], err)
		}
		sw.Points = append(sw.Points, SweepPoint{Eps: req.Eps[i], Success: e.Success, Prior: e.Prior, Error: pt.Bound, Errors: pt.Errors})
		progress(0.7 + 0.3*float64(i+1)/float64(len(curve.Points)))
	}
	return sw, nil
}

// WriteSweepCSV writes a sweep's points: eps,bayes_success,
// prior_success,error,unit,current (docs/FILES.md).
func WriteSweepCSV(w io.Writer, sw *Sweep) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"kind", "eps", "bayes_success", "prior_success", "error", "metric", "unit", "current"}); err != nil {
		return err
	}
	for _, p := range sw.Points {
		cur := "false"
		if p.Eps == sw.Current {
			cur = "true"
		}
		if err := cw.Write([]string{string(sw.Kind), num(p.Eps), num(p.Success), num(p.Prior), num(p.Error), string(sw.Metric), sw.Unit, cur}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// currentEps returns the ε of the study's first mechanism of the kind,
// NaN when it has none.
func currentEps(req SweepRequest) float64 {
	for _, m := range req.Study.Mechanisms {
		if m.Kind == req.Kind {
			return m.Epsilon
		}
	}
	return math.NaN()
}

// withCurrent returns eps with the population's choice cur among them,
// to be marked: in place of a level within 10% of it (their labels would
// overlap), else beside the others.
func withCurrent(eps []float64, cur float64) []float64 {
	if math.IsNaN(cur) || slices.Contains(eps, cur) {
		return eps
	}
	eps = slices.Clone(eps)
	if i := slices.IndexFunc(eps, func(e float64) bool { return math.Abs(e-cur) <= 0.1*cur }); i >= 0 {
		eps[i] = cur
		return eps
	}
	eps = append(eps, cur)
	slices.Sort(eps)
	return eps
}

// normalised returns v divided by its sum: a distribution, whatever
// counts were given.
func normalised(v []float64) []float64 {
	out := slices.Clone(v)
	total := 0.0
	for _, x := range out {
		total += x
	}
	for i := range out {
		out[i] /= total
	}
	return out
}

// Levels returns n levels of ε from a to b at equal ratios, those
// between rounded to three significant digits (ε 0.381, not
// 0.38073…): the -eps A:B:N of privmap attack and the window's sweep.
func Levels(a, b float64, n int) []float64 {
	eps := plan.LogSpaced(a, b, n)
	for i := 1; i < n-1; i++ {
		eps[i], _ = strconv.ParseFloat(strconv.FormatFloat(eps[i], 'g', 3, 64), 64)
	}
	return eps
}
