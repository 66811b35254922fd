package cli

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/privmap/privmap/app/experiment"
)

// Bounds of experiment's flags, checked before anything is allocated.
const (
	maxRuns    = 10000
	maxUsers   = 100_000_000
	maxWorkers = 1024
)

// runExperiment is
//
//	privmap experiment -name NAME [-runs R] [-seed S] [-users N1,N2,…] [-data FILE]
//	                   [-format F] [-bbox S,W,N,E] [-cell KM] [-per-user first|all] [-workers W] -o DIR
//	privmap experiment -list
//
// It reproduces a paper's figure: runs.csv (one row per run, setting,
// estimator and metric), a PNG and an SVG figure per panel and
// summary.md in DIR. Finished runs are appended to DIR/runs.partial.csv
// as they end, so that Ctrl+C keeps them and the same command resumes
// from them.
func runExperiment(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("experiment")
	list := fs.Bool("list", false, "list the experiments: name, default runs, what it reproduces, under its paper's citation")
	name := fs.String("name", "", "the experiment to run (see -list)")
	runs := fs.Int("runs", 0, "runs at each setting (default: the experiment's; the papers use 100)")
	seed := fs.Uint64("seed", 1, "seed of every run (each run's own seed is derived from it)")
	users := fs.String("users", "", "numbers of users, comma-separated (default: the experiment's; one number where the x-axis is not the users)")
	data := fs.String("data", "", "data `file`: check-ins for FW's planar panels and ULDP's (default: the embedded synthetic San Francisco check-ins on FW's 24×16 grid), a census file for CEM's and pm-adult (default: the embedded head of US Census 1990)")
	format := fs.String("format", "", "data file format: gowalla, foursquare or csv for check-ins, census1990 or adult for census files (default: detect)")
	bbox := fs.String("bbox", "", "box `S,W,N,E` of the grid (default: FW's San Francisco box for the embedded data, else the data's box)")
	cell := fs.Float64("cell", 0.5, "cell side of the grid in `km`")
	perUser := fs.String("per-user", "first", "data per user: first (FW: one check-in per user) or all")
	workers := fs.Int("workers", 0, "runs at once (default: every core)")
	out := fs.String("o", "", "output `folder`")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *list {
		var paper *experiment.Paper
		for i, e := range experiment.List() {
			// Each paper's experiments under a comment line citing it.
			if p := e.Paper(); i == 0 || p != paper {
				if i > 0 {
					fmt.Fprintln(stdout)
				}
				fmt.Fprintf(stdout, "# %s\n", e.Source())
				paper = p
			}
			runs := "runs"
			if e.Runs == 1 {
				runs = "run "
			}
			fmt.Fprintf(stdout, "%-9s %3d %s  %s\n", e.Name, e.Runs, runs, e.Title)
		}
		return nil
	}
	if err := required(fs, "name", "o"); err != nil {
		return err
	}
	e, err := experiment.Lookup(*name)
	if err != nil {
		return usageError{msg: "-name: " + err.Error()}
	}
	opt, ns, err := experimentOptions(e, *runs, *users, *workers, *seed)
	if err != nil {
		return err
	}
	src, err := experimentSource(fs, e, *data, *format, *bbox, *cell, *perUser)
	if err != nil {
		return err
	}
	d, err := experiment.Load(ctx, e, src)
	if err != nil {
		return err
	}
	panels, err := e.Panels(d, ns)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	return runExperimentIn(ctx, e, panels, d, opt, *out, stderr)
}

// experimentSource checks the data flags against the experiment's kind
// of data.
func experimentSource(fs *flag.FlagSet, e *experiment.Experiment, data, format, bbox string, cell float64, perUser string) (experiment.Source, error) {
	src := experiment.Source{Path: data, Format: format}
	switch e.Data {
	case experiment.NoData:
		return src, onlyFor(fs, "experiments with data (-list)", "data", "format", "bbox", "cell", "per-user")
	case experiment.CensusData, experiment.RecordData:
		return src, onlyFor(fs, "check-in data", "bbox", "cell", "per-user")
	}
	opt, err := gridOptions(bbox, cell, perUser, false)
	src.Grid = opt
	return src, err
}

// experimentOptions checks -runs, -users and -workers; it returns the
// users asked for (nil for the experiment's).
func experimentOptions(e *experiment.Experiment, runs int, users string, workers int, seed uint64) (experiment.Options, []int, error) {
	opt := experiment.Options{Runs: cmp.Or(runs, e.Runs), Workers: workers, Seed: seed}
	if opt.Runs < 1 || opt.Runs > maxRuns {
		return opt, nil, usageError{msg: fmt.Sprintf("-runs %d: want 1 to %d", opt.Runs, maxRuns)}
	}
	if workers < 0 || workers > maxWorkers {
		return opt, nil, usageError{msg: fmt.Sprintf("-workers %d: want 0 (every core) to %d", workers, maxWorkers)}
	}
	if users == "" {
		return opt, nil, nil
	}
	var ns []int
	for _, f := range strings.Split(users, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > maxUsers {
			return opt, nil, usageError{msg: fmt.Sprintf("-users %q: want numbers of users from 1 to %d, comma-separated", users, maxUsers)}
		}
		ns = append(ns, n)
	}
	switch {
	case e.UsersRole == experiment.UsersFixed:
		return opt, nil, usageError{msg: fmt.Sprintf("-users: %s takes its numbers of users from the paper (or its data); it has no -users", e.Name)}
	case e.UsersRole == experiment.UsersOne && len(ns) != 1:
		return opt, nil, usageError{msg: fmt.Sprintf("-users %q: %s takes one number of users (its x-axis is not the users)", users, e.Name)}
	}
	return opt, ns, nil
}

// runExperimentIn runs the experiment in out with a progress line on
// stderr (runs done, time left), resuming from the runs kept there.
func runExperimentIn(ctx context.Context, e *experiment.Experiment, panels []experiment.Panel, d *experiment.Data, opt experiment.Options, out string, stderr io.Writer) error {
	// On a terminal the line is rewritten in place; in a log or a pipe
	// a whole line is written every five seconds at most, and the last.
	tty, last := isTerminal(stderr), time.Time{}
	opt.Progress = experiment.TimeLeft(func(done, total int, left string) {
		switch {
		case tty:
			fmt.Fprintf(stderr, "\rexperiment %s: %d of %d runs%s        ", e.Name, done, total, left)
		case done == total || time.Since(last) >= 5*time.Second:
			last = time.Now()
			fmt.Fprintf(stderr, "experiment %s: %d of %d runs%s\n", e.Name, done, total, left)
		}
	})
	kept, total, err := experiment.RunDir(ctx, e, panels, d, opt, out)
	if tty {
		fmt.Fprintln(stderr)
	}
	if err != nil && ctx.Err() != nil {
		fmt.Fprintf(stderr, "privmap experiment: stopped; %d of %d runs kept in %s: run the same command to resume\n",
			kept, total, out+string(os.PathSeparator)+experiment.PartialFile)
	}
	return err
}
