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

	"github.com/privmap/privmap/app/attack"
	"github.com/privmap/privmap/app/experiment"
	"github.com/privmap/privmap/app/output"
	"github.com/privmap/privmap/app/plan"
	"github.com/privmap/privmap/core"
)

// runAttack is
//
//	privmap attack -study S -truth T [-prior uniform|FILE] [-per-person] [-seed N] [-o attack.csv]
//	privmap attack -study S -truth T -sweep KIND -eps A:B:N [-error tv|emd|max] [-method M] [-runs R] [-users N]
//	               [-prior uniform|FILE] [-seed N] [-o sweep.csv] [-figure F.png|F.svg]
//
// It measures what an attacker who sees the reports learns (package
// app/attack): for each mechanism of the study, exactly, from one
// report; with -per-person, from all the reports of each person of the
// study's data (simulated, seeded); with -sweep, one kind's trade-off
// between the attacker's success and the estimate's error over ε. One
// JSON line a mechanism (a level, with -sweep) goes to stdout, the
// sentences and progress to stderr; -o and -figure are written all or
// none.
func runAttack(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("attack")
	studyName := fs.String("study", "", "study JSON `file`: the mechanisms, and the data whose people -per-person attacks")
	truthName := fs.String("truth", "", "true distribution `file`: the data's map, the attacker's prior unless -prior says otherwise")
	priorName := fs.String("prior", "", "what the attacker knows before any report: uniform, or a distribution `file` (default: the -truth map)")
	perPerson := fs.Bool("per-person", false, "also attack each person of the study's data with all her reports, guessing her most frequent cell")
	seed := fs.Uint64("seed", 1, "seed of the simulated reports (-per-person) and deployments (-sweep)")
	out := fs.String("o", "", "CSV `file` of the figures (with -sweep: of its points)")
	sweep := fs.String("sweep", "", "draw the trade-off of one mechanism `kind` alone over -eps: "+joinKinds(attack.SweepKinds()))
	epsRange := fs.String("eps", "", "-sweep's levels `A:B:N`: N values of ε from A to B at equal ratios (to three digits)")
	metric := fs.String("error", "", "-sweep's error: tv, emd or max (default: emd on grids of at most 4,096 cells and lines, else tv)")
	method := fs.String("method", string(core.MethodGIBU), "-sweep's estimator: "+core.MethodNames(", ", ", "))
	runs := fs.Int("runs", attack.DefaultSweepRuns, "-sweep's simulated deployments at each ε (their median error is drawn)")
	users := fs.Int("users", 0, "-sweep's users a deployment (default: the study's data, else 10,000)")
	figure := fs.String("figure", "", "-sweep's figure: a PNG or SVG `file`")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := cmp.Or(required(fs, "study", "truth"), distinct(fs, []string{"o", "figure"}, "study", "truth", "prior")); err != nil {
		return err
	}
	if err := attackFlags(fs, *sweep, *figure, *perPerson); err != nil {
		return err
	}
	s, err := readStudy(*studyName)
	if err != nil {
		return err
	}
	truth, err := readTruth(*truthName, &s.Alphabet)
	if err != nil {
		return err
	}
	prior, err := readPrior(*priorName, truth, &s.Alphabet)
	if err != nil {
		return err
	}
	if *sweep != "" {
		eps, err := parseEpsRange(*epsRange)
		if err != nil {
			return err
		}
		req := attack.SweepRequest{Study: s, Truth: truth, Prior: prior, Kind: core.MechanismKind(*sweep), Eps: eps,
			Metric: sweepMetric(*metric, s), Method: core.Method(*method), Runs: *runs, Users: *users, Seed: *seed}
		return attackSweep(ctx, req, *out, *figure, []string{*studyName, *truthName}, stdout, stderr)
	}
	return attackPopulation(ctx, s, prior, attackRun{study: *studyName, truth: *truthName, out: *out, perPerson: *perPerson, seed: *seed}, stdout, stderr)
}

// attackRun is what attackPopulation is asked: the files and the
// per-person attack's seed.
type attackRun struct {
	study, truth, out string
	perPerson         bool
	seed              uint64
}

