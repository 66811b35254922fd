package experiment

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"runtime"
	"sort"
	"sync"

	"github.com/privmap/privmap/app"
	"github.com/privmap/privmap/core"
)

// A Row is one line of runs.csv: one metric of one estimator in one run
// (docs/ARCHITECTURE.md §9).
type Row struct {
	Experiment, Panel, Setting string
	Users                      int
	Method                     string // the variant's label
	Run                        int
	Seed                       uint64
	Metric                     string
	Value                      float64
}

// A Job is one run of one panel at a number of users: all the panel's
// estimators on the same reports.
type Job struct {
	Panel int
	Users int
	Run   int
}

// Seed returns the seed of a run: the experiment's seed mixed with the
// experiment, panel, number of users and run by FNV-1a, so that each run
// draws the same reports whichever worker takes it, in whatever order.
func Seed(seed uint64, experiment, panel string, users, run int) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d\x00%s\x00%s\x00%d\x00%d", seed, experiment, panel, users, run)
	return h.Sum64()
}

// Options are a run of an experiment's settings.
type Options struct {
	Runs  int
	Users []int
	Seed  uint64
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

// Jobs returns every job of the panels at opt's users and runs, in
// order: panel, users, run.
func Jobs(panels []Panel, opt Options) []Job {
	var out []Job
	for p := range panels {
		for _, n := range opt.Users {
			for r := range opt.Runs {
				out = append(out, Job{Panel: p, Users: n, Run: r})
			}
		}
	}
	return out
}

// Run runs every job of the panels not in opt.Done on opt.Workers
// goroutines, and hands each finished job's rows to opt.Emit. Cancelling
// ctx stops it between estimations; the jobs finished so far have been
// emitted.
func Run(ctx context.Context, e *Experiment, panels []Panel, opt Options) error {
	mechs := make([][]core.Mechanism, len(panels))
	for i, p := range panels {
		ms, err := app.BuildMechanisms(ctx, p.Study, nil)
		if err != nil {
			return fmt.Errorf("panel %s: %w", p.Name, err)
		}
		mechs[i] = ms
	}
	all := Jobs(panels, opt)
	var todo []Job
	for _, j := range all {
		if !opt.Done[j] {
			todo = append(todo, j)
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := runAll(ctx, todo, opt.Workers, func(j Job) ([]Row, error) {
		return runJob(ctx, e, panels[j.Panel], mechs[j.Panel], j, opt.Seed)
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

// A result is one job's rows, or why it failed.
type result struct {
	job  Job
	rows []Row
	err  error
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
				rows, err := do(j)
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

// runJob draws the job's users from the panel's truth, sanitises them
// with the panel's mechanisms in equal shares, and estimates with every
// variant, each compared with the truth by its EMD.
func runJob(ctx context.Context, e *Experiment, p Panel, mechs []core.Mechanism, j Job, seed uint64) ([]Row, error) {
	s := Seed(seed, e.Name, p.Name, j.Users, j.Run)
	shares, err := p.Study.Shares()
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(s, s^0x9e3779b97f4a7c15))
	g, err := core.SimulateGroups(ctx, rng, mechs, core.Assign(shares, j.Users), p.Truth)
	if err != nil {
		return nil, err
	}
	rows := make([]Row, 0, len(p.Variants))
	for _, v := range p.Variants {
		est, err := core.Reconstruct(ctx, v.Method, p.Study, mechs, g, core.EstimateOptions{Post: v.Post, CEM: core.CEMOptions{Seed: s}})
		if err != nil {
			return nil, fmt.Errorf("panel %s, %d users, run %d, %s: %w", p.Name, j.Users, j.Run, v.Label, err)
		}
		m, err := core.Compare(ctx, p.Truth, est.Theta, p.Study.Alphabet)
		if err != nil {
			return nil, err
		}
		rows = append(rows, Row{Experiment: e.Name, Panel: p.Name, Setting: p.Setting, Users: j.Users, Method: v.Label,
			Run: j.Run, Seed: s, Metric: "emd", Value: m.EMD})
	}
	return rows, nil
}

// Sort orders rows as runs.csv keeps them: by panel, users, run and the
// panel's order of estimators (order gives each label's rank).
func Sort(rows []Row, order map[string]int) {
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		switch {
		case a.Panel != b.Panel:
			return a.Panel < b.Panel
		case a.Users != b.Users:
			return a.Users < b.Users
		case a.Run != b.Run:
			return a.Run < b.Run
		}
		return order[a.Method] < order[b.Method]
	})
}
