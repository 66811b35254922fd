package core

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// IntervalMethod names how intervals are computed, as privmap estimate's
// -ci-method does.
type IntervalMethod string

// The interval methods.
const (
	// IntervalBootstrap: a parametric bootstrap (Bootstrap), for every
	// estimator.
	IntervalBootstrap IntervalMethod = "bootstrap"
	// IntervalFisher: the observed information of the MLE on its free
	// face (Fisher), for GIBU's estimates in the interior of the simplex.
	IntervalFisher IntervalMethod = "fisher"
)

// DefaultLevel is the level of intervals unless said otherwise.
const DefaultLevel = 0.95

// Intervals are an estimate's per-symbol intervals and simultaneous band
// at a level.
type Intervals struct {
	// Level is the probability each interval, and the band as a whole,
	// is meant to cover the truth with.
	Level float64
	// Method made them; Replicates is the bootstrap's B (0 for Fisher).
	Method     IntervalMethod
	Replicates int
	// Lo and Hi bound each symbol's probability alone.
	Lo, Hi []float64
	// BandLo and BandHi bound every symbol's probability at once.
	BandLo, BandHi []float64
	// SE is each symbol's standard error, Critical the band's multiple of
	// it (the Level-quantile of the largest studentised deviation).
	SE       []float64
	Critical float64
	// TV and MaxError bound, at Level, the estimate's total variation
	// and largest error of one symbol against the unknown truth (from
	// the replicates' distances to the estimate); NaN for Fisher.
	TV, MaxError float64
	// ZeroEnds is the number of symbols the MLE puts at 0 whose upper
	// ends, interval and band, were raised to their profile's linear
	// bound (ZeroEnds).
	ZeroEnds int
}

// HalfWidths returns each symbol's interval half-width, (Hi − Lo)/2, or
// with band its band's, (BandHi − BandLo)/2: the uncertainty maps'
// values.
func (iv *Intervals) HalfWidths(band bool) []float64 {
	lo, hi := iv.Lo, iv.Hi
	if band {
		lo, hi = iv.BandLo, iv.BandHi
	}
	h := make([]float64, len(lo))
	for x := range h {
		h[x] = (hi[x] - lo[x]) / 2
	}
	return h
}

// checkLevel checks an interval level.
func checkLevel(level float64) error {
	if !(level > 0 && level < 1) {
		return fmt.Errorf("core: interval level %v: want a probability strictly between 0 and 1, such as 0.95", level)
	}
	return nil
}

// BootstrapIntervals returns the intervals of the estimate θ̂ from its
// bootstrap replicates θ*_1 … θ*_B (Bootstrap) at level L.
//
// Each symbol's interval is the percentile interval (Efron and
// Tibshirani 1993, §13.3), the replicates' quantiles
//
//	[Q_x((1−L)/2), Q_x((1+L)/2)],
//
// which respects the simplex: a symbol whose replicates sit at 0 gets an
// interval from 0, as the truth near the boundary needs (the basic
// interval 2θ̂ − Q, reflected about θ̂, covered 54% of the cells of FW's
// planar set-up, most of its misses cells that θ̂ puts at 0; the
// percentile interval 97%: docs/EXPERIMENTS.md, coverage). It need not
// contain θ̂ itself. The band is studentised by each symbol's bootstrap
// standard error s_x:
//
//	θ̂_x ± c·s_x,   c = the L-quantile of max_x |θ*_b,x − θ̂_x| / s_x,
//
// the maximum over the symbols whose replicates vary (Davison and
// Hinkley 1997, §4.2.5; a symbol none of whose replicates moves from θ̂
// has the band [θ̂_x, θ̂_x]), but c no smaller than Šidák's normal
// quantile for those symbols (sidak), clipped to [0, 1]. TV and MaxError are the
// L-quantiles of ½‖θ*_b − θ̂‖₁ and ‖θ*_b − θ̂‖∞.
func BootstrapIntervals(theta []float64, reps [][]float64, level float64) (*Intervals, error) {
	if err := checkLevel(level); err != nil {
		return nil, err
	}
	b, k := len(reps), len(theta)
	if b < 2 {
		return nil, fmt.Errorf("core: %d bootstrap replicates: want at least 2", b)
	}
	iv := &Intervals{Level: level, Method: IntervalBootstrap, Replicates: b,
		Lo: make([]float64, k), Hi: make([]float64, k), BandLo: make([]float64, k), BandHi: make([]float64, k), SE: make([]float64, k)}
	col := make([]float64, 0, b)
	lo, hi := (1-level)/2, (1+level)/2
	for _, r := range reps {
		if len(r) != k {
			panic("core: slice length mismatch")
		}
	}
	for x := range theta {
		col = sortedAt(col, reps, x)
		iv.Lo[x], iv.Hi[x] = Quantile(col, lo), Quantile(col, hi)
		iv.SE[x] = spread(col)
	}
	maxDev := make([]float64, b)
	tv := make([]float64, b)
	linf := make([]float64, b)
	for i, r := range reps {
		for x, t := range theta {
			d := math.Abs(r[x] - t)
			tv[i] += d / 2
			linf[i] = math.Max(linf[i], d)
			if iv.SE[x] > 0 {
				maxDev[i] = math.Max(maxDev[i], d/iv.SE[x])
			}
		}
	}
	slices.Sort(maxDev)
	slices.Sort(tv)
	slices.Sort(linf)
	// No smaller than Šidák's normal quantile for the symbols that vary:
	// the quantile of B maxima is itself noisy, and low where θ̂'s
	// standard errors understate the truth's (a cell θ̂ puts near 0).
	varying := 0
	for _, s := range iv.SE {
		if s > 0 {
			varying++
		}
	}
	iv.Critical = math.Max(Quantile(maxDev, level), sidak(level, varying))
	iv.TV, iv.MaxError = Quantile(tv, level), Quantile(linf, level)
	for x, t := range theta {
		iv.BandLo[x] = clamp01(t - iv.Critical*iv.SE[x])
		iv.BandHi[x] = clamp01(t + iv.Critical*iv.SE[x])
	}
	return iv, nil
}

