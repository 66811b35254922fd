//go:build !windows

package main

// hideOwnConsole does nothing outside Windows, where a desktop launcher
// opens no console.
func hideOwnConsole() {}
