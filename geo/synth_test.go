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

// TestNYCSample checks the New York sample's set-up: every place inside
// its box, and the sample's size (7,000 users, every check-in inside).
func TestNYCSample(t *testing.T) {
	for _, s := range NewYork {
		if !NYCBound.Contains(s.Center) || s.Weight <= 0 || s.SpreadKm <= 0 {
			t.Errorf("%s: %v outside %v or bad weight", s.Name, s.Center, NYCBound)
		}
	}
	cs := Synthesize(rand.New(rand.NewPCG(NYCSeed[0], NYCSeed[1])), NewYork, NYCSynth)
	if n := CountUsers(cs); n != NYCSynth.Users {
		t.Errorf("%d users, want %d", n, NYCSynth.Users)
	}
	// Mean check-ins per user: 1 + geometric(mean 19), σ = √(19·20) ≈ 19.5;
	// over 7,000 users the mean is within 6σ/√7000 = 1.4 of 20 with
	// probability 1 − 2e−9.
	if mean := float64(len(cs)) / float64(NYCSynth.Users); mean < 18.6 || mean > 21.4 {
		t.Errorf("mean check-ins per user %.2f, want 20±1.4", mean)
	}
	for _, c := range cs {
		if !NYCBound.Contains(c.Point) {
			t.Fatalf("check-in %v outside the box", c)
		}
	}
}
