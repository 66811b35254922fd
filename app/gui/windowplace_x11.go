//go:build linux && cgo && !wayland

package gui

/*
#cgo LDFLAGS: -lX11
#include <stdlib.h>
#include <X11/Xlib.h>
#include <X11/Xatom.h>

// frameExtents reads the window manager's _NET_FRAME_EXTENTS of w (left,
// right, top, bottom), all 0 when it sets none (no window manager).
static void frameExtents(Display *d, Window w, long ext[4]) {
	Atom prop = XInternAtom(d, "_NET_FRAME_EXTENTS", True);
	Atom type;
	int format;
	unsigned long n, after;
	unsigned char *data = NULL;
	ext[0] = ext[1] = ext[2] = ext[3] = 0;
	if (prop == None) return;
	if (XGetWindowProperty(d, w, prop, 0, 4, False, XA_CARDINAL, &type, &format, &n, &after, &data) == Success && data != NULL) {
		if (type == XA_CARDINAL && format == 32 && n == 4) {
			long *v = (long *)data;
			ext[0] = v[0]; ext[1] = v[1]; ext[2] = v[2]; ext[3] = v[3];
		}
		XFree(data);
	}
}

// outerCorner sets x, y to the top-left corner of w's frame on the
// screen: its client area's corner less the frame's left and top.
static int outerCorner(Display *d, Window w, int *x, int *y) {
	Window child;
	long ext[4];
	if (!XTranslateCoordinates(d, w, DefaultRootWindow(d), 0, 0, x, y, &child)) return 0;
	frameExtents(d, w, ext);
	*x -= (int)ext[0];
	*y -= (int)ext[2];
	return 1;
}

// moveOuter moves w's frame's top-left corner to x, y (ICCCM §4.1.2.3:
// with the default NorthWest gravity a window manager places the frame
// there), unless a point 40 pixels inside it lies off the screen.
static int moveOuter(Display *d, Window w, int x, int y) {
	Screen *s = DefaultScreenOfDisplay(d);
	if (x + 40 < 0 || y + 40 < 0 || x + 40 >= WidthOfScreen(s) || y + 40 >= HeightOfScreen(s)) return 0;
	XMoveWindow(d, w, x, y);
	XFlush(d);
	return 1;
}
*/
import "C"

import (
	"sync"

	"fyne.io/fyne/v2/driver"
)

// x11 is privmap's own connection to the X server, opened on first use:
// GLFW does not share its own.
var x11 struct {
	once sync.Once
	d    *C.Display
}

func display() *C.Display {
	x11.once.Do(func() { x11.d = C.XOpenDisplay(nil) })
	return x11.d
}

func init() {
	nativePosition = x11Position
	nativeMove = x11Move
}

// x11Position returns the top-left corner of the window's frame.
func x11Position(ctx any) (x, y int, ok bool) {
	c, is := ctx.(driver.X11WindowContext)
	d := display()
	if !is || c.WindowHandle == 0 || d == nil {
		return 0, 0, false
	}
	var cx, cy C.int
	if C.outerCorner(d, C.Window(c.WindowHandle), &cx, &cy) == 0 {
		return 0, 0, false
	}
	return int(cx), int(cy), true
}

// x11Move moves the window's frame's top-left corner to x, y.
func x11Move(ctx any, x, y int) bool {
	c, is := ctx.(driver.X11WindowContext)
	d := display()
	if !is || c.WindowHandle == 0 || d == nil {
		return false
	}
	return C.moveOuter(d, C.Window(c.WindowHandle), C.int(x), C.int(y)) != 0
}
