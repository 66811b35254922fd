package gui

import (
	"context"
	"runtime"
	"sync"
)

// auditSlots lets audits run a few at a time, leaving a core to the work
// the user waits for (loading, gridding), and lets a run hold them: no
// audit starts while an estimate runs, which uses every core (those
// already running finish). On a city grid every row's audit takes
// seconds of a core; on NYC's they took a core from [IBU]_R's 30 s.
type auditSlots struct {
	free  chan struct{}
	mu    sync.Mutex
	holds int
	open  chan struct{} // closed while no run holds the audits
}

func newAuditSlots() *auditSlots {
	open := make(chan struct{})
	close(open)
	return &auditSlots{free: make(chan struct{}, max(1, runtime.GOMAXPROCS(0)-1)), open: open}
}

// gate returns a channel closed while no run holds the audits.
func (s *auditSlots) gate() chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.open
}

// run calls f once no run holds the audits and a slot is free, or
// returns ctx's error if ctx is done first. held, if not nil, is called
// with true when f waits for a run, and with false as f starts.
func (s *auditSlots) run(ctx context.Context, held func(bool), f func() (string, error)) (string, error) {
	for {
		select {
		case <-s.gate():
		default:
			if held != nil {
				held(true)
			}
			select {
			case <-s.gate():
			case <-ctx.Done():
				return "", ctx.Err()
			}
		}
		select {
		case s.free <- struct{}{}:
		case <-ctx.Done():
			return "", ctx.Err()
		}
		select {
		case <-s.gate():
			defer func() { <-s.free }()
			if held != nil {
				held(false)
			}
			return f()
		default: // a run took hold meanwhile
			<-s.free
		}
	}
}

// hold keeps audits from starting until release is called, once or more.
func (s *auditSlots) hold() (release func()) {
	s.mu.Lock()
	s.holds++
	if s.holds == 1 {
		s.open = make(chan struct{})
	}
	s.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.holds--; s.holds == 0 {
				close(s.open)
			}
		})
	}
}
