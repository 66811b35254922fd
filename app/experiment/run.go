package experiment

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/privmap/privmap/app/pipeline"
	"github.com/privmap/privmap/core"
	"github.com/privmap/privmap/core/emd"
)

// A Row is one line of runs.csv: one metric of one estimator in one run
// (docs/FILES.md).
type Row struct {
	Experiment, Panel, Setting string
	Users                      int
	Method                     string // the variant's label
	Run                        int
	Seed                       uint64
	Metric                     string
	Value                      float64
}

// A Job is one run of one panel at one setting: every estimator of the
// panel on the same reports.
type Job struct {
	Panel, Setting, Run int
}

// Seed returns the seed of a run: the experiment's seed mixed with the
// experiment, panel, setting, number of users and run by FNV-1a, so that
// each run draws the same reports whichever worker takes it, in whatever
// order.
func Seed(seed uint64, experiment, panel, setting string, users, run int) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d\x00%s\x00%s\x00%s\x00%d\x00%d", seed, experiment, panel, setting, users, run)
	return h.Sum64()
}

// jobSeed is the seed of job j of experiment e with the panels.
func jobSeed(seed uint64, e *Experiment, panels []Panel, j Job) uint64 {
	p := panels[j.Panel]
	s := p.Settings[j.Setting]
	return Seed(seed, e.Name, p.Name, s.Name, s.Users(), j.Run)
}

// Options are a run of an experiment's settings.
type Options struct {
	Runs int
	Seed uint64
	// Workers is how many runs go at once (0: every core).
	Workers int
	// Done holds the jobs already finished (from an earlier, interrupted
	// run of the same command): they are skipped.
	Done map[Job]bool
	// Emit receives the rows of each finished job, one job at a time and
	// never concurrently, in the order the jobs finish.
	Emit func(Job, []Row) error
	// Progress is told how many jobs of the total are finished.
	Progress func(done, total int)
}

// TimeLeft returns a Progress that hands report the jobs done, the
// total and an estimate of the time left: the mean time of the jobs
// finished since its first call (a resumed run's kept jobs are not
// timed) times the jobs still to do, as ", about 1m20s left", or "" once
// all are done. Run calls Progress from one goroutine.
func TimeLeft(report func(done, total int, left string)) func(done, total int) {
	start := time.Now()
	first := -1
	return func(done, total int) {
		if first < 0 {
			first = done - 1
		}
		left := ""
		if n := done - first; n > 0 && done < total {
			left = ", about " + (time.Since(start) / time.Duration(n) * time.Duration(total-done)).Round(time.Second).String() + " left"
		}
		report(done, total, left)
	}
}

// Jobs returns every job of the panels at runs runs, in order: panel,
// setting, run.
func Jobs(panels []Panel, runs int) []Job {
	var out []Job
	for p := range panels {
		for s := range panels[p].Settings {
			for r := range runs {
				out = append(out, Job{Panel: p, Setting: s, Run: r})
			}
		}
	}
	return out
}

// Run runs every job of the panels not in opt.Done on opt.Workers
// goroutines, and hands each finished job's rows to opt.Emit. Each study
// of the populations is built once, before the jobs. Cancelling ctx stops
// it between estimations; the jobs finished so far have been emitted.
func Run(ctx context.Context, e *Experiment, panels []Panel, opt Options) error {
	all := Jobs(panels, opt.Runs)
	var todo []Job
	for _, j := range all {
		if !opt.Done[j] {
			todo = append(todo, j)
		}
	}
	if len(todo) == 0 {
		return ctx.Err() // nothing to build: every run is kept
	}
	built, err := buildAll(ctx, panels)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := runAll(ctx, todo, opt.Workers, func(j Job) ([]Row, error) {
		return checkRows(runJob(ctx, e, panels[j.Panel], built, j, jobSeed(opt.Seed, e, panels, j)))
	})
	done := len(all) - len(todo)
	var first error
	for res := range results {
		if first != nil {
			continue // drain: the workers stop at the cancelled context
		}
		if first = res.err; first == nil && opt.Emit != nil {
			first = opt.Emit(res.job, res.rows)
		}
		if first != nil {
			cancel()
			continue
		}
		done++
		if opt.Progress != nil {
			opt.Progress(done, len(all))
		}
	}
	if first != nil && !errors.Is(first, context.Canceled) {
		return first
	}
	return ctx.Err()
}

