package geo

import (
	"time"

	"github.com/paulmach/orb"
)

// A Checkin is one located record of a check-in file.
type Checkin struct {
	// User identifies who checked in. It is empty when the file has no
	// user column; every such record then counts as a user of its own.
	User string
	// Time is the check-in time, the zero Time when the file has none.
	Time time.Time
	// Point is the location as longitude, latitude in degrees (orb order).
	Point orb.Point
	// Location is the venue identifier, empty when the file has none.
	Location string
}

// Lat returns the latitude in degrees.
func (c Checkin) Lat() float64 { return c.Point[1] }

// Lon returns the longitude in degrees.
func (c Checkin) Lon() float64 { return c.Point[0] }

// FirstPerUser returns one check-in per user: the earliest by time, ties
// and files without times resolved by file order, as FW §8.2 and CEM §5.1
// take "the first check-in of each user". Check-ins with an empty User are
// all kept. The result keeps the order in which users first appear.
func FirstPerUser(cs []Checkin) []Checkin {
	first := make(map[string]int, len(cs)/4+1)
	out := make([]Checkin, 0, len(cs)/4+1)
	for _, c := range cs {
		if c.User == "" {
			out = append(out, c)
			continue
		}
		i, ok := first[c.User]
		if !ok {
			first[c.User] = len(out)
			out = append(out, c)
			continue
		}
		if c.Time.Before(out[i].Time) {
			out[i] = c
		}
	}
	return out
}

// CountUsers returns the number of distinct users among cs, counting each
// check-in with an empty User as a user of its own.
func CountUsers(cs []Checkin) int {
	seen := make(map[string]struct{}, len(cs)/4+1)
	anon := 0
	for _, c := range cs {
		if c.User == "" {
			anon++
			continue
		}
		seen[c.User] = struct{}{}
	}
	return len(seen) + anon
}
