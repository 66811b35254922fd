package linalg

import "math"

// Log returns the natural logarithm of v, subnormal v included. On amd64
// math.Log reads a subnormal's exponent as if the number were normal
// (golang/go#56600, open: math.Log(5e−324) gives −709.09, not −744.44),
// which would cap every privacy ratio of a tiny probability near e^709
// and misstate the log-likelihood of rare reports; a subnormal is scaled
// by 2^52 into the normal range first, which is exact.
func Log(v float64) float64 {
	if v > 0 && v < 0x1p-1022 {
		return math.Log(v*0x1p52) - 52*math.Ln2
	}
	return math.Log(v)
}
