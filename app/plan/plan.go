package plan

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/privmap/privmap/app/human"
	"github.com/privmap/privmap/app/interval"
	"github.com/privmap/privmap/app/pipeline"
	"github.com/privmap/privmap/core"
	"github.com/privmap/privmap/core/emd"
)

// Metric names the error a plan bounds: the TV distance between the
// estimate and the truth, their EMD (km on a grid, steps on a linear
// alphabet) or the largest error of one cell's probability.
type Metric string

// The errors a plan bounds.
const (
	TV      Metric = "tv"
	EMD     Metric = "emd"
	MaxCell Metric = "max"
)

// Axis names what a plan varies: the number of users, or every
// mechanism's ε by a common factor at a fixed number of users.
type Axis string

// The axes of a plan.
const (
	AxisUsers Axis = "users"
	AxisEps   Axis = "eps"
)

// Noun names the axis's points in words: "sizes" or "privacy levels".
func (a Axis) Noun() string {
	if a == AxisEps {
		return "privacy levels"
	}
	return "sizes"
}

// Plan limits: the runs at one point and the points of one plan.
const (
	DefaultRuns   = 20
	MaxRuns       = 10000
	DefaultPoints = 7
	MaxPoints     = 64
)

// A Request asks how many users (AxisUsers), or which ε (AxisEps),
// the population of Study's mechanisms in its shares needs so that
// Method's estimate lies within Target of Truth, by Metric, with
// probability Level.
type Request struct {
	Study   *core.Study
	Truth   []float64
	Method  core.Method
	Options core.EstimateOptions
	Metric  Metric
	Target  float64
	Level   float64 // 0: 0.95
	Runs    int     // simulated deployments a point; 0: DefaultPlanRuns
	Axis    Axis
	// Points are the users (AxisUsers) or the factors of every
	// mechanism's ε (AxisEps) simulated, increasing; nil: DefaultPoints
	// log-spaced from a tenth to ten times Users (users), or from a
	// half to four times the study's ε (eps).
	Points []float64
	// Users: AxisEps's users, and the middle of AxisUsers's default
	// points.
	Users int
	Seed  uint64
}

// A Point is one simulated size or ε: the errors of Runs deployments,
// sorted, and their Level-quantile, the error not exceeded with
// probability Level.
type Point struct {
	X      float64
	Errors []float64
	Bound  float64
}

// A Plan is the curve of the error's Level-quantile against users or
// ε, and where it meets Target.
type Plan struct {
	Request
	Unit   string // the metric's unit: km, step or ""
	Points []Point
	// Need is the users (or ε factor) at which the curve meets Target,
	// interpolated between the points that bracket it on log–log axes
	// (where the error falls as a power of the users); beyond the points
	// it is extrapolated from the last two (Extrapolated), and NaN when
	// the curve does not fall there.
	Need         float64
	Extrapolated bool
}

// WithDefaults returns the request with its defaults filled in, as
// Make runs it.
func (r Request) WithDefaults() Request {
	if r.Level == 0 {
		r.Level = 0.95
	}
	if r.Runs == 0 {
		r.Runs = DefaultRuns
	}
	if r.Axis == "" {
		r.Axis = AxisUsers
	}
	if r.Metric == "" {
		r.Metric = TV
	}
	if r.Method == "" {
		r.Method = core.MethodGIBU
	}
	if r.Users == 0 {
		r.Users = len(r.Study.Data)
		if r.Users == 0 {
			r.Users = 10000
		}
	}
	if r.Points == nil {
		lo, hi := float64(r.Users)/10, float64(r.Users)*10
		if r.Axis == AxisEps {
			lo, hi = 0.5, 4
		}
		r.Points = LogSpaced(lo, hi, DefaultPoints)
		if r.Axis == AxisUsers {
			for i, v := range r.Points {
				r.Points[i] = math.Max(math.Round(v), 1)
			}
		}
	}
	return r
}

