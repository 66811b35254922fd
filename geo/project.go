package geo

import (
	"math"

	"github.com/paulmach/orb"
)

// Equirectangular returns the local equirectangular projection about
// origin, scaled at latitude lat0 (degrees), into metres east and north of
// origin:
//
//	x = R·(λ − λ₀)·cos φ₀,  y = R·(φ − φ₀)
//
// with R = orb.EarthRadius and angles in radians. Distances along meridians
// are true everywhere and along the parallel φ₀ exactly; across a city-sized
// box the east-west error is about (Δφ)·tan φ₀, 0.1% over San Francisco.
// It is used instead of Web Mercator, whose scale factor 1/cos φ (1.27 at
// San Francisco) would make "0.5 km" cells 0.39 km on the ground.
func Equirectangular(origin orb.Point, lat0 float64) orb.Projection {
	k := orb.EarthRadius * math.Pi / 180
	c := math.Cos(lat0 * math.Pi / 180)
	return func(p orb.Point) orb.Point {
		return orb.Point{k * (p[0] - origin[0]) * c, k * (p[1] - origin[1])}
	}
}
