package core

import (
	"context"
	"math"
	"math/rand/v2"
)

// WorstLDP returns the smallest ε for which c is ε-LDP, read off its
// channel:
//
//	ε = max_z max_{x,x'} ln( P(z|x) / P(z|x') )
//
// over the outputs z for which keep(z) is true (every output when keep
// is nil). It is +Inf when some kept output is possible under one input
// and impossible under another.
func WorstLDP(c Channel, keep func(z int) bool) float64 {
	worst := 0.0
	for z := range c.Outputs() {
		if keep != nil && !keep(z) {
			continue
		}
		lo, hi := math.Inf(1), 0.0
		for x := range c.Inputs() {
			p := c.Prob(x, z)
			lo, hi = math.Min(lo, p), math.Max(hi, p)
		}
		if hi == 0 {
			continue // impossible output
		}
		worst = math.Max(worst, math.Log(hi/lo))
	}
	return worst
}

// sampleBits draws k independent bits, bit j being 1 with probability
// p1(j). Callers pass a p1 with their exponentials computed once per
// report, not once per bit.
func sampleBits(rng *rand.Rand, k int, p1 func(j int) float64) Bits {
	bits := make([]byte, k)
	for j := range bits {
		if rng.Float64() < p1(j) {
			bits[j] = 1
		}
	}
	return NewBits(bits)
}

// WorstBitLDP returns the smallest ε for which c is ε-LDP on the outputs
// whose bits listed in zeros are 0. As the bits are independent given x,
// the worst ratio over all 2^K outputs factorises exactly:
//
//	max_v P(v|x)/P(v|x') = Π_j max_b P(b_j|x)/P(b_j|x')
//
// with b_j ranging over {0, 1} (only 0 for j in zeros). This is computed
// from the bit probabilities in O(K³) without enumerating outputs.
func WorstBitLDP(ctx context.Context, c BitChannel, zeros []int) (float64, error) {
	fixed := make([]bool, c.Bits())
	for _, j := range zeros {
		fixed[j] = true
	}
	worst := 0.0
	for x := range c.Inputs() {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		for x2 := range c.Inputs() {
			if x == x2 {
				continue
			}
			sum := 0.0
			for j := range c.Bits() {
				p, q := c.BitProb(x, j), c.BitProb(x2, j)
				r := logRatio(1-p, 1-q)
				if !fixed[j] {
					r = math.Max(r, logRatio(p, q))
				}
				sum += r
			}
			worst = math.Max(worst, sum)
		}
	}
	return worst, nil
}

// logRatio returns ln(p/q), −Inf when p = 0 (an outcome that cannot make
// the ratio worse) and +Inf when only q = 0.
func logRatio(p, q float64) float64 {
	switch {
	case p == 0:
		return math.Inf(-1)
	case q == 0:
		return math.Inf(1)
	}
	return math.Log(p / q)
}

// InvertibleInputs checks the invertibility condition of ULDP Def. 2 on
// the outputs z for which invertible(z) is true: each must be possible
// under exactly one input. It returns the first output that is not, or −1.
func InvertibleInputs(c Channel, invertible func(z int) bool) int {
	for z := range c.Outputs() {
		if !invertible(z) {
			continue
		}
		n := 0
		for x := range c.Inputs() {
			if c.Prob(x, z) > 0 {
				n++
			}
		}
		if n != 1 {
			return z
		}
	}
	return -1
}

// InvertibleBits is InvertibleInputs for bit-vector outputs: the outputs
// with one of the bits in revealing set (uRAP: a non-sensitive bit) are
// invertible and must each be possible under exactly one input. As the
// bits are independent given x, an output with bit j set is possible
// under x only if P(bit j = 1 | x) > 0, so each such bit must be possible
// under one input only. It returns the first bit that is not, or −1.
func InvertibleBits(c BitChannel, revealing []int) int {
	for _, j := range revealing {
		n := 0
		for x := range c.Inputs() {
			if c.BitProb(x, j) > 0 {
				n++
			}
		}
		if n != 1 {
			return j
		}
	}
	return -1
}