// buildAll builds the mechanisms of every study of the panels'
// populations, once each: populations share a study to share its
// mechanisms (FW's planar tables, Shokri's linear programs).
func buildAll(ctx context.Context, panels []Panel) (map[*core.Study][]core.Mechanism, error) {
	built := map[*core.Study][]core.Mechanism{}
	for _, p := range panels {
		for _, s := range p.Settings {
			for _, pop := range s.Pops {
				if _, ok := built[pop.Study]; ok {
					continue
				}
				ms, err := pipeline.BuildMechanisms(ctx, pop.Study, nil)
				if err != nil {
					return nil, fmt.Errorf("panel %s, %s: %w", p.Name, s.Name, err)
				}
				built[pop.Study] = ms
			}
		}
	}
	return built, nil
}

// A result is one job's rows, or why it failed.
type result struct {
	job  Job
	rows []Row
	err  error
}

// recovered calls do(j), turning a panic in it into the job's error: a
// worker's panic would otherwise end the program, past the command's
// and the window's recovery, which see only their own goroutine.
func recovered(j Job, do func(Job) ([]Row, error)) (rows []Row, err error) {
	defer func() {
		if p := recover(); p != nil {
			rows, err = nil, fmt.Errorf("panel %d, setting %d, run %d: internal error: %v", j.Panel, j.Setting, j.Run, p)
		}
	}()
	return do(j)
}

