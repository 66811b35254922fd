package experiment

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/privmap/privmap/app/mapplot"
	"github.com/privmap/privmap/app/output"
)

// The files an experiment writes in its folder (docs/FILES.md).
const (
	RunsFile    = "runs.csv"
	PartialFile = "runs.partial.csv"
	SummaryFile = "summary.md"
)

// RunDir runs the experiment's jobs not yet in dir's runs.csv or
// runs.partial.csv, appending each finished job's rows to the partial
// file as it ends, then writes runs.csv, the figures and the summary
// (Write) and removes the partial file. It returns how many of the jobs
// are finished, so that an interrupted run can say how many it kept.
func RunDir(ctx context.Context, e *Experiment, panels []Panel, d *Data, opt Options, dir string) (kept, total int, err error) {
	final, partial := filepath.Join(dir, RunsFile), filepath.Join(dir, PartialFile)
	rows, err := KeptRows(e, panels, opt, final, partial)
	if err != nil {
		return 0, 0, err
	}
	jobs := Jobs(panels, opt.Runs)
	opt.Done = map[Job]bool{}
	for j := range rows {
		opt.Done[j] = true
	}
	pf, err := os.OpenFile(partial, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return len(rows), len(jobs), err
	}
	defer pf.Close()
	if st, err := pf.Stat(); err == nil && st.Size() == 0 {
		if err := WriteRows(pf, nil, true); err != nil {
			return len(rows), len(jobs), err
		}
	}
	emit := opt.Emit
	opt.Emit = func(j Job, rs []Row) error {
		rows[j] = rs
		if err := WriteRows(pf, rs, false); err != nil {
			return err
		}
		if emit != nil {
			return emit(j, rs)
		}
		return nil
	}
	if err := Run(ctx, e, panels, opt); err != nil {
		return len(rows), len(jobs), err
	}
	if err := pf.Close(); err != nil {
		return len(rows), len(jobs), err
	}
	var all []Row
	for _, j := range jobs {
		all = append(all, rows[j]...)
	}
	if err := Write(ctx, dir, e, panels, d, opt, all); err != nil {
		return len(rows), len(jobs), err
	}
	return len(rows), len(jobs), os.Remove(partial)
}

// KeptRows reads the rows of earlier runs of the same command from files
// (runs.csv, runs.partial.csv) and keeps those of this command's jobs:
// drawn from the seed this command gives them, with every estimator and
// metric of their panel.
func KeptRows(e *Experiment, panels []Panel, opt Options, files ...string) (map[Job][]Row, error) {
	type key struct {
		panel, setting string
		users, run     int
	}
	jobOf := map[key]Job{}
	for _, j := range Jobs(panels, opt.Runs) {
		p := panels[j.Panel]
		s := p.Settings[j.Setting]
		jobOf[key{p.Name, s.Name, s.Users(), j.Run}] = j
	}
	kept := map[Job][]Row{}
	for _, name := range files {
		f, err := os.Open(name)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		rows, err := ReadRows(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w (remove it to start afresh)", name, err)
		}
		byJob := map[Job][]Row{}
		for _, r := range rows {
			j, ok := jobOf[key{r.Panel, r.Setting, r.Users, r.Run}]
			if !ok || r.Experiment != e.Name || r.Seed != jobSeed(opt.Seed, e, panels, j) {
				continue
			}
			byJob[j] = append(byJob[j], r)
		}
		for j, rows := range byJob {
			if complete(panels[j.Panel], rows) {
				kept[j] = rows
			}
		}
	}
	return kept, nil
}

// complete reports whether rows are all of a job of panel p: a row of
// every variant and metric, but the metrics a run may have nothing to
// measure (mayBeMissing), which it writes no row of.
func complete(p Panel, rows []Row) bool {
	have := map[[2]string]bool{}
	for _, r := range rows {
		have[[2]string{r.Method, r.Metric}] = true
	}
	for _, v := range p.Variants {
		for _, m := range p.Metrics {
			if !have[[2]string{v.Label, string(m)}] && !mayBeMissing[m] {
				return false
			}
		}
	}
	return true
}

// Write writes an experiment's results into dir, all of them or none
// (output.Batch): runs.csv (the rows sorted, so the same for any number of
// workers), a PNG and an SVG figure per panel (NAME-a.png, …) and
// summary.md.
func Write(ctx context.Context, dir string, e *Experiment, panels []Panel, d *Data, opt Options, rows []Row) error {
	Sort(rows, OrderOf(panels))
	var b output.Batch
	b.Add(filepath.Join(dir, RunsFile), func(w io.Writer) error { return WriteRows(w, rows, true) })
	points := Points(panels, rows)
	for _, p := range panels {
		ch, err := Figure(p, points, mapplot.Print)
		if err != nil {
			return err
		}
		for _, format := range []string{"png", "svg"} {
			b.Add(filepath.Join(dir, FigureName(e, p, format)), func(w io.Writer) error { return WriteFigure(w, ch, format) })
		}
	}
	b.Add(filepath.Join(dir, SummaryFile), func(w io.Writer) error {
		return Summary(w, e, panels, points, d, opt.Runs, opt.Seed)
	})
	return b.Commit(ctx)
}

// FigureName is the name of a panel's figure file: NAME-PANEL.FORMAT.
func FigureName(e *Experiment, p Panel, format string) string {
	return fmt.Sprintf("%s-%s.%s", e.Name, p.Name, format)
}
