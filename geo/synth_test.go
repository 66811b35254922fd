package geo

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

func TestSynthesize(t *testing.T) {
	opt := SFSynth
	opt.Users = 300
	gen := func() []Checkin {
		return Synthesize(rand.New(rand.NewPCG(7, 7)), SanFrancisco, opt)
	}
	a, b := gen(), gen()
	if len(a) != len(b) {
		t.Fatalf("same seed gave %d and %d check-ins", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("same seed differs at %d: %v, %v", i, a[i], b[i])
		}
	}
	if n := CountUsers(a); n != opt.Users {
		t.Errorf("%d users, want %d", n, opt.Users)
	}
	for _, c := range a {
		if !opt.Bound.Contains(c.Point) || c.Time.Before(opt.Start) {
			t.Fatalf("check-in %v outside the box or before the start", c)
		}
	}
	// Mean check-ins per user: 1 + geometric(mean 6), σ = √(6·7) ≈ 6.5;
	// over 300 users the mean is within 6σ/√300 = 2.2 with probability
	// 1 − 2e−9.
	mean := float64(len(a)) / float64(opt.Users)
	if mean < opt.MeanCheckins-2.2 || mean > opt.MeanCheckins+2.2 {
		t.Errorf("mean check-ins per user %.2f, want %v±2.2", mean, opt.MeanCheckins)
	}
	// WriteSNAP output reads back identically.
	var buf bytes.Buffer
	if err := WriteSNAP(&buf, a); err != nil {
		t.Fatal(err)
	}
	res, err := ReadCheckins(&buf, Auto, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Format != SNAP || len(res.Checkins) != len(a) {
		t.Fatalf("read back %v with %d check-ins, want SNAP with %d", res.Format, len(res.Checkins), len(a))
	}
	for i := range a {
		if r := res.Checkins[i]; r.User != a[i].User || !r.Time.Equal(a[i].Time) || r.Point != a[i].Point || r.Location != a[i].Location {
			t.Fatalf("check-in %d read back as %v, want %v", i, r, a[i])
		}
	}
}
