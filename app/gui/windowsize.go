package gui

import (
	"fmt"
	"sync"
	"time"

	"fyne.io/fyne/v2"
)

// sizeDelay is how long the window's size must stay unchanged before it
// is written to the preferences: a drag of the window's edge resizes it
// many times, and one write is enough.
const sizeDelay = time.Second

// A sizeKeeper lays its one object out over the window's content and
// remembers the window's size in the preferences as it changes (a
// second after the last change), so that a window closed any way —
// Quit, the window manager, a crash — opens again at the size it had.
// Fyne tells a window's size to its content's layout, not to a
// listener, so the layout is where the size is heard.
type sizeKeeper struct {
	prefs fyne.Preferences
	// canvas is the window's size, as Resize takes it: the content is
	// laid out smaller, below the main menu.
	canvas func() fyne.Size

	mu      sync.Mutex
	size    fyne.Size // the window's size when last laid out
	pending *time.Timer
}

// Layout implements fyne.Layout.
func (k *sizeKeeper) Layout(objects []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objects {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(size)
	}
	if k.canvas != nil {
		size = k.canvas()
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if size == k.size || size.Width <= 0 {
		return
	}
	k.size = size
	if k.pending == nil {
		// Written on the UI goroutine, as Fyne's own preference saves
		// are: its file watcher's reloads run there too, so they never
		// read the file while it is being written.
		k.pending = time.AfterFunc(sizeDelay, func() { fyne.Do(k.flush) })
	} else {
		k.pending.Reset(sizeDelay)
	}
}

// MinSize implements fyne.Layout.
func (k *sizeKeeper) MinSize(objects []fyne.CanvasObject) fyne.Size {
	var s fyne.Size
	for _, o := range objects {
		s = s.Max(o.MinSize())
	}
	return s
}

// flush writes the size laid out last, if it has not been written.
func (k *sizeKeeper) flush() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.pending == nil {
		return
	}
	k.pending.Stop()
	k.pending = nil
	// One key, one write: Fyne saves the preferences on every change and
	// a second change within its 100 ms save window is written again
	// while its file watcher may read the file truncated ("Preferences
	// load error: EOF").
	k.prefs.SetString(prefSize, fmt.Sprintf("%gx%g", k.size.Width, k.size.Height))
}
