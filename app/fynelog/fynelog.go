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
package fynelog

import (
	"bytes"
	"io"
	"regexp"
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
	for _, h := range harmless {
		if h.reason.Match(line) {
			f.held, f.rx = bytes.Clone(p), h.cause
			return len(p), nil
		}
	}
	return f.w.Write(p)
}
