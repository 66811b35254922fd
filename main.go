// Command privmap estimates distributions from locally privatised reports.
// With no arguments it opens the GUI on the embedded default data, and
// with "gui FILE" on a study or data file; with a sub-command it runs
// headless (privmap help lists them).
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"

	fyneapp "fyne.io/fyne/v2/app"

	"github.com/privmap/privmap/app/cli"
	_ "github.com/privmap/privmap/app/clocale" // before Fyne reads the locale
	"github.com/privmap/privmap/app/fynelog"
	"github.com/privmap/privmap/app/gui"
)

func main() {
	// Two of Fyne's log messages are its own races or defaults, not
	// faults (package fynelog); every other line reaches stderr.
	log.SetOutput(fynelog.Filter(os.Stderr))
	var files []string
	switch {
	case len(os.Args) > 1 && os.Args[1] == "gui":
		if len(os.Args) > 3 || len(os.Args) == 3 && strings.HasPrefix(os.Args[2], "-") {
			fmt.Fprintln(os.Stderr, "usage: privmap gui [STUDY.json | DATA-FILE]")
			os.Exit(2)
		}
		files = os.Args[2:]
	case len(os.Args) > 1:
		// Ctrl+C or SIGTERM cancels the command, which then writes no
		// output file and exits with 130 or 143; a second signal ends
		// the process at once.
		ctx, cancel := context.WithCancelCause(context.Background())
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
		go func() {
			s := <-sigs
			signal.Stop(sigs)
			cancel(cli.Interrupted{Signal: s})
		}()
		os.Exit(cli.Run(ctx, os.Args[1:], os.Stdout, os.Stderr))
	}
	if noDisplay() {
		fmt.Fprintln(os.Stderr, "privmap: no display to open the window on (DISPLAY and WAYLAND_DISPLAY are unset); the sub-commands run without one: privmap help")
		os.Exit(1)
	}
	hideOwnConsole()
	defer windowFailed()
	a := fyneapp.NewWithID("io.github.privmap")
	a.Lifecycle().SetOnStarted(func() {
		started.Store(true)
		fynelog.Started()
	})
	w := a.NewWindow("privmap")
	w.SetContent(gui.New(a, w, files...))
	w.Resize(gui.WindowSize(a))
	w.ShowAndRun()
}

// started is set once the window has started: a panic after it is a
// fault of privmap's, not a window that cannot open.
var started atomic.Bool

// windowFailed turns the panic of a window system or OpenGL that cannot
// start (GLFW's "NotInitialized" after "PlatformError: Win32: Failed to
// create helper window", a display that refuses, no OpenGL 2.1) into one
// line on standard error with the way out, and exit status 1; a panic
// once the window has started is left to crash with its stack, as a
// fault must.
func windowFailed() {
	if started.Load() {
		return
	}
	p := recover()
	if p == nil {
		return
	}
	why := fynelog.StartupError()
	if why == "" {
		why = fmt.Sprint(p)
		if !strings.Contains(why, "NotInitialized") && !strings.Contains(why, "PlatformError") && !strings.Contains(why, "Unavailable") {
			panic(p) // not the window system's: a fault, with its stack
		}
	}
	fmt.Fprintf(os.Stderr, "privmap: the window cannot open: the window system or OpenGL did not start (%s); the command line works without them: privmap help\n", why)
	os.Exit(1)
}

// noDisplay reports whether a Unix desktop has no display server to open
// the window on, where GLFW would panic.
func noDisplay() bool {
	switch runtime.GOOS {
	case "windows", "darwin", "android", "ios":
		return false
	}
	return os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == ""
}
