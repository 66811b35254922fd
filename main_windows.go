package main

import (
	"syscall"
	"unsafe"
)

// hideOwnConsole closes the console window that Windows opened for
// privmap.exe when it was started from Explorer or a shortcut to show
// its window: privmap.exe is a console program, so that its commands
// print in the Command Prompt or PowerShell that started them, and such
// a console is privmap's alone (GetConsoleProcessList counts one
// process). A console shared with a shell is left alone.
func hideOwnConsole() {
	k := syscall.NewLazyDLL("kernel32.dll")
	list, free := k.NewProc("GetConsoleProcessList"), k.NewProc("FreeConsole")
	var pids [2]uint32
	if n, _, _ := list.Call(uintptr(unsafe.Pointer(&pids[0])), 2); n == 1 {
		free.Call()
	}
}