// sidak returns z with P(max of k independent |N(0,1)| ≤ z) = level,
// z = Φ⁻¹((1 + level^{1/k})/2); by Šidák's inequality (1967), ±z
// standard errors cover k jointly normal estimates with any correlation
// with probability at least level. 0 for k = 0.
func sidak(level float64, k int) float64 {
	if k == 0 {
		return 0
	}
	return distuv.UnitNormal.Quantile((1 + math.Pow(level, 1/float64(k))) / 2)
}

// spread returns the standard deviation of values (divisor n − 1).
func spread(v []float64) float64 {
	mean := 0.0
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	ss := 0.0
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	return math.Sqrt(ss / float64(len(v)-1))
}

func clamp01(v float64) float64 { return math.Min(math.Max(v, 0), 1) }

// ZeroEnds raises the upper ends of the bootstrap's intervals of the MLE
// θ̂ (GIBU's, its gap certified) at the symbols θ̂ puts at 0 to bounds
// that hold those of the profile likelihood (Profile): a bootstrap's
// replicates, drawn from θ̂, leave such a symbol at 0 — the one-person
// cells of a city — where its profile interval reaches up to the values
// the reports cannot tell from 0. By concavity, for any θ with θ_x = t,
//
//	L(θ) ≤ L(θ̂) + ∇L(θ̂)·(θ − θ̂) ≤ L(θ̂) + g − t·(1 + g − G_x),
//
// with G = ∇L(θ̂), Σ_y θ̂_y G_y = 1 and g = max_y G_y − 1 the certified
// gap; so every t above (drop + g)/(1 + g − G_x) loses more than the
// drop z²/2n and lies outside the profile interval: z at the level for
// each interval, at Šidák's level for the band (as Profile's). Ends
// already above the bound are kept; the bound costs one gradient. It
// returns iv with ZeroEnds set, or as it is (ZeroEnds 0) when θ̂'s gap
// is above Profile's (an estimate stopped short of its certificate is
// not the MLE the bound needs).
func ZeroEnds(mechs []Mechanism, g *Groups, s *Study, theta []float64, iv *Intervals) (*Intervals, error) {
	m, err := newCurvedModel(mechs, g, s, IntervalBootstrap)
	if err != nil {
		return nil, err
	}
	k := len(theta)
	grad := make([]float64, k)
	_, gap := m.gradient(theta, grad)
	iv.ZeroEnds = 0
	if !(gap <= profileGap) {
		return iv, nil
	}
	gap = math.Max(gap, 0)
	_, _, cell, band := profileDrops(iv.Level, k, float64(g.N()))
	for x, t := range theta {
		if t > bindingTol {
			continue
		}
		iv.Hi[x] = math.Max(iv.Hi[x], zeroEnd(cell, gap, grad[x]))
		iv.BandHi[x] = math.Max(iv.BandHi[x], zeroEnd(band, gap, grad[x]))
		iv.ZeroEnds++
	}
	return iv, nil
}

// zeroEnd returns ZeroEnds' bound on the profile set of drop at a
// symbol θ̂ puts at 0 whose gradient is gx, θ̂'s certified gap gap:
// min(1, (drop + gap)/(1 + gap − gx)).
func zeroEnd(drop, gap, gx float64) float64 {
	return math.Min(1, (drop+gap)/(1+gap-gx))
}
