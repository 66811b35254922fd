package gui

import (
	"os"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMain queues the background jobs' changes for the whole package:
// every test runs them on its own goroutine with settle or settleUntil,
// so no job touches a widget while the test does.
func TestMain(m *testing.M) {
	jobs.queue()
	// The default ledger is under a temporary data folder; each test
	// window names its own (openTestWindow).
	dir, err := os.MkdirTemp("", "privmap-gui-test-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_DATA_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// settle runs the jobs' changes until every job has ended, however long
// a loaded machine takes (go test's -timeout bounds a job that hangs).
func settle(t testing.TB) {
	t.Helper()
	jobs.drain()
}

// settleUntil runs the jobs' changes until cond, read between them,
// holds; it fails if the jobs end first.
func settleUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	require.True(t, jobs.drainUntil(cond), "%s: never happened", what)
}

// TestFunnelOrder checks that changes posted by jobs run on the
// draining goroutine, in the order each job posted them, and that
// DoAndWait returns only once its change has run.
func TestFunnelOrder(t *testing.T) {
	var got []int // written only by changes, on this goroutine
	var ran atomic.Bool
	jobs.Go(func() {
		for i := range 3 {
			jobs.Do(func() { got = append(got, i) })
		}
		jobs.DoAndWait(func() { got = append(got, 3) })
		ran.Store(len(got) == 4) // read after DoAndWait: the change ran
	})
	settle(t)
	assert.Equal(t, []int{0, 1, 2, 3}, got)
	assert.True(t, ran.Load(), "DoAndWait returned before its change ran")
}

// TestFunnelUntil checks that drainUntil stops at its condition with a
// job still running, and fails when the jobs end without it.
func TestFunnelUntil(t *testing.T) {
	step := make(chan struct{})
	n := 0
	jobs.Go(func() {
		jobs.Do(func() { n = 1 })
		<-step
		jobs.Do(func() { n = 2 })
	})
	settleUntil(t, "first change", func() bool { return n == 1 })
	close(step)
	settle(t)
	assert.Equal(t, 2, n)
	assert.False(t, jobs.drainUntil(func() bool { return n == 3 }), "no job left to make n 3")
}
