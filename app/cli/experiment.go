package cli

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/privmap/privmap/app"
	"github.com/privmap/privmap/app/experiment"
	"github.com/privmap/privmap/assets"
	"github.com/privmap/privmap/geo"
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
// It reproduces a paper's figure: runs.csv (one row per run, setting and
// estimator), a PNG and an SVG figure per panel and summary.md in DIR.
// Finished runs are appended to DIR/runs.partial.csv as they end, so that
// Ctrl+C keeps them and the same command resumes from them.
func runExperiment(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("experiment", stdout)
	list := fs.Bool("list", false, "list the experiments: name, what it reproduces, default runs")
	name := fs.String("name", "", "the experiment to run (see -list)")
	runs := fs.Int("runs", 0, "runs at each number of users (default: the experiment's; the papers use 100)")
	seed := fs.Uint64("seed", 1, "seed of every run (each run's own seed is derived from it)")
	users := fs.String("users", "", "numbers of users, comma-separated (default: the experiment's)")
	data := fs.String("data", "", "check-in `file` for the planar panels (default: the embedded San Francisco check-ins on FW's 24×16 grid)")
	format := fs.String("format", "", "check-in file format: gowalla, foursquare or csv (default: detect)")
	bbox := fs.String("bbox", "", "box `S,W,N,E` of the planar grid (default: FW's San Francisco box for the embedded data, else the data's box)")
	cell := fs.Float64("cell", 0.5, "cell side of the planar grid in `km`")
	perUser := fs.String("per-user", "first", "data per user: first (FW: one check-in per user) or all")
	workers := fs.Int("workers", 0, "runs at once (default: every core)")
	out := fs.String("o", "", "output `folder`")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *list {
		for _, e := range experiment.List() {
			fmt.Fprintf(stdout, "%-9s %3d runs  %s\n", e.Name, e.Runs, e.Title)
		}
		return nil
	}
	if err := required(fs, "name", "o"); err != nil {
		return err
	}
	e, err := experiment.Lookup(*name)
	if err != nil {
		return usageError{"-name: " + err.Error()}
	}
	opt, err := experimentOptions(e, *runs, *users, *workers, *seed)
	if err != nil {
		return err
	}
	var planar *experiment.Planar
	if e.NeedsPlanar() {
		gopt, err := gridOptions(*bbox, *cell, *perUser, false)
		if err != nil {
			return err
		}
		if planar, err = planarData(ctx, *data, *format, gopt); err != nil {
			return err
		}
	}
	panels, err := e.Panels(planar)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	return runExperimentIn(ctx, e, panels, opt, *out, stderr)
}

// experimentOptions checks -runs, -users and -workers.
func experimentOptions(e *experiment.Experiment, runs int, users string, workers int, seed uint64) (experiment.Options, error) {
	opt := experiment.Options{Runs: cmp.Or(runs, e.Runs), Users: e.Users, Workers: workers, Seed: seed}
	if opt.Runs < 1 || opt.Runs > maxRuns {
		return opt, usageError{fmt.Sprintf("-runs %d: want 1 to %d", opt.Runs, maxRuns)}
	}
	if workers < 0 || workers > maxWorkers {
		return opt, usageError{fmt.Sprintf("-workers %d: want 0 (every core) to %d", workers, maxWorkers)}
	}
	if users != "" {
		opt.Users = nil
		for _, f := range strings.Split(users, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 1 || n > maxUsers {
				return opt, usageError{fmt.Sprintf("-users %q: want numbers of users from 1 to %d, comma-separated", users, maxUsers)}
			}
			opt.Users = append(opt.Users, n)
		}
	}
	return opt, nil
}

