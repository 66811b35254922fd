package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// catalogueRow is one row of docs/ERRORS.md's command-line table:
// | case | `privmap ARGS` | status | `message` |
var catalogueRow = regexp.MustCompile("^\\| (.+?) \\| `privmap ([^`]+)` \\| ([0-9]+) \\| `([^`]+)` \\|$")

// TestErrorCatalogue runs every row of docs/ERRORS.md's command-line
// table in a copy of testdata/errors under an 8 GB address-space limit
// (ulimit -v 8000000) and a budget of 20 s of processor time, which a
// loaded machine does not eat as it eats wall-clock time (a row that
// blocks for ever is go test's -timeout's): each must end with the
// documented exit status and first line of standard error, and leave no
// file behind, output or temporary.
func TestErrorCatalogue(t *testing.T) {
	doc, err := os.ReadFile("docs/ERRORS.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	for _, line := range strings.Split(string(doc), "\n") {
		m := catalogueRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		rows++
		name, args, status, want := m[1], m[2], m[3], m[4]
		t.Run(name, func(t *testing.T) {
			dir := copyDir(t, "testdata/errors")
			previousOutputs(t, dir, args)
			before := contents(t, dir)
			cmd := exec.Command("bash", "-c", `ulimit -v 8000000 && exec "$0"`, os.Args[0])
			cmd.Dir = dir
			// Each row's default ledger is its own, out of the user's.
			cmd.Env = append(os.Environ(), "PRIVMAP_TEST_MAIN=1", "PRIVMAP_TEST_ARGS="+args, "XDG_DATA_HOME="+t.TempDir())
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			if cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(); cpu > 20*time.Second {
				t.Errorf("privmap %s took %v of processor time, past 20 s", args, cpu)
			}
			var exit *exec.ExitError
			code := "0"
			if errors.As(err, &exit) {
				code = strings.TrimPrefix(exit.String(), "exit status ")
			}
			first, _, _ := strings.Cut(stderr.String(), "\n")
			if code != status || first != want {
				t.Errorf("privmap %s\nexit %s, stderr:\n%s\nwant exit %s and\n%s", args, code, stderr.String(), status, want)
			}
			sameFiles(t, "privmap "+args, before, contents(t, dir))
		})
	}
	if rows < 40 {
		t.Errorf("docs/ERRORS.md has %d command rows; the table was not read", rows)
	}
}

// previousOutputs gives every output a command line names (-o,
// -study-out) whose folder exists and that is no input of the folder a
// previous content of its own, which the failing command must leave as
// it was.
func previousOutputs(t *testing.T, dir, args string) {
	t.Helper()
	fields := strings.Fields(args)
	for i, f := range fields[:len(fields)-1] {
		if f != "-o" && f != "-study-out" {
			continue
		}
		name := filepath.Join(dir, fields[i+1])
		if _, err := os.Stat(name); err == nil {
			continue // an input
		}
		if _, err := os.Stat(filepath.Dir(name)); err != nil {
			continue
		}
		if err := os.WriteFile(name, []byte("the user's previous output\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// sameFiles reports, after what, every file of before that after holds
// with other content or not at all, and every file of after that before
// lacks.
func sameFiles(t *testing.T, what string, before, after map[string]string) {
	t.Helper()
	for f, b := range before {
		if after[f] != b {
			t.Errorf("%s changed %s", what, f)
		}
	}
	for f := range after {
		if _, ok := before[f]; !ok {
			t.Errorf("%s left %s behind", what, f)
		}
	}
}

// contents returns the content of every file of dir by name.
func contents(t *testing.T, dir string) map[string]string {
	t.Helper()
	files, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, f := range files {
		if !f.Type().IsRegular() {
			out[f.Name()] = f.Type().String() // a pipe is not read
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[f.Name()] = string(b)
	}
	return out
}

// copyDir copies the files of dir into a new temporary folder.
func copyDir(t *testing.T, dir string) string {
	t.Helper()
	out := t.TempDir()
	files, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, f.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestSignals stops a command reading its reports from a named pipe with
// SIGTERM and with Ctrl+C (SIGINT), as a shell or a service manager
// does: it exits with 143 or 130, says it was interrupted, leaves the
// earlier output byte-identical and no temporary file. The pipe makes it
// deterministic: the command is reading once the pipe opens, and each
// line written after the signal wakes its read, which sees the cancel.
func TestSignals(t *testing.T) {
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGTERM, 143}, {syscall.SIGINT, 130}} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			dir := copyDir(t, "testdata/errors")
			fifo := filepath.Join(dir, "reports.fifo")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "x.csv"), []byte("previous\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			before := contents(t, dir)
			cmd := exec.Command(os.Args[0])
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "PRIVMAP_TEST_MAIN=1", "PRIVMAP_TEST_ARGS=estimate -study study.json -reports reports.fifo -o x.csv")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			w, err := os.OpenFile(fifo, os.O_WRONLY, 0) // returns once the command opened it
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			if _, err := io.WriteString(w, "mechanism,report,count\n"); err != nil {
				t.Fatal(err)
			}
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			// However long a loaded machine takes to stop it: a command
			// deaf to the signal is go test's -timeout's.
			var werr error
		feed:
			for {
				select {
				case werr = <-done:
					break feed
				default:
					io.WriteString(w, "k1,1,1\n") // an error once the command has gone
				}
			}
			w.Close()
			var exit *exec.ExitError
			if !errors.As(werr, &exit) || exit.ExitCode() != tc.code || !strings.Contains(stderr.String(), "interrupted; no output file was written") {
				t.Errorf("%v: %v, stderr %q; want exit %d and interrupted", tc.sig, werr, stderr.String(), tc.code)
			}
			sameFiles(t, tc.sig.String(), before, contents(t, dir))
		})
	}
}