// attackPopulation measures one report's exposure of every mechanism
// of s and, with perPerson, the home attack on its people, and writes
// the lines, the sentences and the CSV.
func attackPopulation(ctx context.Context, s *core.Study, prior attack.Prior, q attackRun, stdout, stderr io.Writer) error {
	mechs, err := buildAll(ctx, q.study, s, stderr)
	if err != nil {
		return err
	}
	say := progressLine(stderr, "attack")
	ms, err := attack.Expose(ctx, s, mechs, prior, func(f float64) { say("%.0f%% of the one-report figures", 100*f) })
	if err != nil {
		return err
	}
	var people *attack.People
	if q.perPerson {
		people, err = attack.AttackPeople(ctx, s, mechs, prior, q.seed, func(f float64) { say("%.0f%% of the people attacked", 100*f) })
		if err != nil {
			return fmt.Errorf("-per-person: %w", err)
		}
	}
	var b output.Batch
	if q.out != "" {
		b.Add(q.out, func(w io.Writer) error { return attack.WriteCSV(w, ms, people) }, q.study, q.truth)
	}
	lines := make([][]byte, len(ms))
	for j, m := range ms {
		var g *attack.Group
		if people != nil {
			g = &people.Mechs[j]
		}
		if lines[j], err = attackLine(m, g); err != nil {
			return err
		}
	}
	return commit(ctx, &b, stdout, stderr, func(w io.Writer) {
		for _, l := range lines {
			fmt.Fprintf(w, "%s\n", l)
		}
		attackSentences(stderr, s, ms, prior, people)
	})
}

// attackSentences writes each mechanism's sentence and the home
// attack's on w.
func attackSentences(w io.Writer, s *core.Study, ms []attack.Mechanism, prior attack.Prior, people *attack.People) {
	for _, m := range ms {
		fmt.Fprintf(w, "privmap: %s (%s, %s): %s\n", m.Spec.ID, m.Spec.Kind, m.Level, attack.Sentence(s, m, prior))
	}
	if people == nil {
		return
	}
	fmt.Fprintf(w, "privmap: every person (home: %s; reports drawn with seed %d): %s\n",
		people.HomeFrom, people.Seed, attack.PeopleSentence(s.Alphabet, people.All))
	if people.Left > 0 {
		fmt.Fprintf(w, "privmap: %d people of a personalized mechanism (pum) were not attacked: their reports depend on their own tagged cells\n", people.Left)
	}
}

// attackFlags refuses flags that do not go together: -sweep's own
// without it, -per-person with it, a figure that is not PNG or SVG.
func attackFlags(fs *flag.FlagSet, sweep, figure string, perPerson bool) error {
	if sweep == "" {
		for _, name := range []string{"eps", "error", "method", "runs", "users", "figure"} {
			if isSet(fs, name) {
				return usageError{msg: fmt.Sprintf("-%s belongs to -sweep KIND, the trade-off of one kind", name)}
			}
		}
		return nil
	}
	switch ext := strings.ToLower(filepath.Ext(figure)); {
	case perPerson:
		return usageError{msg: "-per-person attacks the study's population; -sweep draws one kind alone: run them apart"}
	case !isSet(fs, "eps"):
		return usageError{msg: "-sweep needs -eps A:B:N, the levels of ε to draw"}
	case figure != "" && ext != ".png" && ext != ".svg":
		return usageError{msg: fmt.Sprintf("-figure %s: want a .png or .svg file", figure)}
	}
	return nil
}

// readPrior returns the attacker's prior: the truth, uniform, or a
// distribution file on the study's alphabet.
func readPrior(name string, truth []float64, a *core.Alphabet) (attack.Prior, error) {
	switch name {
	case "":
		return attack.Prior{Name: "the data's map", Masses: truth}, nil
	case "uniform":
		return attack.Uniform(len(truth)), nil
	}
	p, err := readTruth(name, a)
	if err != nil {
		return attack.Prior{}, fmt.Errorf("-prior: %w", err)
	}
	return attack.Prior{Name: "the map in " + filepath.Base(name), Masses: p}, nil
}

// parseEpsRange parses -eps A:B:N into N levels from A to B at equal
// ratios.
func parseEpsRange(v string) ([]float64, error) {
	parts := strings.Split(v, ":")
	bad := usageError{msg: fmt.Sprintf("-eps %q: want A:B:N, N levels of ε from A to B (0 < A < B, 2 ≤ N ≤ %d)", v, plan.MaxPoints)}
	if len(parts) != 3 {
		return nil, bad
	}
	a, err1 := strconv.ParseFloat(parts[0], 64)
	b, err2 := strconv.ParseFloat(parts[1], 64)
	n, err3 := strconv.Atoi(parts[2])
	if err1 != nil || err2 != nil || err3 != nil || !(a > 0) || !(b > a) || math.IsInf(b, 0) || n < 2 || n > plan.MaxPoints {
		return nil, bad
	}
	return attack.Levels(a, b, n), nil
}

