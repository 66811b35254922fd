package gui

import (
	"fmt"
	"runtime/debug"
)

// guarded calls f and turns a panic in it into an error, so that a bug
// met by a background job (loading, a run, an audit) is shown in the
// window, whose previous state stays, instead of ending the program. The
// error carries the panic's value and the top of its stack, for a
// report.
func guarded[T any](f func() (T, error)) (v T, err error) {
	defer func() {
		if p := recover(); p != nil {
			var zero T
			v, err = zero, fmt.Errorf("internal error: %v; please report it with the file and settings that caused it\n%s", p, stackTop(debug.Stack(), 12))
		}
	}()
	return f()
}

// stackTop returns the first n lines of a stack trace.
func stackTop(stack []byte, n int) string {
	lines := 0
	for i, b := range stack {
		if b == '\n' {
			if lines++; lines == n {
				return string(stack[:i])
			}
		}
	}
	return string(stack)
}
