package core

import (
	"math"
)

// An Audit is what a mechanism instance really guarantees, read off its
// channel rather than its formula (DESIGN §3).
type Audit struct {
	// LDP is the worst ε-LDP ratio: over every output, or over the
	// protected outputs only when Protected (ULDP mechanisms). +Inf when
	// some output rules inputs out.
	LDP       float64
	Protected bool
	// Invertible, for ULDP mechanisms, is −1 when every invertible output
	// has exactly one possible input, else the first output (uRAP: the
	// first non-protected bit) that has not.
	Invertible int
	// GeoInd is the worst ε-geo-indistinguishability per GeoUnit (km or
	// step); NaN without a metric or for bit-vector outputs.
	GeoInd  float64
	GeoUnit string
	// QualityMean and QualityWorst are the expected distance between the
	// true and the reported symbol, averaged over inputs (uniform prior)
	// and for the worst input; NaN without a metric or for bit vectors.
	QualityMean, QualityWorst float64
}

// AuditMechanism audits m on alphabet a. It costs O(K³) for symbol
// outputs (the geo-indistinguishability ratios) and O(K³) for bit
// vectors.
func AuditMechanism(m Mechanism, a Alphabet) Audit {
	au := Audit{Invertible: -1, GeoInd: math.NaN(), QualityMean: math.NaN(), QualityWorst: math.NaN()}
	switch c := m.(type) {
	case *PUM:
		// The common mechanism on the extended alphabet, whose tag symbols
		// have no place on the map: no metric.
		return AuditMechanism(c.Common, Alphabet{Kind: KindCategorical, Size: c.Inputs()})
	case *URAP:
		au.Protected = true
		var zeros []int
		for j := range c.K {
			if !c.IsSensitive(j) {
				zeros = append(zeros, j)
			}
		}
		au.LDP = WorstBitLDP(c, zeros)
		au.Invertible = InvertibleBits(c, zeros)
		return au
	case BitChannel:
		au.LDP = WorstBitLDP(c, nil)
		return au
	case Channel:
		var keep func(int) bool
		if u, ok := m.(*URR); ok {
			au.Protected = true
			keep = u.IsSensitive
			au.Invertible = InvertibleInputs(c, func(z int) bool { return !u.IsSensitive(z) })
		}
		au.LDP = WorstLDP(c, keep)
		if _, unit, ok := a.Distance(0, 0); ok {
			dist := func(x, y int) float64 { d, _, _ := a.Distance(x, y); return d }
			au.GeoInd, au.GeoUnit = WorstGeoInd(c, dist), unit
			au.QualityMean, au.QualityWorst = qualityLoss(c, dist)
		}
	}
	return au
}

// qualityLoss returns the mean over inputs and the maximum of the
// expected distance Σ_z P(z|x) d(x, z).
func qualityLoss(c Channel, dist func(x, y int) float64) (mean, worst float64) {
	for x := range c.Inputs() {
		e := 0.0
		for z := range c.Outputs() {
			if p := c.Prob(x, z); p > 0 {
				e += p * dist(x, z)
			}
		}
		mean += e
		worst = math.Max(worst, e)
	}
	return mean / float64(c.Inputs()), worst
}
