package human

import (
	"math"
	"testing"
	"time"
)

func TestLatLon(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{Lat(40.48444), "40.4844°N"}, {Lat(-33.86882), "33.8688°S"}, {Lat(0), "0.0000°N"},
		{Lon(-73.70204), "73.7020°W"}, {Lon(151.20929), "151.2093°E"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %s, want %s", tc.got, tc.want)
		}
	}
}

// TestDuration checks the measured durations the Compare screen
// prints.
func TestDuration(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{104 * time.Millisecond, "104 ms"},
		{2282 * time.Millisecond, "2.28 s"},
		{16656 * time.Millisecond, "16.7 s"},
		{95338 * time.Millisecond, "1 min 35 s"},
		{2*time.Hour + 5*time.Minute + 30*time.Second, "2 h 5 min"},
	} {
		if got := Duration(tc.d); got != tc.want {
			t.Errorf("Duration(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

// TestNumbers holds the writers to the examples their docs give.
func TestNumbers(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{Thousands(0), "0"}, {Thousands(999), "999"}, {Thousands(1000), "1,000"}, {Thousands(-1234567), "-1,234,567"},
		{Odds(math.Log(1.88)), "×1.88"}, {Odds(math.Log(4625)), "×4,625"}, {Odds(math.Log(3.71e6)), "×3.71 million"},
		{Odds(math.Log(2.4e9)), "×2.4 billion"}, {Odds(40), "×10^17"},
		{Bytes(650e6), "650 MB"}, {Bytes(1.3e9), "1.3 GB"}, {Bytes(12), "12 bytes"},
		{Eps(0.9999999999999999), "1"}, {Eps(math.Log(3)), "1.09861"},
		{Split([]int{3}), "all 3 in one cell"}, {Split([]int{1, 1, 1}), "one in each of 3 cells"}, {Split([]int{3, 2, 2}), "3, 2 and 2 in 3 cells"},
		{Split(nil), "no records"}, {Split([]int{9, 8, 7, 6, 5, 4, 3, 2}), "9, 8, 7, … and 2 in 8 cells"},
		{Percent(0.0412), "4.12%"}, {Plural(1, "cell", "cells"), "1 cell"}, {Plural(2048, "cell", "cells"), "2,048 cells"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
	for _, tc := range []struct {
		v    float64
		n    int
		want float64
	}{{1.2345, 3, 1.24}, {1.23, 3, 1.23}, {0.0012301, 2, 0.0013}, {987, 1, 1000}} {
		if got := RoundUp(tc.v, tc.n); got != tc.want {
			t.Errorf("RoundUp(%v, %d) = %v, want %v", tc.v, tc.n, got, tc.want)
		}
	}
}
