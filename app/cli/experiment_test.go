package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/privmap/privmap/app/build"
	"github.com/privmap/privmap/app/experiment"
	"github.com/privmap/privmap/app/output"
)

// tinyExperiment runs fw-fig7 (a linear and a planar panel) at tiny
// settings into dir with the given workers.
func tinyExperiment(t *testing.T, dir string, workers string) string {
	t.Helper()
	code, _, errs := run("experiment", "-name", "fw-fig7", "-runs", "3", "-users", "200,500", "-seed", "7", "-workers", workers, "-o", dir)
	if code != 0 {
		t.Fatalf("workers %s: %s", workers, errs)
	}
	// Not a terminal: whole lines, the last one saying every run done
	// (a carriage-return line said nothing to a log until the end).
	if strings.Contains(errs, "\r") || !strings.Contains(errs, "experiment fw-fig7: 12 of 12 runs\n") {
		t.Errorf("stderr %q", errs)
	}
	b, err := os.ReadFile(filepath.Join(dir, "runs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestExperimentWorkers checks runs.csv is the same for a seed whatever
// the number of workers, has the documented columns and a row per panel,
// users, run and estimator, and that the figures and summary are written
// and the partial file removed.
func TestExperimentWorkers(t *testing.T) {
	one := tinyExperiment(t, t.TempDir(), "1")
	three := tinyExperiment(t, t.TempDir(), "3")
	if one != three {
		t.Fatal("runs.csv differs between 1 and 3 workers")
	}
	lines := strings.Split(strings.TrimSpace(one), "\n")
	if lines[0] != "experiment,panel,setting,users,method,run,seed,metric,value" {
		t.Errorf("header %q", lines[0])
	}
	if want := 1 + 2*2*3*3; len(lines) != want { // panels × users × runs × estimators
		t.Errorf("%d lines, want %d", len(lines), want)
	}
	if !strings.HasPrefix(lines[1], "fw-fig7,a,fw-t5,200,[INV]_M projection,0,") {
		t.Errorf("first row %q", lines[1])
	}
	dir := t.TempDir()
	tinyExperiment(t, dir, "2")
	for _, name := range []string{"fw-fig7-a.png", "fw-fig7-a.svg", "fw-fig7-b.png", "fw-fig7-b.svg", "summary.md"} {
		if st, err := os.Stat(filepath.Join(dir, name)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "runs.partial.csv")); !os.IsNotExist(err) {
		t.Errorf("the partial file is left: %v", err)
	}
	sum, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	if !strings.Contains(string(sum), "| 500 |") || !strings.Contains(string(sum), "GIBU") ||
		!strings.Contains(string(sum), "*FW: E. ElSalamouny and C. Palamidessi, “Reconstruction of the distribution of sensitive data under free-will privacy”, arXiv:2208.11268, 2022.* Written by privmap "+build.Version) {
		t.Errorf("summary:\n%s", sum)
	}
	for _, name := range []string{"fw-fig7-a.png", "fw-fig7-a.svg"} { // the figures name their writer
		if b, _ := os.ReadFile(filepath.Join(dir, name)); !bytes.Contains(b, []byte(output.Software())) {
			t.Errorf("%s does not name %s", name, output.Software())
		}
	}
}

// TestExperimentResume interrupts a run after a few jobs, checks the
// finished ones are kept, and resumes: runs.csv is the same as an
// uninterrupted run's, and the kept jobs are not run again.
func TestExperimentResume(t *testing.T) {
	whole := tinyExperiment(t, t.TempDir(), "2")
	dir := t.TempDir()
	e, err := experiment.Lookup("fw-fig7")
	if err != nil {
		t.Fatal(err)
	}
	d, err := experiment.Load(context.Background(), e, experiment.Source{})
	if err != nil {
		t.Fatal(err)
	}
	panels, err := e.Panels(d, []int{200, 500})
	if err != nil {
		t.Fatal(err)
	}
	opt := experiment.Options{Runs: 3, Seed: 7, Workers: 2}
	ctx, cancel := context.WithCancel(context.Background())
	var stderr bytes.Buffer
	stop := &cancelAfter{n: 4, cancel: cancel, w: &stderr}
	if err := runExperimentIn(ctx, e, panels, d, opt, dir, stop); err == nil {
		t.Fatal("the interrupted run reported no error")
	}
	kept, err := experiment.KeptRows(e, panels, opt, filepath.Join(dir, "runs.csv"), filepath.Join(dir, "runs.partial.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if len(kept) < 4 || len(kept) >= 12 {
		t.Fatalf("%d jobs kept after stopping at the 4th of 12", len(kept))
	}
	if !strings.Contains(stderr.String(), "run the same command to resume") {
		t.Errorf("stderr: %s", stderr.String())
	}
	var progress bytes.Buffer
	if err := runExperimentIn(context.Background(), e, panels, d, opt, dir, &progress); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(progress.String(), "of 12 runs") || strings.Contains(progress.String(), " 1 of 12 runs") {
		t.Errorf("the resumed run started again from the first job: %q", progress.String())
	}
	b, _ := os.ReadFile(filepath.Join(dir, "runs.csv"))
	if string(b) != whole {
		t.Error("the resumed runs.csv differs from an uninterrupted run's")
	}
}

// cancelAfter is a progress writer that cancels once n runs are done;
// a terminal, so that it is told every run.
type cancelAfter struct {
	n      int
	cancel context.CancelFunc
	w      io.Writer
}

func (c *cancelAfter) Terminal() bool { return true }

func (c *cancelAfter) Write(p []byte) (int, error) {
	if strings.Contains(string(p), " 4 of ") {
		c.cancel()
	}
	return c.w.Write(p)
}

// TestExperimentErrors checks the flags are refused before anything runs.
func TestExperimentErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-name", "fw-fig99", "-o", dir}, `unknown experiment "fw-fig99"`},
		{[]string{"-name", "fw-fig3", "-runs", "20000", "-o", dir}, "-runs 20000: want 1 to 10000"},
		{[]string{"-name", "fw-fig3", "-users", "10,0", "-o", dir}, "want numbers of users from 1 to 100000000"},
		{[]string{"-name", "fw-fig3", "-workers", "-1", "-o", dir}, "-workers -1"},
		{[]string{"-name", "fw-fig3"}, "-o"},
		{[]string{"-name", "cem-fig5", "-users", "100", "-o", dir}, "cem-fig5 takes its numbers of users from the paper"},
		{[]string{"-name", "uldp-tv", "-users", "100,200", "-o", dir}, "uldp-tv takes one number of users"},
		{[]string{"-name", "fw-fig3", "-data", "x.txt", "-o", dir}, "-data: for experiments with data"},
		{[]string{"-name", "cem-fig6", "-cell", "1", "-o", dir}, "-cell: for check-in data only"},
	} {
		code, _, errs := run(append([]string{"experiment"}, tc.args...)...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, errs, tc.want)
		}
	}
	code, out, _ := run("experiment", "-list")
	if code != 0 || !strings.Contains(out, "fw-fig14") || !strings.Contains(out, "\nfw-fig2 ") ||
		!strings.Contains(out, "\n# ULDP: T. Murakami and Y. Kawamoto, “Utility-optimized local differential privacy mechanisms for distribution estimation”, 28th USENIX Security Symposium, 2019\nuldp-tv ") {
		t.Errorf("-list: %d\n%s", code, out)
	}
}

// TestExperimentFamilies runs a CEM and a ULDP experiment at tiny
// settings from the command line: their figures (one per panel), a CSV
// row per job, estimator and metric, and a summary naming the stand-in
// data and, for CEM's box plots, the paired comparison.
func TestExperimentFamilies(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		figures []string
		rows    int
		summary []string
	}{
		{[]string{"-name", "cem-fig8", "-runs", "2"}, []string{"cem-fig8-a.png", "cem-fig8-c.svg"}, 3 * 7 * 2 * 2,
			[]string{"r (EM, Proposal)", "paired t-test p", "Stand-in: 99 of US Census 1990's 2,458,285 people"}},
		{[]string{"-name", "uldp-tv", "-runs", "1", "-users", "200"}, []string{"uldp-tv-a.png", "uldp-tv-c.png"}, 3 * 7 * 9,
			[]string{"uRAP EM", "| 0.05 |", "synthetic check-ins"}},
	} {
		dir := t.TempDir()
		if code, _, errs := run(append([]string{"experiment", "-workers", "2", "-o", dir}, tc.args...)...); code != 0 {
			t.Fatalf("%v: %s", tc.args, errs)
		}
		for _, f := range tc.figures {
			if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
				t.Errorf("%v: %s: %v", tc.args, f, err)
			}
		}
		b, _ := os.ReadFile(filepath.Join(dir, "runs.csv"))
		if n := strings.Count(string(b), "\n") - 1; n != tc.rows {
			t.Errorf("%v: %d rows, want %d", tc.args, n, tc.rows)
		}
		sum, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
		for _, s := range tc.summary {
			if !strings.Contains(string(sum), s) {
				t.Errorf("%v: summary without %q:\n%s", tc.args, s, sum)
			}
		}
	}
}
