package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/privmap/privmap/app/output"
)

// folderFiles returns the names and contents of the files in dir.
func folderFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range es {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}

// TestFailureKeepsOutputs runs commands that fail after their first
// output could have been written — a second output in a missing folder,
// an unknown preset, a JSON line that cannot be written, a release
// whose noise leaves floating point — over outputs that exist already,
// and checks the exit status, that every file of the folder is
// byte-identical and that no temporary file is left.
func TestFailureKeepsOutputs(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	in := writeSynth(t, 50)
	if code, _, errs := run("grid", "-in", in, "-o", p("counts.csv"), "-study-out", p("study.json"), "-preset", "fw-t5"); code != 0 {
		t.Fatalf("grid: %s", errs)
	}
	for _, name := range []string{"truth.csv", "census.csv", "released.csv", "reports.csv", "estimate.csv"} {
		if err := os.WriteFile(p(name), []byte("the user's previous "+name+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"grid: study in a missing folder", []string{"grid", "-in", in, "-o", p("truth.csv"), "-study-out", p("no/study.json")}, 1, "no such file or directory"},
		{"grid: unknown preset", []string{"grid", "-in", in, "-o", p("truth.csv"), "-study-out", p("s2.json"), "-preset", "nope"}, 2, `-preset "nope": want one of`},
		{"grid census: study in a missing folder", []string{"grid", "-format", "adult", "-in", adultSample, "-o", p("census.csv"), "-study-out", p("no/s.json")}, 1, "no such file or directory"},
		{"release: ε past the arithmetic", []string{"release", "-truth", p("counts.csv"), "-mechanism", "geometric", "-eps", "750", "-o", p("released.csv")}, 2, "is above 700"},
		{"release: closed forms out of floating point", []string{"release", "-truth", p("counts.csv"), "-mechanism", "pm-laplace", "-eps-in", "0.001", "-eps-out", "2", "-break", "700000", "-o", p("released.csv")}, 1, "leave floating point"},
		{"release: break-point past its bound", []string{"release", "-truth", p("counts.csv"), "-mechanism", "pm-laplace", "-eps-in", "1", "-eps-out", "2", "-break", "1e15", "-o", p("released.csv")}, 2, "more than 10000000"},
		{"simulate: reports in a missing folder", []string{"simulate", "-study", p("study.json"), "-truth", p("counts.csv"), "-n", "10", "-o", p("no/reports.csv")}, 1, "no such file or directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := folderFiles(t, dir)
			code, out, errs := run(tc.args...)
			if code != tc.code || !strings.Contains(errs, tc.msg) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, errs, tc.code, tc.msg)
			}
			if out != "" {
				t.Errorf("a failed command printed %q", out)
			}
			after := folderFiles(t, dir)
			for name, content := range before {
				if after[name] != content {
					t.Errorf("%s changed", name)
				}
			}
			for name := range after {
				if _, ok := before[name]; !ok {
					t.Errorf("%s was left behind", name)
				}
			}
		})
	}
}

// TestStdoutIsTheFile runs each command that writes a file with -o -
// and checks that standard output holds exactly what -o FILE writes,
// the summary or JSON line going to standard error instead.
func TestStdoutIsTheFile(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	in := writeSynth(t, 50)
	if code, _, errs := run("grid", "-in", in, "-o", p("truth.csv"), "-study-out", p("study.json"), "-preset", "fw-t5"); code != 0 {
		t.Fatalf("grid: %s", errs)
	}
	if code, _, errs := run("simulate", "-study", p("study.json"), "-truth", p("truth.csv"), "-n", "500", "-o", p("reports.csv")); code != 0 {
		t.Fatalf("simulate: %s", errs)
	}
	for _, tc := range []struct {
		name    string
		args    []string
		summary string // in the summary, on stderr with -o -
	}{
		{"grid", []string{"grid", "-in", in}, "format"},
		{"simulate", []string{"simulate", "-study", p("study.json"), "-truth", p("truth.csv"), "-n", "500"}, "simulated 500 users"},
		{"estimate", []string{"estimate", "-study", p("study.json"), "-reports", p("reports.csv"), "-method", "inv-m"}, `"method":"inv-m"`},
		{"release", []string{"release", "-truth", p("truth.csv"), "-mechanism", "geometric", "-eps", "1"}, `"mechanism":"geometric"`},
		{"channel", []string{"channel", "-study", p("study.json"), "-mechanism", "krr-3.05"}, "worst-case ε-LDP"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := p(tc.name + ".out")
			code, out, errs := run(append(slices.Clone(tc.args), "-o", file)...)
			if code != 0 {
				t.Fatalf("-o FILE: exit %d: %s", code, errs)
			}
			if !strings.Contains(out, tc.summary) {
				t.Errorf("-o FILE: the summary %q is not on stdout: %q", tc.summary, out)
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			code, out, errs = run(append(slices.Clone(tc.args), "-o", "-")...)
			if code != 0 {
				t.Fatalf("-o -: exit %d: %s", code, errs)
			}
			if out != string(want) {
				t.Errorf("-o -: stdout is not the file: %d bytes, want %d\n%.200s", len(out), len(want), out)
			}
			if !strings.Contains(errs, tc.summary) {
				t.Errorf("-o -: the summary %q is not on stderr: %q", tc.summary, errs)
			}
		})
	}
}

// TestUsageOnStderr checks that a mistake in the flags prints the
// command's usage on stderr alone, with exit status 2.
func TestUsageOnStderr(t *testing.T) {
	for name := range commands {
		code, out, errs := run(name, "-bogus")
		if code != 2 || out != "" || !strings.Contains(errs, "flag provided but not defined: -bogus") || !strings.Contains(errs, "Usage of privmap "+name) {
			t.Errorf("%s -bogus: exit %d, stdout %q, stderr %.200q", name, code, out, errs)
		}
	}
}

// TestCommands: the commands a record may name (output.Commands) are the
// command line's, and the window's.
func TestCommands(t *testing.T) {
	var names []string
	for n := range commands {
		names = append(names, n)
	}
	names = append(names, "window")
	slices.Sort(names)
	if got := slices.Sorted(slices.Values(output.Commands)); !slices.Equal(got, names) {
		t.Errorf("output.Commands %v, the command line's and the window %v", got, names)
	}
}
