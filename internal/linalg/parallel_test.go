package linalg

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestEachParallelPanic checks that a panic in a worker reaches the
// caller's goroutine, where it can be recovered, and stops the others.
func TestEachParallelPanic(t *testing.T) {
	var calls atomic.Int64
	defer func() {
		v := recover()
		p, ok := v.(*workerPanic)
		if !ok || !strings.Contains(p.Error(), "boom at 3") || !strings.Contains(p.Error(), "in a worker goroutine") {
			t.Fatalf("recovered %v", v)
		}
		if n := calls.Load(); n >= 500 { // half the calls: 25 ms after the panic

			t.Errorf("%d calls after the panic: the workers did not stop", n)
		}
	}()
	Each(1000, func(i int) {
		calls.Add(1)
		time.Sleep(50 * time.Microsecond)
		if i == 3 {
			panic("boom at 3")
		}
	})
	t.Fatal("no panic")
}