// planarData grids the check-ins of name (the embedded San Francisco
// check-ins on FW's box when name is empty) for the planar panels.
func planarData(ctx context.Context, name, format string, opt geo.GridOptions) (*experiment.Planar, error) {
	f, err := geo.ParseFormat(format)
	if err != nil {
		return nil, usageError{err.Error()}
	}
	scan := scanFile(ctx, name, f, geo.Options{})
	source := filepath.Base(name)
	if name == "" {
		if opt.Bound.IsZero() {
			opt.Bound = geo.FWBound
		}
		source = assets.DefaultName
		scan = func(fn func(geo.Checkin) error) (*geo.Result, error) {
			return geo.ScanCheckins(ctx, bytes.NewReader(assets.DefaultCheckins), f, geo.Options{}, fn)
		}
	}
	gd, _, err := geo.GridScan(scan, opt)
	if err != nil {
		if name != "" && !errors.Is(err, context.Canceled) {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return nil, err
	}
	return &experiment.Planar{Alphabet: gd.Grid.Alphabet(), Truth: gd.Distribution(), Source: source}, nil
}

// runExperimentIn runs the experiment's jobs not yet in out's runs.csv
// or runs.partial.csv, appending each finished job's rows to the partial
// file, then writes runs.csv, the figures and the summary.
func runExperimentIn(ctx context.Context, e *experiment.Experiment, panels []experiment.Panel, opt experiment.Options, out string, stderr io.Writer) error {
	final, partial := filepath.Join(out, "runs.csv"), filepath.Join(out, "runs.partial.csv")
	kept, err := keptRows(e, panels, opt, final, partial)
	if err != nil {
		return err
	}
	opt.Done = map[experiment.Job]bool{}
	for j := range kept {
		opt.Done[j] = true
	}
	pf, err := os.OpenFile(partial, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer pf.Close()
	if st, err := pf.Stat(); err == nil && st.Size() == 0 {
		if err := experiment.WriteRows(pf, nil, true); err != nil {
			return err
		}
	}
	start := time.Now()
	first := -1
	opt.Emit = func(j experiment.Job, rows []experiment.Row) error {
		kept[j] = rows
		return experiment.WriteRows(pf, rows, false)
	}
	opt.Progress = func(done, total int) {
		if first < 0 {
			first = done - 1
		}
		left := ""
		if n := done - first; n > 0 && done < total {
			left = ", about " + (time.Since(start) / time.Duration(n) * time.Duration(total-done)).Round(time.Second).String() + " left"
		}
		fmt.Fprintf(stderr, "\rexperiment %s: %d of %d runs%s        ", e.Name, done, total, left)
	}
	err = experiment.Run(ctx, e, panels, opt)
	fmt.Fprintln(stderr)
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintf(stderr, "privmap experiment: stopped; %d of %d runs kept in %s: run the same command to resume\n",
				len(kept), len(experiment.Jobs(panels, opt)), partial)
		}
		return err
	}
	if err := pf.Close(); err != nil {
		return err
	}
	return writeExperiment(e, panels, opt, kept, out, partial)
}

// keptRows reads the rows of earlier runs of the same command (runs.csv,
// then runs.partial.csv) and keeps those of this command's jobs, drawn
// from the seed this command gives them, with every estimator of their
// panel.
func keptRows(e *experiment.Experiment, panels []experiment.Panel, opt experiment.Options, files ...string) (map[experiment.Job][]experiment.Row, error) {
	want := map[experiment.Job]bool{}
	for _, j := range experiment.Jobs(panels, opt) {
		want[j] = true
	}
	index := map[string]int{}
	for i, p := range panels {
		index[p.Name] = i
	}
	kept := map[experiment.Job][]experiment.Row{}
	for _, name := range files {
		f, err := os.Open(name)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		rows, err := experiment.ReadRows(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w (remove it to start afresh)", name, err)
		}
		byJob := map[experiment.Job][]experiment.Row{}
		for _, r := range rows {
			p, ok := index[r.Panel]
			j := experiment.Job{Panel: p, Users: r.Users, Run: r.Run}
			if !ok || r.Experiment != e.Name || !want[j] || r.Seed != experiment.Seed(opt.Seed, e.Name, r.Panel, r.Users, r.Run) {
				continue
			}
			byJob[j] = append(byJob[j], r)
		}
		for j, rows := range byJob {
			if len(rows) == len(panels[j.Panel].Variants) {
				kept[j] = rows
			}
		}
	}
	return kept, nil
}

// writeExperiment writes runs.csv (sorted, so the same for any worker
// count), the figures and the summary, and removes the partial file.
func writeExperiment(e *experiment.Experiment, panels []experiment.Panel, opt experiment.Options, kept map[experiment.Job][]experiment.Row, out, partial string) error {
	var rows []experiment.Row
	order := map[string]int{}
	for _, p := range panels {
		for i, v := range p.Variants {
			order[v.Label] = i
		}
	}
	for _, j := range experiment.Jobs(panels, opt) {
		rows = append(rows, kept[j]...)
	}
	experiment.Sort(rows, order)
	if err := app.WriteFile(filepath.Join(out, "runs.csv"), func(w io.Writer) error { return experiment.WriteRows(w, rows, true) }); err != nil {
		return err
	}
	points := experiment.Points(rows)
	for _, p := range panels {
		pl, err := experiment.Figure(p, points)
		if err != nil {
			return err
		}
		for _, format := range []string{"png", "svg"} {
			name := filepath.Join(out, fmt.Sprintf("%s-%s.%s", e.Name, p.Name, format))
			if err := app.WriteFile(name, func(w io.Writer) error { return experiment.WriteFigure(w, pl, format) }); err != nil {
				return err
			}
		}
	}
	if err := app.WriteFile(filepath.Join(out, "summary.md"), func(w io.Writer) error {
		return experiment.Summary(w, e, panels, points, opt.Runs, opt.Seed)
	}); err != nil {
		return err
	}
	return os.Remove(partial)
}
