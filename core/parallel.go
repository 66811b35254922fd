package core

import (
	"runtime"
	"sync"
)

// eachParallel calls f(0), …, f(n−1) on min(GOMAXPROCS, n) goroutines
// and returns when all have returned. The calls must be independent;
// callers that combine their results do so afterwards in index order, so
// that the outcome does not depend on the schedule.
func eachParallel(n int, f func(i int)) {
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			for i := range next {
				f(i)
			}
		})
	}
	wg.Wait()
}
