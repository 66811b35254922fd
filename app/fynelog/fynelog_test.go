package fynelog

import (
	"bytes"
	"errors"
	"log"
	"strings"
	"testing"
)

// logError logs as fyne.LogError does (fyne/v2 log.go).
func logError(l *log.Logger, reason string, err error) {
	l.Println("Fyne error: ", reason)
	if err != nil {
		l.Println("  Cause:", err)
	}
	l.Printf("  At: %s:%d", "/go/pkg/mod/fyne.io/fyne/v2@v2.7.1/app/preferences.go", 103)
}

// TestFilter checks that exactly the two harmless messages are dropped,
// with timestamps as the standard logger writes them, and that every
// other line, the same reasons with other causes included, passes in
// order.
func TestFilter(t *testing.T) {
	var out bytes.Buffer
	l := log.New(Filter(&out), "", log.LstdFlags)
	l.Println("before")
	logError(l, "Preferences load error:", errors.New("EOF"))
	logError(l, "Preferences load error:", errors.New("unexpected EOF"))
	logError(l, "Getting favorite locations", errors.New("this computer does not define a VIDEOS folder"))
	logError(l, "Getting favorite locations", errors.New("permission denied"))
	logError(l, "Failed on saving preferences", errors.New("EOF"))
	logError(l, "Preferences load error:", nil)
	l.Println("after")

	var want bytes.Buffer
	w := log.New(&want, "", log.LstdFlags)
	w.Println("before")
	logError(w, "Preferences load error:", errors.New("unexpected EOF"))
	logError(w, "Getting favorite locations", errors.New("permission denied"))
	logError(w, "Failed on saving preferences", errors.New("EOF"))
	logError(w, "Preferences load error:", nil)
	w.Println("after")
	strip := func(b []byte) string { // the timestamps may differ by a second
		var s []byte
		for _, line := range bytes.SplitAfter(b, []byte("\n")) {
			if len(line) > 20 {
				line = line[20:]
			}
			s = append(s, line...)
		}
		return string(s)
	}
	if got, want := strip(out.Bytes()), strip(want.Bytes()); got != want {
		t.Errorf("filtered log:\n%s\nwant\n%s", got, want)
	}
}

// TestStartupLines holds GLFW's lines on a window system that cannot
// start until the window has started, gives their reasons in one line
// for the message that the window cannot open, and writes them once
// started.
func TestStartupLines(t *testing.T) {
	var out bytes.Buffer
	f := Filter(&out)
	f.Write([]byte("2026/11/28 01:38:11 PlatformError: Win32: Failed to create helper window: Resource type not found\n"))
	f.Write([]byte("2026/11/28 01:38:11 a line of its own\n"))
	if got := StartupError(); got != "PlatformError: Win32: Failed to create helper window: Resource type not found" {
		t.Errorf("StartupError() = %q", got)
	}
	if out.String() != "2026/11/28 01:38:11 a line of its own\n" {
		t.Errorf("written before the start: %q", out.String())
	}
	Started()
	if !strings.Contains(out.String(), "PlatformError: Win32") || StartupError() != "" {
		t.Errorf("after the start: %q, held %q", out.String(), StartupError())
	}
	f.Write([]byte("PlatformError: X11: later\n"))
	if !strings.HasSuffix(out.String(), "PlatformError: X11: later\n") {
		t.Errorf("a line after the start was held: %q", out.String())
	}
}