// LogSpaced returns n points from lo to hi at equal ratios.
func LogSpaced(lo, hi float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		if n == 1 {
			out[i] = lo
			continue
		}
		out[i] = lo * math.Pow(hi/lo, float64(i)/float64(n-1))
	}
	return out
}

// Check refuses a request out of range, before any work.
func (r Request) Check() error {
	r = r.WithDefaults()
	if err := r.checkTarget(); err != nil {
		return err
	}
	return r.checkCurve()
}

// checkCurve is Check without the target, as Curve needs.
func (r Request) checkCurve() error {
	if err := r.checkQuestion(); err != nil {
		return err
	}
	if err := r.checkPoints(); err != nil {
		return err
	}
	if len(r.Truth) != r.Study.Alphabet.Len() {
		return fmt.Errorf("the truth has %d symbols, the study's alphabet %d", len(r.Truth), r.Study.Alphabet.Len())
	}
	return nil
}

// checkTarget checks the target error.
func (r Request) checkTarget() error {
	switch {
	case !(r.Target > 0) || math.IsInf(r.Target, 0):
		return fmt.Errorf("target %v: want the largest error you accept, a number > 0", r.Target)
	case (r.Metric == TV || r.Metric == MaxCell) && r.Target >= 1:
		return fmt.Errorf("target %v: a %s error is below 1", r.Target, r.Metric)
	}
	return nil
}

// checkQuestion checks the error, its level, and the runs.
func (r Request) checkQuestion() error {
	switch {
	case r.Metric != TV && r.Metric != EMD && r.Metric != MaxCell:
		return fmt.Errorf("error %q: want tv, emd or max", r.Metric)
	case !(r.Level > 0 && r.Level < 1):
		return fmt.Errorf("level %v: want a probability strictly between 0 and 1, such as 0.95", r.Level)
	case r.Runs < 2 || r.Runs > MaxRuns:
		return fmt.Errorf("%d runs a point: want 2 to %d", r.Runs, MaxRuns)
	case r.Metric == EMD:
		return r.checkEMD()
	}
	return nil
}

// checkEMD refuses an EMD the plan cannot measure.
func (r Request) checkEMD() error {
	switch {
	case r.Study.Alphabet.Kind == core.KindCategorical:
		return errors.New("a categorical alphabet has no ground distance for the EMD: plan its tv or max error")
	case r.Study.Alphabet.Kind == core.KindGrid && len(r.Truth) > interval.MaxEMDCells:
		return fmt.Errorf("the EMD is planned on grids of at most %s cells (an exact transport a run); this one has %s: plan its tv or max error",
			human.Thousands(interval.MaxEMDCells), human.Thousands(len(r.Truth)))
	}
	return nil
}

// checkPoints checks the axis, its points and the users.
func (r Request) checkPoints() error {
	switch {
	case r.Axis != AxisUsers && r.Axis != AxisEps:
		return fmt.Errorf("axis %q: want users or eps", r.Axis)
	case len(r.Points) < 2 || len(r.Points) > MaxPoints:
		return fmt.Errorf("%d points: want 2 to %d", len(r.Points), MaxPoints)
	case r.Users < 1 || r.Users > core.MaxUsers:
		return fmt.Errorf("%d users: want 1 to %d", r.Users, core.MaxUsers)
	}
	limit := float64(core.MaxUsers)
	if r.Axis == AxisEps {
		limit = 1000
	}
	want := fmt.Sprintf("want increasing numbers of users from 1 to %s", human.Thousands(core.MaxUsers))
	if r.Axis == AxisEps {
		want = fmt.Sprintf("want increasing factors of ε above 0, up to %g", limit)
	}
	last := 0.0
	for _, v := range r.Points {
		if !(v > last) || v > limit {
			return fmt.Errorf("point %v: %s", v, want)
		}
		if r.Axis == AxisUsers && v != math.Trunc(v) {
			return fmt.Errorf("point %v: users are whole", v)
		}
		last = v
	}
	if r.Axis == AxisEps {
		return r.checkEpsKinds()
	}
	return nil
}

