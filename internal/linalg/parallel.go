package linalg

import (
	"fmt"
	"runtime"
	"sync"
)

// Each calls f(0), …, f(n−1) on min(GOMAXPROCS, n) goroutines
// and returns when all have returned. The calls must be independent;
// callers that combine their results do so afterwards in index order, so
// that the outcome does not depend on the schedule.
//
// A panic in f does not end the program from a worker goroutine, where
// no caller could recover it: the other workers stop taking indices, and
// Each panics on the caller's goroutine with the first panic's
// value and the worker's stack, so that a caller that recovers (the
// window's background jobs do) reports it as an error.
func Each(n int, f func(i int)) {
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	var (
		wg      sync.WaitGroup
		once    sync.Once
		failure *workerPanic
		stop    = make(chan struct{})
	)
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			defer func() {
				if v := recover(); v != nil {
					once.Do(func() {
						failure = &workerPanic{value: v, stack: stackTrace()}
						close(stop)
					})
				}
			}()
			for i := range next {
				select {
				case <-stop:
					return
				default:
				}
				f(i)
			}
		})
	}
	wg.Wait()
	if failure != nil {
		panic(failure)
	}
}

// A workerPanic is a panic raised in one of Each's goroutines,
// carried to the caller's.
type workerPanic struct {
	value any
	stack []byte
}

func (p *workerPanic) Error() string {
	return fmt.Sprintf("%v [in a worker goroutine]\n%s", p.value, p.stack)
}

// stackTrace returns the calling goroutine's stack.
func stackTrace() []byte {
	buf := make([]byte, 16<<10)
	return buf[:runtime.Stack(buf, false)]
}