// WorstGeoInd returns the smallest ε for which c satisfies
// ε-geo-indistinguishability under the distance dist:
//
//	ε = max_z max_{x≠x'} ln( P(z|x) / P(z|x') ) / d(x, x')
//
// over every output. For a linear alphabet with d = |x−x'| it is ε per
// step; on a grid with distances in km, ε per km.
//
// The K² inverse distances are computed once, so that the O(K³) scan is
// plain arithmetic (24×16 grid: about 60 ms).
func WorstGeoInd(ctx context.Context, c Channel, dist func(x, x2 int) float64) (float64, error) {
	k := c.Inputs()
	inv := make([]float64, k*k)
	for x := range k {
		for x2 := range k {
			if x != x2 {
				inv[x*k+x2] = 1 / dist(x, x2)
			}
		}
	}
	worst := 0.0
	logs := make([]float64, k)
	for z := range c.Outputs() {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		for x := range k {
			logs[x] = math.Log(c.Prob(x, z))
		}
		for x, lx := range logs {
			if math.IsInf(lx, -1) {
				continue
			}
			row := inv[x*k : (x+1)*k]
			for x2, l2 := range logs {
				// Only a larger numerator can raise the maximum; the
				// diagonal has inv 0.
				if lx > l2 {
					if r := (lx - l2) * row[x2]; r > worst {
						worst = r
					}
				}
			}
		}
	}
	return worst, nil
}

// An Audit is what a mechanism instance really guarantees, read off its
// channel rather than its formula (docs/ARCHITECTURE.md §3).
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

// A utilityOptimized mechanism protects only its sensitive symbols X_S:
// uRR and uRAP (ULDP Def. 3–4). Its ε-LDP holds over the protected
// outputs, and each other output must reveal a single input.
type utilityOptimized interface {
	// IsSensitive reports whether symbol x is in X_S.
	IsSensitive(x int) bool
}

// AuditMechanism audits m on alphabet a. It costs O(K³) for symbol
// outputs (the geo-indistinguishability ratios) and O(K³) for bit
// vectors; cancelling ctx stops it with ctx's error.
func AuditMechanism(ctx context.Context, m Mechanism, a Alphabet) (Audit, error) {
	au := Audit{Invertible: -1, GeoInd: math.NaN(), QualityMean: math.NaN(), QualityWorst: math.NaN()}
	if p, ok := m.(Personalized); ok {
		// The common mechanism on the extended alphabet, whose tag symbols
		// have no place on the map: no metric.
		return AuditMechanism(ctx, p.Common(), Alphabet{Kind: KindCategorical, Size: p.Inputs()})
	}
	u, uldp := m.(utilityOptimized)
	switch c := m.(type) {
	case BitChannel:
		var zeros []int
		if uldp {
			au.Protected = true
			for j := range c.Bits() {
				if !u.IsSensitive(j) {
					zeros = append(zeros, j)
				}
			}
			au.Invertible = InvertibleBits(c, zeros)
		}
		var err error
		au.LDP, err = WorstBitLDP(ctx, c, zeros)
		return au, err
	case Channel:
		var keep func(int) bool
		if uldp {
			au.Protected = true
			keep = u.IsSensitive
			au.Invertible = InvertibleInputs(c, func(z int) bool { return !u.IsSensitive(z) })
		}
		au.LDP = WorstLDP(c, keep)
		if _, unit, ok := a.Distance(0, 0); ok {
			dist := func(x, y int) float64 { d, _, _ := a.Distance(x, y); return d }
			var err error
			if au.GeoInd, err = WorstGeoInd(ctx, c, dist); err != nil {
				return au, err
			}
			au.GeoUnit = unit
			au.QualityMean, au.QualityWorst = qualityLoss(c, dist)
		}
	}
	return au, ctx.Err()
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