// checkEpsKinds refuses to vary the ε of a mechanism whose level is not
// an ε.
func (r Request) checkEpsKinds() error {
	for _, m := range r.Study.Mechanisms {
		if k, ok := m.Kind.Info(); !ok || k.Param != core.ParamEpsilon {
			return fmt.Errorf("mechanism %s (%s) has no ε to vary: plan its users instead", m.ID, m.Kind)
		}
	}
	return nil
}

// Make simulates req.Runs deployments at each point of req: users
// drawn from the truth, split among the mechanisms in the study's shares
// (core.Assign), their reports drawn through their mechanisms
// (core.ReportDrawer) and estimated by req.Method; each deployment's
// error to the truth is measured, and the Level-quantile of the errors
// at a point is the error the deployment stays within with probability
// Level. mechs are the study's mechanisms (rebuilt on AxisEps at each
// factor). Run i at point p draws from its own generator (PCG seeded
// with Seed, stream p·MaxRuns + i), so the plan does not depend on
// how many runs go at once. progress, when not nil, gets the fraction
// done; ctx cancels.
func Make(ctx context.Context, req Request, mechs []core.Mechanism, progress func(float64)) (*Plan, error) {
	if err := req.Check(); err != nil {
		return nil, err
	}
	plan, err := Curve(ctx, req, mechs, progress)
	if err != nil {
		return nil, err
	}
	plan.Need, plan.Extrapolated = meet(plan.Points, plan.Target)
	return plan, nil
}

// Curve is Make without a target: the points' errors and their
// Level-quantiles, Need NaN. The attack's trade-off figure draws its
// error axis with it (package app/attack).
func Curve(ctx context.Context, req Request, mechs []core.Mechanism, progress func(float64)) (*Plan, error) {
	req = req.WithDefaults()
	if err := req.checkCurve(); err != nil {
		return nil, err
	}
	shares, err := req.Study.Shares()
	if err != nil {
		return nil, err
	}
	plan := &Plan{Request: req, Need: math.NaN()}
	// Progress counts each run by its expected cost (Cost's model),
	// so that a bar at half way is half the time: a run of 70,000 users
	// costs many of 700.
	weights := make([]float64, len(req.Points))
	total := 0.0
	for p, x := range req.Points {
		weights[p] = pointCost(req, x)
		total += weights[p] * float64(req.Runs)
	}
	done, runs := 0.0, 0
	for p, x := range req.Points {
		users, ms := req.Users, mechs
		if req.Axis == AxisUsers {
			users = int(x)
		} else if ms, err = pipeline.BuildMechanisms(ctx, scaledStudy(req.Study, x), nil); err != nil {
			return nil, fmt.Errorf("ε × %g: %w", x, err)
		}
		d, err := core.NewReportDrawer(ms, req.Truth)
		if err != nil {
			return nil, err
		}
		pt := Point{X: x, Errors: make([]float64, req.Runs)}
		var mu sync.Mutex
		err = eachRun(ctx, req.Runs, func(i int) error {
			rng := rand.New(rand.NewPCG(req.Seed, uint64(p*MaxRuns+i)))
			e, unit, err := planRun(ctx, req, ms, d, rng, core.Assign(shares, users))
			mu.Lock()
			defer mu.Unlock()
			pt.Errors[i], plan.Unit = e, unit
			done, runs = done+weights[p], runs+1
			if progress != nil && err == nil {
				f := math.Min(done/total, 1)
				if runs == len(req.Points)*req.Runs {
					f = 1 // not a rounding below
				}
				progress(f)
			}
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", planX(req.Axis, x), err)
		}
		slices.Sort(pt.Errors)
		pt.Bound = core.Quantile(pt.Errors, req.Level)
		plan.Points = append(plan.Points, pt)
	}
	return plan, nil
}

// eachRun calls run(i) for i < n on every core, and returns the first
// error; ctx cancels the runs not yet begun.
func eachRun(ctx context.Context, n int, run func(i int) error) error {
	next := make(chan int)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				errs[i] = run(i)
			}
		}()
	}
	for i := 0; i < n && ctx.Err() == nil; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// planRun draws one deployment and returns its estimate's error.