// sweepMetric returns -error, or its default (attack.DefaultMetric).
func sweepMetric(v string, s *core.Study) plan.Metric {
	if v != "" {
		return plan.Metric(v)
	}
	return attack.DefaultMetric(s.Alphabet)
}

// attackSweep draws a kind's trade-off and writes its points.
func attackSweep(ctx context.Context, req attack.SweepRequest, out, figure string, inputs []string, stdout, stderr io.Writer) error {
	if err := req.CheckSweep(); err != nil {
		return usageError{msg: "-sweep: " + err.Error()}
	}
	say := progressLine(stderr, "attack")
	sw, err := attack.MakeSweep(ctx, req, func(f float64) { say("%.0f%% of the sweep", 100*f) })
	if err != nil {
		return err
	}
	var b output.Batch
	if out != "" {
		b.Add(out, func(w io.Writer) error { return attack.WriteSweepCSV(w, sw) }, inputs...)
	}
	if figure != "" {
		format := strings.TrimPrefix(strings.ToLower(filepath.Ext(figure)), ".")
		b.Add(figure, func(w io.Writer) error { return experiment.WriteTradeOff(w, sw, "", format) }, inputs...)
	}
	return commit(ctx, &b, stdout, stderr, func(w io.Writer) {
		for _, p := range sw.Points {
			line, _ := json.Marshal(struct {
				Kind    core.MechanismKind `json:"kind"`
				Eps     float64            `json:"eps"`
				Success float64            `json:"bayes_success"`
				Prior   float64            `json:"prior_success"`
				Error   float64            `json:"error"`
				Metric  plan.Metric        `json:"metric"`
				Unit    string             `json:"unit,omitempty"`
				Current bool               `json:"current"`
			}{sw.Kind, p.Eps, p.Success, p.Prior, p.Error, sw.Metric, sw.Unit, p.Eps == sw.Current})
			fmt.Fprintf(w, "%s\n", line)
		}
		fmt.Fprintf(stderr, "privmap: %s\n", attack.SweepSentence(sw))
	})
}

// attackLine is the JSON line of one mechanism: its one-report figures,
// and the home attack on its people when g is not nil.
func attackLine(m attack.Mechanism, g *attack.Group) ([]byte, error) {
	type bin struct {
		Reports string   `json:"reports"`
		People  int      `json:"people"`
		Exact   *float64 `json:"exact"`
		Within  *float64 `json:"within_1"`
		Median  *float64 `json:"median"`
	}
	level := 0.0
	if k, ok := m.Spec.Kind.Info(); ok {
		level = k.Level(m.Spec)
	}
	res := map[string]any{"mechanism": m.Spec.ID, "kind": m.Spec.Kind, "level": level, "level_words": m.Level}
	if m.NotMeasured != "" {
		res["not_measured"] = m.NotMeasured
	} else {
		res["bayes_success"], res["prior_success"] = m.Success, m.Prior
	}
	if m.Distance {
		suffix := "_" + m.Unit
		if m.Unit == "step" {
			suffix = "_steps"
		}
		res["expected_error"+suffix], res["prior_error"+suffix] = m.ExpectedError, m.PriorError
		for i, r := range m.Radii {
			res["within_"+strings.ReplaceAll(strconv.FormatFloat(r, 'f', -1, 64), ".", "_")+"km"] = m.Within[i]
		}
	} else if m.NoDistance != "" {
		res["no_distance"] = m.NoDistance
	}
	if m.Over != "" {
		res["over"] = m.Over
	}
	if g != nil {
		res["home_people"] = g.All.People
		res["home_exact"] = orNull(g.All.Exact)
		if g.All.Distance && m.Unit == "km" {
			res["home_within_1km"], res["home_median_km"] = orNull(g.All.Within1), orNull(g.All.Median)
		} else if g.All.Distance {
			res["home_within_1_step"], res["home_median_steps"] = orNull(g.All.Within1), orNull(g.All.Median)
		}
		var bins []bin
		for i, b := range attack.Bins {
			h := g.Bins[i]
			bins = append(bins, bin{b.Label, h.People, orNull(h.Exact), orNull(h.Within1), orNull(h.Median)})
		}
		res["home_by_reports"] = bins
	}
	return json.Marshal(res)
}

// orNull returns nil for NaN, else a pointer to v.
func orNull(v float64) *float64 {
	if math.IsNaN(v) {
		return nil
	}
	return &v
}

// joinKinds joins kind names with ", ".
func joinKinds(ks []core.MechanismKind) string {
	names := make([]string, len(ks))
	for i, k := range ks {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}
