// Package fynelog keeps two of Fyne's log messages, harmless and
// misleading, off privmap's standard error; every other line passes.
//
// Fyne 2.7.1 logs an error with fyne.LogError as three lines through the
// standard logger: "Fyne error:  REASON", "  Cause: ERR" and
// "  At: FILE:LINE". Two such errors are Fyne's own races or defaults, not
// faults a person can act on:
//
//   - "Preferences load error:" caused by EOF. Fyne saves preferences by
//     truncating preferences.json (os.Create) before it marks the save as
//     its own, and its fsnotify watcher of the same folder can reload the
//     file in between, while the window closes (when fyne.Do runs at once);
//     the empty read changes no value, and the save completes
//     (fyne/v2/app/preferences.go, settings_desktop.go). Only Fyne can
//     write atomically (a temporary file and a rename).
//   - "Getting favorite locations" caused by "this computer does not
//     define a VIDEOS folder" (or another XDG user folder): Fyne's file
//     dialog asks xdg-user-dir for each favourite folder and logs each that
//     a desktop without those folders lacks; the dialog lists the others.
//
// The filter drops exactly these: a held "Fyne error:" line is dropped
// with its Cause and At lines when the cause is the one named, and
// written otherwise.
//
// Until Started is called, the filter also holds back the lines of GLFW
// that say why the window system or OpenGL did not start
// ("PlatformError: X11: Failed to open display", "Win32: Failed to
// create helper window"): when the window then cannot open, privmap says
// so in one line with StartupError's reason; once it has started, they
// are written.
package fynelog

import (
	"bytes"
	"io"
	"regexp"
	"strings"
	"sync"
)

// harmless lists the reasons and causes dropped.
var harmless = []struct{ reason, cause *regexp.Regexp }{
	{regexp.MustCompile(`Fyne error: +Preferences load error:`), regexp.MustCompile(`  Cause: EOF$`)},
	{regexp.MustCompile(`Fyne error: +Getting favorite locations`), regexp.MustCompile(`  Cause: this computer does not define an? [A-Z]+ folder$`)},
}

// Filter returns a writer for the standard logger (log.SetOutput) that
// writes to w all but the harmless messages. The logger writes each
// line with one Write call, as Filter assumes.
func Filter(w io.Writer) io.Writer { return &filter{w: w} }

// startup holds GLFW's lines until the window has started.
var startup struct {
	sync.Mutex
	started bool
	w       io.Writer // where the held lines go once started
	held    [][]byte
}

// startupLine reports whether a line is GLFW's on a window system or
// OpenGL that cannot start.
func startupLine(line []byte) bool {
	return bytes.Contains(line, []byte("PlatformError")) || bytes.Contains(line, []byte("failed to initialise GLFW")) ||
		bytes.Contains(line, []byte("APIUnavailable")) || bytes.Contains(line, []byte("VersionUnavailable"))
}

// Started writes the lines held back while the window started, and
// lets such lines through from then on.
func Started() {
	startup.Lock()
	defer startup.Unlock()
	startup.started = true
	for _, l := range startup.held {
		if startup.w != nil {
			startup.w.Write(l)
		}
	}
	startup.held = nil
}

// StartupError returns what the lines held back say, without their
// dates, joined by "; ": why the window could not open; "" when none was
// held.
func StartupError() string {
	startup.Lock()
	defer startup.Unlock()
	var parts []string
	for _, l := range startup.held {
		l = bytes.TrimSpace(l)
		for _, key := range []string{"PlatformError", "APIUnavailable", "VersionUnavailable", "failed to initialise GLFW"} {
			if i := bytes.Index(l, []byte(key)); i >= 0 {
				l = l[i:]
				break
			}
		}
		parts = append(parts, string(l))
	}
	return strings.Join(parts, "; ")
}

type filter struct {
	mu   sync.Mutex
	w    io.Writer
	held []byte         // a "Fyne error:" line that may be dropped
	rx   *regexp.Regexp // the cause that drops it
	drop bool           // the cause matched: drop the At line next
}

func (f *filter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	line := bytes.TrimRight(p, "\n")
	switch {
	case f.drop:
		f.drop = false
		if bytes.Contains(line, []byte("  At: ")) {
			return len(p), nil
		}
	case f.held != nil:
		held := f.held
		f.held = nil
		if f.rx.Match(line) {
			f.drop = true
			return len(p), nil
		}
		if _, err := f.w.Write(held); err != nil {
			return 0, err
		}
	}
	if startupLine(line) {
		startup.Lock()
		held := !startup.started
		if held {
			startup.w = f.w
			startup.held = append(startup.held, bytes.Clone(p))
		}
		startup.Unlock()
		if held {
			return len(p), nil
		}
	}
	for _, h := range harmless {
		if h.reason.Match(line) {
			f.held, f.rx = bytes.Clone(p), h.cause
			return len(p), nil
		}
	}
	return f.w.Write(p)
}