func planRun(ctx context.Context, req Request, mechs []core.Mechanism, d *core.ReportDrawer, rng *rand.Rand, users []int) (float64, string, error) {
	g, err := d.Draw(ctx, rng, users)
	if err != nil {
		return 0, "", err
	}
	opt := req.Options
	opt.EM.Progress, opt.EM.Inner = nil, nil
	est, err := core.Reconstruct(ctx, req.Method, req.Study, mechs, g, opt)
	if err != nil {
		return 0, "", err
	}
	switch req.Metric {
	case TV:
		return emd.TV(req.Truth, est.Theta), "", nil
	case MaxCell:
		worst := 0.0
		for x, v := range est.Theta {
			worst = math.Max(worst, math.Abs(v-req.Truth[x]))
		}
		return worst, "", nil
	}
	e, unit, err := emd.EMDs(ctx, req.Study.Alphabet, req.Truth, [][]float64{est.Theta}, nil)
	if err != nil {
		return 0, "", err
	}
	return e[0], unit, nil
}

// pointCost returns the expected seconds of one run of req at point x:
// its users drawn and estimated, and its EMD measured for the EMD.
func pointCost(req Request, x float64) float64 {
	n := float64(req.Users)
	if req.Axis == AxisUsers {
		n = x
	}
	return pipeline.RunSeconds(req.Method, req.Study, n, req.Options.CEM.Simulations(), req.Truth, req.Metric == EMD)
}

// scaledStudy returns s with every mechanism's ε multiplied by f.
func scaledStudy(s *core.Study, f float64) *core.Study {
	c := *s
	c.Mechanisms = slices.Clone(s.Mechanisms)
	for i := range c.Mechanisms {
		c.Mechanisms[i].Epsilon *= f
	}
	return &c
}

// meet returns where the points' bounds meet target: interpolated on
// log–log axes between the two points that bracket its last crossing,
// else
// extrapolated from the two nearest the side it lies beyond
// (extrapolated true), NaN when those do not fall.
func meet(pts []Point, target float64) (float64, bool) {
	logAt := func(a, b Point) float64 {
		la, lb := math.Log(math.Max(a.Bound, 1e-300)), math.Log(math.Max(b.Bound, 1e-300))
		if !(la > lb) {
			return math.NaN()
		}
		t := (la - math.Log(target)) / (la - lb)
		return math.Exp(math.Log(a.X) + t*(math.Log(b.X)-math.Log(a.X)))
	}
	// The last crossing: from there on every point meets the target,
	// where a noisy curve may have crossed and risen again before.
	for i := len(pts) - 1; i > 0; i-- {
		if pts[i-1].Bound > target && pts[i].Bound <= target {
			return logAt(pts[i-1], pts[i]), false
		}
	}
	n := len(pts)
	if pts[n-1].Bound > target {
		return logAt(pts[n-2], pts[n-1]), true
	}
	if pts[0].Bound <= target {
		return logAt(pts[0], pts[1]), true
	}
	return math.NaN(), false // not monotone: no single crossing to report
}

// planX writes a point of the axis: users in thousands, or the factor.
func planX(a Axis, x float64) string {
	if a == AxisUsers {
		return human.Thousands(int(math.Round(x))) + " users"
	}
	return "ε × " + strconv.FormatFloat(x, 'g', 3, 64)
}

// metricText names the metric in words, with the target in its unit.
func (p *Plan) metricText() string {
	switch p.Metric {
	case MaxCell:
		return fmt.Sprintf("no cell's probability off by more than %.3g", p.Target)
	case EMD:
		return fmt.Sprintf("the EMD to the truth at most %.3g %s", p.Target, p.Unit)
	}
	return fmt.Sprintf("the TV to the truth at most %.3g (%s of the people placed wrong)", p.Target, human.Percent(p.Target))
}

