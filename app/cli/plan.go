package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/privmap/privmap/app/experiment"
	"github.com/privmap/privmap/app/output"
	"github.com/privmap/privmap/app/plan"
	"github.com/privmap/privmap/app/release"
	"github.com/privmap/privmap/core"
)

// runPlan is
//
//	privmap plan -study S -truth T -target X [-error tv|emd|max] [-method M] [-level L]
//	             [-vary users|eps] [-points A,B,…] [-users N] [-runs R] [-seed S] [-o plan.csv] [-figure plan.png]
//	privmap plan -mechanism laplace|geometric|pm-laplace|pm-geometric [-eps E | -eps-in E1 -eps-out E2 -break C]
//	             [-sensitivity D] (-cells K | -truth T) -target T [-level L]
//
// It answers "how many users, or which ε, do I need so that the
// estimate's error stays below X with probability L?" for the study's
// population of mechanisms on the truth (plan.Make: simulated
// deployments at each point, their errors' L-quantile, read where it
// meets X), or, with -mechanism, which ε a central release of the
// truth's cells needs to keep every count within ±T (release.PlanFor,
// closed form). One JSON line on stdout gives the answer; the sentence
// goes to stderr; -o writes each run's error and -figure the curve.
func runPlan(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("plan")
	studyName := fs.String("study", "", "study JSON `file`: the population of mechanisms and its shares")
	truthName := fs.String("truth", "", "true distribution `file` the users' data follow (with -mechanism: its cells are the release's)")
	target := fs.Float64("target", 0, "the largest error you accept: TV (0–1), EMD (km or steps) or a cell's largest error; with -mechanism, ± counts")
	metric := fs.String("error", string(plan.TV), "the error to bound: tv, emd or max (a cell's largest)")
	method := fs.String("method", string(core.MethodGIBU), "estimator: "+core.MethodNames(", ", ", "))
	level := fs.Float64("level", 0.95, "the probability the error stays below the target")
	vary := fs.String("vary", string(plan.AxisUsers), "what to plan: users (how many) or eps (every mechanism's ε by a common factor, at -users)")
	points := fs.String("points", "", "the users (or ε factors) to simulate, increasing, comma-separated (default: 7 from a tenth to ten times -users; ε × 0.5 to × 4)")
	users := fs.Int("users", 0, "users of -vary eps, and the middle of -vary users' default points (default: the study's data, else 10,000)")
	runs := fs.Int("runs", plan.DefaultRuns, "simulated deployments at each point")
	seed := fs.Uint64("seed", 1, "seed of the simulated deployments")
	out := fs.String("o", "", "CSV `file` of every run's error: x,run,error,bound")
	figure := fs.String("figure", "", "PNG `file` of the curve with the target and the answer")
	mech := fs.String("mechanism", "", "plan a central release instead: laplace, geometric, pm-laplace or pm-geometric")
	eps := fs.Float64("eps", 1, "-mechanism laplace and geometric: the ε to start from")
	epsIn := fs.Float64("eps-in", 0, "pm-*: ε within the break-point (its ratio to -eps-out is kept)")
	epsOut := fs.Float64("eps-out", 0, "pm-*: ε beyond the break-point")
	brk := fs.Float64("break", 0, "pm-*: the break-point c")
	sens := fs.Int("sensitivity", 1, "the counts' sensitivity Δ: the most one person changes a count")
	cells := fs.Int("cells", 0, "-mechanism: the number of released counts (default: the truth's cells)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *mech != "" {
		if (*mech == release.Laplace || *mech == release.Geometric) && !isSet(fs, "eps") {
			_ = fs.Set("eps", "1") // any ε: the plan scales it
		}
		return planRelease(fs, *mech, *eps, *epsIn, *epsOut, *brk, *sens, *cells, *truthName, *level, *target, stdout, stderr)
	}
	return planLocal(ctx, fs, planQuestion{study: *studyName, truth: *truthName, target: *target, metric: *metric, method: *method,
		level: *level, vary: *vary, points: *points, users: *users, runs: *runs, seed: *seed, out: *out, figure: *figure}, stdout, stderr)
}

// planQuestion is a local plan's flags.
type planQuestion struct {
	study, truth, metric, method, vary, points, out, figure string
	target, level                                           float64
	users, runs                                             int
	seed                                                    uint64
}

// planLocal plans the local estimate's users or ε by simulation.
func planLocal(ctx context.Context, fs *flag.FlagSet, q planQuestion, stdout, stderr io.Writer) error {
	if err := cmp.Or(required(fs, "study", "truth"), distinct(fs, []string{"o", "figure"}, "study", "truth")); err != nil {
		return err
	}
	if !isSet(fs, "target") {
		return usageError{msg: "flag -target is required: the largest error you accept"}
	}
	if q.figure != "" && !strings.EqualFold(filepath.Ext(q.figure), ".png") {
		return usageError{msg: fmt.Sprintf("-figure %s: want a .png file", q.figure)}
	}
	xs, err := parsePoints(q.points)
	if err != nil {
		return err
	}
	s, err := readStudy(q.study)
	if err != nil {
		return err
	}
	truth, err := readTruth(q.truth, &s.Alphabet)
	if err != nil {
		return err
	}
	req := plan.Request{Study: s, Truth: truth, Method: core.Method(q.method), Metric: plan.Metric(q.metric), Target: q.target,
		Level: q.level, Runs: q.runs, Axis: plan.Axis(q.vary), Points: xs, Users: q.users, Seed: q.seed}
	if err := req.Check(); err != nil {
		return usageError{msg: err.Error()}
	}
	if cost := plan.Cost(req); cost.Long() {
		fmt.Fprintf(stderr, "privmap: plan: this will take %s; fewer -runs or -points make it quicker, Ctrl+C stops it\n", cost)
	}
	mechs, err := buildAll(ctx, q.study, s, stderr)
	if err != nil {
		return err
	}
	start, say := time.Now(), progressLine(stderr, "plan")
	plan, err := plan.Make(ctx, req, mechs, func(f float64) { say("%.0f%% of the simulated deployments", 100*f) })
	if err != nil {
		return err
	}
	line, err := planLine(plan, time.Since(start))
	if err != nil {
		return err
	}
	b := planOutputs(q, plan)
	return commit(ctx, b, stdout, stderr, func(w io.Writer) {
		printLine(line)(w)
		fmt.Fprintf(stderr, "privmap: %s\n", plan.Sentence())
	})
}

