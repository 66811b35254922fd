//go:build unix

package testtool

import (
	"syscall"
	"time"
)

// CPUTime returns the processor time the process has used, user and
// system, all its threads together: a test's budget in it holds on a
// loaded machine, where wall-clock time runs on while the process
// waits for a core.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return time.Duration(time.Now().UnixNano())
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