// runAll runs do on every job on workers goroutines (0: every core) and
// sends the results, closing the channel once every worker has stopped.
func runAll(ctx context.Context, jobs []Job, workers int, do func(Job) ([]Row, error)) <-chan result {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	queue := make(chan Job)
	results := make(chan result)
	var wg sync.WaitGroup
	for range min(workers, max(len(jobs), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range queue {
				rows, err := recovered(j, do)
				select {
				case results <- result{j, rows, err}:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() {
		defer close(queue)
		for _, j := range jobs {
			select {
			case queue <- j:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(results) }()
	return results
}

// checkRows refuses a job's row whose value runs.csv could not hold
// (checkValue), naming it.
func checkRows(rows []Row, err error) ([]Row, error) {
	for _, r := range rows {
		if err != nil {
			break
		}
		if err = checkValue(Metric(r.Metric), r.Value); err != nil {
			err = fmt.Errorf("panel %s, setting %s, run %d, %s: %w", r.Panel, r.Setting, r.Run, r.Method, err)
		}
	}
	return rows, err
}

// runJob sanitises the users of every population of the job's setting —
// their data drawn from the panel's truth, or the study's own data — and
// estimates with every variant from its population's reports, each
// compared with the truth by the panel's metrics.
func runJob(ctx context.Context, e *Experiment, p Panel, built map[*core.Study][]core.Mechanism, j Job, seed uint64) ([]Row, error) {
	s := p.Settings[j.Setting]
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	row := func(v Variant, m Metric, val float64) Row {
		return Row{Experiment: e.Name, Panel: p.Name, Setting: s.Name, Users: s.Users(), Method: v.Label,
			Run: j.Run, Seed: seed, Metric: string(m), Value: val}
	}
	if p.Measure != nil {
		var rows []Row
		for vi, v := range p.Variants {
			vals, err := p.Measure(ctx, rng, j.Setting, vi)
			if err != nil {
				return nil, fmt.Errorf("panel %s, %s, run %d, %s: %w", p.Name, s.Name, j.Run, v.Label, err)
			}
			for mi, m := range p.Metrics {
				if math.IsNaN(vals[mi]) {
					continue // nothing to measure in this run: no row
				}
				rows = append(rows, row(v, m, vals[mi]))
			}
		}
		return rows, nil
	}
	groups := make([]*core.Groups, len(s.Pops))
	for i, pop := range s.Pops {
		g, err := sanitise(ctx, rng, pop, built[pop.Study], p.Truth)
		if err != nil {
			return nil, fmt.Errorf("panel %s, %s, run %d: %w", p.Name, s.Name, j.Run, err)
		}
		groups[i] = g
	}
	rows := make([]Row, 0, len(p.Variants)*len(p.Metrics))
	for _, v := range p.Variants {
		pop := s.Pops[v.Pop]
		in := Input{Study: pop.Study, Mechs: built[pop.Study], Groups: groups[v.Pop]}
		est, err := estimate(ctx, v, in, seed)
		if err != nil {
			return nil, fmt.Errorf("panel %s, %s, run %d, %s: %w", p.Name, s.Name, j.Run, v.Label, err)
		}
		for _, m := range p.Metrics {
			val, err := measure(ctx, m, p, est)
			if err != nil {
				return nil, err
			}
			rows = append(rows, row(v, m, val))
		}
	}
	return rows, nil
}

// sanitise draws a population's reports: its users' data drawn from
// truth, or its study's data as they are, with their personal cells.
func sanitise(ctx context.Context, rng *rand.Rand, pop Population, mechs []core.Mechanism, truth []float64) (*core.Groups, error) {
	if pop.Study.Data == nil {
		return core.SimulateGroups(ctx, rng, mechs, pop.Users, truth)
	}
	var mech []int
	var reps []core.Report
	err := core.SimulateData(ctx, rng, mechs, pop.Users, pop.Study.Data, pop.Study.Personal, func(_, j int, r core.Report) error {
		mech, reps = append(mech, j), append(reps, r)
		return nil
	}, nil)
	if err != nil {
		return nil, err
	}
	return core.GroupReports(len(mechs), mech, reps), nil
}

// estimate runs a variant on its population's reports; corrected EM
// chooses α by a simulation seeded with the run's seed.
func estimate(ctx context.Context, v Variant, in Input, seed uint64) ([]float64, error) {
	if v.Estimate != nil {
		return v.Estimate(ctx, in)
	}
	est, err := core.Reconstruct(ctx, v.Method, in.Study, in.Mechs, in.Groups, core.EstimateOptions{Post: v.Post, ULDP: v.ULDP, CEM: core.CEMOptions{Seed: seed}})
	if err != nil {
		return nil, err
	}
	return est.Theta, nil
}

// measure computes metric m of an estimate against the panel's truth.
func measure(ctx context.Context, m Metric, p Panel, est []float64) (float64, error) {
	switch m {
	case MSE:
		return emd.SquaredError(p.Truth, est), nil
	case JSD:
		return emd.JSD(p.Truth, est), nil
	case TV:
		return emd.TV(p.Truth, est), nil
	}
	c, err := emd.Compare(ctx, p.Truth, est, p.Alphabet)
	if err != nil {
		return 0, err
	}
	if c.EMDNote != "" {
		return 0, errors.New(c.EMDNote)
	}
	return c.EMD, nil
}

// Sort orders rows as runs.csv keeps them: by panel, then in the order
// of the panels' settings, by run, and in the figure's order of
// estimators and metrics.
func Sort(rows []Row, order Order) {
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		sa, sb := order.Setting[settingKey(a.Panel, a.Setting, a.Users)], order.Setting[settingKey(b.Panel, b.Setting, b.Users)]
		switch {
		case a.Panel != b.Panel:
			return a.Panel < b.Panel
		case sa != sb:
			return sa < sb
		case a.Run != b.Run:
			return a.Run < b.Run
		case a.Method != b.Method:
			return order.Method[a.Method] < order.Method[b.Method]
		}
		return order.Metric[a.Metric] < order.Metric[b.Metric]
	})
}

// Order ranks settings (by settingKey), estimators and metrics as the
// panels list them.
type Order struct {
	Setting, Method, Metric map[string]int
}

// settingKey tells a panel's settings apart: its name and users.
func settingKey(panel, setting string, users int) string {
	return fmt.Sprintf("%s\x00%s\x00%d", panel, setting, users)
}

// OrderOf returns the panels' order.
func OrderOf(panels []Panel) Order {
	o := Order{Setting: map[string]int{}, Method: map[string]int{}, Metric: map[string]int{}}
	for _, p := range panels {
		for i, s := range p.Settings {
			o.Setting[settingKey(p.Name, s.Name, s.Users())] = i
		}
		for i, v := range p.Variants {
			o.Method[v.Label] = i
		}
		for i, m := range p.Metrics {
			o.Metric[string(m)] = i
		}
	}
	return o
}
