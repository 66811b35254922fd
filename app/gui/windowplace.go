package gui

import (
	"context"
	"fmt"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver"
)

// prefPlace is the window's position on the screen, "X,Y": its outer
// top-left corner in the screen's pixels.
const prefPlace = "window.position"

// placeEvery is how often the window's position is read: Fyne tells no
// one that a window moved, so it is asked.
const placeEvery = 2 * time.Second

// The platform's calls that read and set a window's position from the
// context that driver.NativeWindow.RunNative passes: Win32's
// (windowplace_windows.go) and Xlib's (windowplace_x11.go, with the
// window manager's frame); nil where privmap cannot place its window.
// Fyne 2.7 has no API for a window's position, a Wayland client may not
// place its windows at all (a Fyne build with the wayland tag), and
// macOS is not done.
var (
	nativePosition func(ctx any) (x, y int, ok bool)
	nativeMove     func(ctx any, x, y int) bool
)

// placeKeeper remembers the window's position in the preferences as it
// changes and puts the window back there when it opens.
type placeKeeper struct {
	prefs fyne.Preferences
	win   fyne.Window
	last  string // the position last written or restored
}

// native runs f with w's platform context, if w has one.
func native(w fyne.Window, f func(ctx any)) {
	if nw, ok := w.(driver.NativeWindow); ok {
		nw.RunNative(f)
	}
}

// check reads the window's position and writes it when it changed; it
// runs on the UI goroutine.
func (k *placeKeeper) check() {
	if nativePosition == nil {
		return
	}
	native(k.win, func(ctx any) {
		if x, y, ok := nativePosition(ctx); ok {
			if s := fmt.Sprintf("%d,%d", x, y); s != k.last {
				k.last = s
				k.prefs.SetString(prefPlace, s)
			}
		}
	})
}

// restore moves the window to the position the preferences hold, if
// any; the platform call refuses a place no screen shows.
func (k *placeKeeper) restore() {
	var x, y int
	s := k.prefs.String(prefPlace)
	if nativeMove == nil || s == "" {
		return
	}
	if _, err := fmt.Sscanf(s, "%d,%d", &x, &y); err != nil {
		return
	}
	native(k.win, func(ctx any) {
		if nativeMove(ctx, x, y) {
			k.last = s
		}
	})
}

// keep restores the window's position, then reads it every placeEvery
// until ctx ends; it does nothing where the window cannot be placed.
func (k *placeKeeper) keep(ctx context.Context) {
	if nativePosition == nil {
		return
	}
	go func() {
		fyne.Do(k.restore) // once the window is shown
		t := time.NewTicker(placeEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				fyne.Do(k.check)
			}
		}
	}()
}
