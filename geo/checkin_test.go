package geo

import (
	"testing"
	"time"

	"github.com/paulmach/orb"
)

func timeAt(h int) time.Time { return time.Date(2010, 1, 1, h, 0, 0, 0, time.UTC) }

func TestFirstPerUser(t *testing.T) {
	p := func(i float64) orb.Point { return orb.Point{i, i} }
	cs := []Checkin{
		{User: "a", Time: timeAt(3), Point: p(1)},
		{User: "b", Time: timeAt(1), Point: p(2)},
		{User: "a", Time: timeAt(2), Point: p(3)}, // a's earliest
		{User: "", Point: p(4)},                   // anonymous: kept
		{User: "b", Time: timeAt(1), Point: p(5)}, // tie: file order wins
		{User: "a", Time: timeAt(2), Point: p(6)}, // tie with a's earliest
		{User: "", Point: p(7)},
	}
	got := FirstPerUser(cs)
	want := []orb.Point{p(3), p(2), p(4), p(7)}
	if len(got) != len(want) {
		t.Fatalf("FirstPerUser kept %d, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].Point != want[i] {
			t.Errorf("FirstPerUser[%d] = %v, want %v", i, got[i].Point, want[i])
		}
	}
	if n := CountUsers(cs); n != 4 {
		t.Errorf("CountUsers = %d, want 4 (a, b and two anonymous)", n)
	}
	// Without times the first line of each user wins.
	nt := []Checkin{{User: "x", Point: p(1)}, {User: "x", Point: p(2)}}
	if got := FirstPerUser(nt); len(got) != 1 || got[0].Point != p(1) {
		t.Errorf("FirstPerUser without times = %v", got)
	}
}
