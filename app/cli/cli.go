package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/privmap/privmap/app/output"
)

// A command is one sub-command: it parses its own flags from args.
type command struct {
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

var commands = map[string]command{
	"grid":       {"bin a check-in file into a grid: truth.csv and a study file", runGrid},
	"simulate":   {"draw users from a truth and sanitise them with a study's mechanisms", runSimulate},
	"channel":    {"print a mechanism's privacy audit and write its channel matrix", runChannel},
	"estimate":   {"reconstruct the users' distribution from their reports", runEstimate},
	"metrics":    {"compare an estimate with the truth: emd, mse, jsd, tv", runMetrics},
	"render":     {"draw the true and estimated maps, over a basemap, as PNG or SVG", runRender},
	"experiment": {"reproduce a paper's figure: runs.csv, figures and a summary (-list names them)", runExperiment},
	"plan":       {"how many users, or which ε, keep the estimate's (or a release's) error below a target", runPlan},
	"release":    {"release a histogram's counts with central noise (Laplace, geometric, their piecewise mixtures)", runRelease},
	"report":     {"write a release report: one PDF with the data, mechanisms, estimates, release and a manifest, and its JSON", runReport},
	"attack":     {"what an attacker who sees the reports learns of a person: one report, all of hers, and the trade-off with accuracy", runAttack},
	"version":    {"print the version, commit, build date, Go and Fyne versions and the licences of the data and linked modules", runVersion},
}

// Run runs the sub-command named by args[0] with the rest of args and
// returns the process exit status: 0 on success, 1 on failure, 2 on a
// usage error, 130 when ctx was cancelled (Ctrl+C; 143 when its cause is
// Interrupted by SIGTERM): the command then
// stops and writes no output file.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "privmap: unknown command %q\n", args[0])
		usage(stderr)
		return 2
	}
	err := safely(func() error { return cmd.run(ctx, args[1:], stdout, stderr) })
	var (
		help  helpError
		usage usageError
	)
	switch {
	case err == nil:
		return 0
	case ctx.Err() != nil && errors.Is(err, ctx.Err()):
		fmt.Fprintf(stderr, "privmap %s: interrupted; no output file was written\n", args[0])
		var in Interrupted
		if errors.As(context.Cause(ctx), &in) && in.Signal == syscall.SIGTERM {
			return 143 // 128 + SIGTERM, as a shell reports it
		}
		return 130
	case errors.As(err, &help):
		fmt.Fprint(stderr, help.usage)
		return 0
	case errors.As(err, &usage):
		fmt.Fprintf(stderr, "privmap %s: %v\n", args[0], err)
		fmt.Fprint(stderr, usage.usage)
		return 2
	}
	fmt.Fprintf(stderr, "privmap %s: %v\n", args[0], err)
	return 1
}

// Interrupted is the cause of a context cancelled by a signal: Run
// exits with 143 for SIGTERM, 130 for Ctrl+C or any other.
type Interrupted struct{ Signal os.Signal }

func (i Interrupted) Error() string { return "interrupted by " + i.Signal.String() }

// safely runs f and turns a panic in it into an error that asks for a
// report, with the top of the stack, rather than ending the process with
// Go's trace (exit status 2, taken for a usage error).
func safely(f func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			stack := string(debug.Stack())
			if lines := strings.SplitN(stack, "\n", 16); len(lines) == 16 {
				stack = strings.Join(lines[:15], "\n")
			}
			err = fmt.Errorf("internal error: %v; please report it with the command and files that caused it\n%s", p, stack)
		}
	}()
	return f()
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: privmap                 start the GUI on the embedded default data")
	fmt.Fprintln(w, "       privmap gui FILE        start the GUI on a study (.json) or a data file")
	fmt.Fprintln(w, "       privmap COMMAND [flags]  run a command; privmap COMMAND -h lists its flags")
	fmt.Fprintln(w, "commands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
}

// commit writes the files of b, all or none, then the command's summary:
// on stdout, or on stderr when a file of b is standard output, so that
// standard output holds that file alone.
func commit(ctx context.Context, b *output.Batch, stdout, stderr io.Writer, summary func(io.Writer)) error {
	b.Stdout = stdout
	if err := b.Commit(ctx); err != nil {
		return err
	}
	if b.ToStdout() {
		stdout = stderr
	}
	summary(stdout)
	return nil
}

// printLine returns a summary that prints line, a JSON line computed
// before any file was written.
func printLine(line []byte) func(io.Writer) {
	return func(w io.Writer) { fmt.Fprintf(w, "%s\n", line) }
}

// usageError marks a mistake in the command line itself; a mistake in
// the flags carries the command's usage, which Run prints after it.
type usageError struct{ msg, usage string }

func (e usageError) Error() string { return e.msg }

// helpError is -h: Run prints the usage and exits with status 0.
type helpError struct{ usage string }

func (e helpError) Error() string { return flag.ErrHelp.Error() }

// newFlagSet returns a flag set that reports through Run rather than
// printing and exiting on its own: parse gathers its usage, and Run
// prints it on standard error.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("privmap "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parse parses args and turns flag errors into usage errors carrying
// the command's usage.
func parse(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	if err == nil && fs.NArg() > 0 {
		err = fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if err == nil {
		return nil
	}
	var usage strings.Builder
	fs.SetOutput(&usage)
	fs.Usage()
	fs.SetOutput(io.Discard)
	if errors.Is(err, flag.ErrHelp) {
		return helpError{usage.String()}
	}
	return usageError{err.Error(), usage.String()}
}

// distinct refuses a run whose output flags (outputs) name the same file
// as one another or as an input flag (inputs): one output would silently
// replace the other, or the input it was made from. Unset flags and "-"
// are ignored.
func distinct(fs *flag.FlagSet, outputs []string, inputs ...string) error {
	value := func(n string) string { return fs.Lookup(n).Value.String() }
	for i, o := range outputs {
		if value(o) == "" {
			continue
		}
		for _, p := range append(slices.Clone(outputs[i+1:]), inputs...) {
			if value(p) != "" && output.SameFile(value(o), value(p)) {
				what := "the output"
				if slices.Contains(inputs, p) {
					what = "the input"
				}
				return usageError{msg: fmt.Sprintf("-%s and -%s name the same file %s: -%s would replace %s", o, p, value(o), o, what)}
			}
		}
	}
	return nil
}

// required returns a usage error naming the first empty flag.
func required(fs *flag.FlagSet, names ...string) error {
	for _, n := range names {
		if fs.Lookup(n).Value.String() == "" {
			return usageError{msg: fmt.Sprintf("flag -%s is required", n)}
		}
	}
	return nil
}

// isTerminal reports whether w is a terminal, where a progress line may
// be rewritten in place with a carriage return: a file whose mode says
// so, or a writer that says so itself (Terminal() bool).
func isTerminal(w io.Writer) bool {
	if t, ok := w.(interface{ Terminal() bool }); ok {
		return t.Terminal()
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// progressLine returns a function that prints a progress line on w at
// most every five seconds.
func progressLine(w io.Writer, cmd string) func(format string, args ...any) {
	start, last := time.Now(), time.Now()
	return func(format string, args ...any) {
		if time.Since(last) > 5*time.Second {
			last = time.Now()
			fmt.Fprintf(w, "privmap: %s: %s, %s\n", cmd, fmt.Sprintf(format, args...), time.Since(start).Round(time.Second))
		}
	}
}
