package gui

import (
	"sync"

	"fyne.io/fyne/v2"
)

// jobs is the one way between the window's background jobs (loads,
// audits, runs, releases, experiments, basemap tiles) and its widgets:
// a job is started with jobs.Go and changes widgets, bindings included,
// only through jobs.Do and jobs.DoAndWait.
//
// In the window these are fyne.Do and fyne.DoAndWait, which run the
// change on the UI goroutine. Fyne's test driver instead runs fyne.Do on
// the goroutine that calls it, so a job and the test would write one
// widget at once (a renderer's slices changed under another goroutine's
// Refresh). Tests therefore call jobs.queue: changes then wait in a
// queue that the test goroutine, standing for the UI goroutine, runs
// with drain or drainUntil, and nothing else touches a widget meanwhile.
var jobs funnel

// funnel is the type of jobs; its zero value runs changes with fyne.Do.
type funnel struct {
	mu      sync.Mutex
	queued  bool     // changes wait for drain (tests)
	pending []func() // the changes waiting
	running int      // jobs started by Go and not finished
	wake    chan struct{}
}

// queue makes changes wait for drain, until the returned function is
// called. It is for tests, one at a time.
func (f *funnel) queue() (restore func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queued, f.pending, f.wake = true, nil, make(chan struct{}, 1)
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.queued, f.pending = false, nil
	}
}

// Go runs job on a goroutine of its own, counted until it returns.
func (f *funnel) Go(job func()) {
	f.mu.Lock()
	f.running++
	f.mu.Unlock()
	go func() {
		defer func() {
			f.mu.Lock()
			f.running--
			f.signal()
			f.mu.Unlock()
		}()
		job()
	}()
}

// Do runs change on the UI goroutine, not waiting for it.
func (f *funnel) Do(change func()) {
	if !f.post(change) {
		fyne.Do(change)
	}
}

// DoAndWait runs change on the UI goroutine and returns once it has
// run. It is called by jobs only: on the UI goroutine it would wait for
// itself under the tests' queue.
func (f *funnel) DoAndWait(change func()) {
	done := make(chan struct{})
	if f.post(func() { defer close(done); change() }) {
		<-done
		return
	}
	fyne.DoAndWait(change)
}

// post queues change if changes are queued, reporting whether it did.
func (f *funnel) post(change func()) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.queued {
		return false
	}
	f.pending = append(f.pending, change)
	f.signal()
	return true
}

// signal wakes drain; f.mu is held.
func (f *funnel) signal() {
	if f.wake == nil {
		return
	}
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// drain runs the queued changes, and those the running jobs go on
// queueing, on the calling goroutine until no job runs and none is
// queued. It waits as long as that takes: the tests that call it are
// bounded by go test's -timeout, not by a clock that a busy machine
// outruns.
func (f *funnel) drain() {
	f.drainUntil(nil)
}

// drainUntil is drain that stops as soon as done, called on the calling
// goroutine between changes, reports true; with done not nil, it reports
// whether done came true before the jobs ended.
func (f *funnel) drainUntil(done func() bool) bool {
	for {
		if done != nil && done() {
			return true
		}
		f.mu.Lock()
		if len(f.pending) > 0 {
			change := f.pending[0]
			f.pending = f.pending[1:]
			f.mu.Unlock()
			change()
			continue
		}
		idle := f.running == 0
		wake := f.wake
		f.mu.Unlock()
		if idle {
			return done == nil
		}
		<-wake
	}
}