// planOutputs returns the files a plan writes: -o's runs and -figure's
// curve.
func planOutputs(q planQuestion, p *plan.Plan) *output.Batch {
	var b output.Batch
	if q.out != "" {
		b.Add(q.out, func(w io.Writer) error { return plan.WriteCSV(w, p) }, q.study, q.truth)
	}
	if q.figure != "" {
		b.Add(q.figure, func(w io.Writer) error { return experiment.WritePlanPNG(w, p, "") }, q.study, q.truth)
	}
	return &b
}

// parsePoints parses -points: numbers separated by commas, or none.
func parsePoints(v string) ([]float64, error) {
	if strings.TrimSpace(v) == "" {
		return nil, nil
	}
	var out []float64
	for _, f := range strings.Split(v, ",") {
		x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil {
			return nil, usageError{msg: fmt.Sprintf("-points: %q is not a number", strings.TrimSpace(f))}
		}
		out = append(out, x)
	}
	return out, nil
}

// planLine is the JSON line of a plan: its question, its points and the
// answer (null when the curve gives none).
func planLine(p *plan.Plan, took time.Duration) ([]byte, error) {
	type point struct {
		X     float64 `json:"x"`
		Bound float64 `json:"bound"`
	}
	res := struct {
		Axis         plan.Axis   `json:"vary"`
		Metric       plan.Metric `json:"error"`
		Unit         string      `json:"unit,omitempty"`
		Method       core.Method `json:"method"`
		Target       float64     `json:"target"`
		Level        float64     `json:"level"`
		Runs         int         `json:"runs"`
		Users        *int        `json:"users,omitempty"`
		Points       []point     `json:"points"`
		Need         *float64    `json:"need"`
		Extrapolated bool        `json:"extrapolated"`
		Seconds      float64     `json:"seconds"`
	}{Axis: p.Axis, Metric: p.Metric, Unit: p.Unit, Method: p.Method, Target: p.Target, Level: p.Level, Runs: p.Runs,
		Extrapolated: p.Extrapolated, Seconds: math.Round(took.Seconds()*1000) / 1000}
	if p.Axis == plan.AxisEps {
		res.Users = &p.Users
	}
	for _, pt := range p.Points {
		res.Points = append(res.Points, point{pt.X, pt.Bound})
	}
	if !math.IsNaN(p.Need) {
		need := p.Need
		if p.Axis == plan.AxisUsers {
			need = math.Ceil(need)
		}
		res.Need = &need
	}
	return json.Marshal(res)
}

// planRelease answers the central release's question in closed form.
func planRelease(fs *flag.FlagSet, mech string, eps, epsIn, epsOut, brk float64, sens, cells int, truthName string, level, target float64,
	stdout, stderr io.Writer) error {
	for _, name := range []string{"study", "error", "method", "vary", "points", "users", "runs", "seed", "o", "figure"} {
		if isSet(fs, name) {
			return usageError{msg: fmt.Sprintf("-%s plans the local estimate; a central release (-mechanism) is planned in closed form", name)}
		}
	}
	if !isSet(fs, "target") || target != math.Trunc(target) || target < 0 {
		return usageError{msg: "-mechanism needs -target: the ± counts every released count may be off by, a whole number"}
	}
	spec, err := releaseSpec(fs, mech, eps, epsIn, epsOut, brk, sens)
	if err != nil {
		return err
	}
	switch {
	case cells == 0 && truthName == "":
		return usageError{msg: "-mechanism needs -cells or -truth: the number of released counts"}
	case cells == 0:
		p, err := readTruth(truthName, nil)
		if err != nil {
			return err
		}
		cells = len(p)
	}
	rp, err := release.PlanFor(spec, cells, level, int(target))
	if err != nil {
		return usageError{msg: err.Error()}
	}
	line, err := json.Marshal(struct {
		Mechanism   string  `json:"mechanism"`
		Cells       int     `json:"cells"`
		Target      int     `json:"target"`
		Level       float64 `json:"level"`
		Sensitivity int     `json:"sensitivity"`
		EpsAll      float64 `json:"eps_all"`
		EpsOutAll   float64 `json:"eps_out_all"`
		EpsEach     float64 `json:"eps_each"`
		EpsOutEach  float64 `json:"eps_out_each"`
	}{mech, cells, rp.Target, level, sens, rp.All.EpsIn, rp.All.EpsOut, rp.Each.EpsIn, rp.Each.EpsOut})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s\n", line)
	fmt.Fprintf(stderr, "privmap: %s\n", rp.Sentence())
	return nil
}