// Sentence answers the plan's question in one sentence, saying how it
// was found and whether the answer was interpolated or extrapolated.
func (p *Plan) Sentence() string {
	how := fmt.Sprintf("%s simulated deployments at each of %d %s from %s to %s", human.Thousands(p.Runs), len(p.Points),
		p.Axis.Noun(), planX(p.Axis, p.Points[0].X), planX(p.Axis, p.Points[len(p.Points)-1].X))
	if p.Axis == AxisEps {
		how += fmt.Sprintf(" with %s users", human.Thousands(p.Users))
	}
	if math.IsNaN(p.Need) {
		return fmt.Sprintf("The %s estimate's error does not fall steadily over these points, so no answer is read from them: widen or move the points (%s).", p.Method.Title(), how)
	}
	verb, from := "needs", "interpolated between"
	if p.Extrapolated {
		verb, from = "would need", "extrapolated, as a power law, beyond"
	}
	return fmt.Sprintf("To keep %s with probability %s, the %s estimate %s %s (%s the %s quantiles of the errors of %s).",
		p.metricText(), human.Percent(p.Level), p.Method.Title(), verb, p.needText(), from, human.Percent(p.Level), how)
}

// needText writes the answer: the users, or the factor with each
// mechanism's ε and its unit.
func (p *Plan) needText() string {
	if p.Axis == AxisUsers {
		// Two significant figures, rounded up: the quantiles of a few
		// runs carry no more.
		return "about " + human.Thousands(int(human.RoundUp(p.Need, 2))) + " users"
	}
	var eps []string
	for _, m := range p.Study.Mechanisms {
		k, _ := m.Kind.Info()
		unit := strings.TrimPrefix(k.LevelName(p.Study.Alphabet), "ε")
		eps = append(eps, fmt.Sprintf("%s: ε %.3g%s", m.ID, m.Epsilon*human.RoundUp(p.Need, 2), unit))
	}
	return fmt.Sprintf("every ε multiplied by about %.2g (%s)", human.RoundUp(p.Need, 2), strings.Join(eps, ", "))
}

// WriteCSV writes every run's error of p with its point's bound:
// columns x,run,error,bound (privmap plan -o).
func WriteCSV(w io.Writer, p *Plan) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"x", "run", "error", "bound"})
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for _, pt := range p.Points {
		for i, e := range pt.Errors {
			_ = cw.Write([]string{g(pt.X), strconv.Itoa(i + 1), g(e), g(pt.Bound)})
		}
	}
	cw.Flush()
	return cw.Error()
}

// Cost returns what Make(req) is expected to cost by
// EstimateCost's model: at each point, Runs deployments of its users
// drawn and estimated (and their EMD measured, for the EMD). The ε axis
// rebuilds the mechanisms at each point, but takes only kinds whose
// level is an ε, none built by a linear program (Shokri's), so that costs
// nothing to speak of. The runs go on every core (measured: NYC's 9,024 cells, four GIBU deployments of 20,000 and
// 200,000 users, 36 s against the model's 42 s; FW's 24×16 planar set-up,
// a hundred from 1,000 to 100,000 users with their EMDs, 23 s against 20 s).
func Cost(req Request) pipeline.Cost {
	req = req.WithDefaults()
	var total float64
	for _, x := range req.Points {
		total += float64(req.Runs) * pointCost(req, x)
	}
	total /= float64(max(1, runtime.GOMAXPROCS(0)))
	return pipeline.PartCost(total, fmt.Sprintf("%s estimates by %s, %s at each of %d %s",
		human.Thousands(req.Runs*len(req.Points)), req.Method.Title(), human.Thousands(req.Runs), len(req.Points), req.Axis.Noun()))
}
