package gui

import (
	"syscall"
	"unsafe"

	"fyne.io/fyne/v2/driver"
)

// Win32's calls for the window's position (user32.dll).
var (
	user32            = syscall.NewLazyDLL("user32.dll")
	procGetWindowRect = user32.NewProc("GetWindowRect")
	procSetWindowPos  = user32.NewProc("SetWindowPos")
	procIsIconic      = user32.NewProc("IsIconic")
	procIsZoomed      = user32.NewProc("IsZoomed")
	procMonitorFromPt = user32.NewProc("MonitorFromPoint")
)

func init() {
	nativePosition = windowsPosition
	nativeMove = windowsMove
}

// windowsPosition returns the outer top-left corner of the window
// (GetWindowRect), unless it is minimised or maximised, which are no
// place to open at.
func windowsPosition(ctx any) (x, y int, ok bool) {
	c, is := ctx.(driver.WindowsWindowContext)
	if !is || c.HWND == 0 {
		return 0, 0, false
	}
	if r, _, _ := procIsIconic.Call(c.HWND); r != 0 {
		return 0, 0, false
	}
	if r, _, _ := procIsZoomed.Call(c.HWND); r != 0 {
		return 0, 0, false
	}
	var r struct{ Left, Top, Right, Bottom int32 }
	if ok, _, _ := procGetWindowRect.Call(c.HWND, uintptr(unsafe.Pointer(&r))); ok == 0 {
		return 0, 0, false
	}
	return int(r.Left), int(r.Top), true
}

// windowsMove moves the window's outer top-left corner to x, y
// (SetWindowPos, its size and stacking kept), unless no monitor shows
// a point 40 pixels inside that corner (a monitor since unplugged).
func windowsMove(ctx any, x, y int) bool {
	c, is := ctx.(driver.WindowsWindowContext)
	if !is || c.HWND == 0 {
		return false
	}
	const monitorDefaultToNull = 0
	// MonitorFromPoint takes a POINT by value: x and y packed in 64 bits.
	pt := uintptr(uint32(int32(x+40))) | uintptr(uint32(int32(y+40)))<<32
	if m, _, _ := procMonitorFromPt.Call(pt, monitorDefaultToNull); m == 0 {
		return false
	}
	const swpNoSize, swpNoZOrder, swpNoActivate = 0x0001, 0x0004, 0x0010
	r, _, _ := procSetWindowPos.Call(c.HWND, 0, uintptr(int32(x)), uintptr(int32(y)), 0, 0, swpNoSize|swpNoZOrder|swpNoActivate)
	return r != 0
}
