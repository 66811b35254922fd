package core

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/stat/distuv"
)

// ULDPOptions tune ULDPEstimate.
type ULDPOptions struct {
	// Significance, when positive, keeps only the estimates above the
	// significance threshold of ULDP §2.5 at this level (e.g. 0.05),
	// Bonferroni-corrected over the symbols, and zeroes the others.
	Significance float64
	// Background gives, per PUM tag, the distribution π_k over the data's
	// symbols that the tag's mass is returned to. A tag without one uses
	// the distribution of its personal cells in the study (Study.Personal)
	// when the study has them, else the uniform distribution.
	Background map[string][]float64
}

// ULDPEstimate is the empirical estimator of uRR, uRAP and PUM (ULDP §2.5,
// §4–§5, restated in package core's doc, "Mechanisms"). From the frequency f of each
// output symbol (uRR) or bit (uRAP), with D = |X_S| + e^ε − 1 and θ =
// e^{ε/2}/(e^{ε/2}+1):
//
//	uRR:  p̂(x) = (f(x)·D − 1)/(e^ε − 1)  on X_S,  f(x)·D/(e^ε − 1)  on X_N
//	uRAP: p̂(x) = (f_x − (1−θ))/(2θ − 1)   on X_S,  f_x/(1 − e^{−ε/2}) on X_N
//
// optionally thresholded, then clipped and renormalised. A PUM's estimate
// r̂ is over the extended alphabet; each tag's mass goes back to the data's
// symbols by its background distribution π_k:
// p̂(x) = r̂(x) + Σ_k r̂(⊥_k) π_k(x). Users of several ULDP mechanisms are
// estimated per mechanism and averaged by n^A/n, as FW eq. (5).
func ULDPEstimate(mechs []Mechanism, g *Groups, s *Study, opt ULDPOptions) ([]float64, error) {
	return PerMechanism(g, func(sub *Groups) ([]float64, error) {
		j := sub.List[0].Mech
		p, personal := mechs[j].(Personalized)
		u, ok := reporter(mechs[j]).(empirical)
		if !ok {
			return nil, uldpNeedsULDP(s, j)
		}
		f, scale, offset := u.empirical(sub)
		r := ClipNormalize(uldpRaw(f, scale, offset, float64(sub.N()), opt.Significance))
		if !personal {
			return r, nil
		}
		k := p.DataSymbols()
		out := r[:k:k]
		for t, tag := range p.TagNames() {
			bg, err := background(k, tag, s, opt.Background[tag])
			if err != nil {
				return nil, err
			}
			floats.AddScaled(out, r[k+t], bg)
		}
		return out, nil
	})
}

// uldpRaw returns the unconstrained empirical estimate f·scale − offset
// from the frequencies f of n reports, with the significance threshold
// of ULDP §2.5 at level significance when positive.
func uldpRaw(f, scale, offset []float64, n, significance float64) []float64 {
	raw := make([]float64, len(f))
	for x := range raw {
		raw[x] = f[x]*scale[x] - offset[x]
	}
	if significance > 0 {
		// Keep p̂(x) only above z_{1−α/K}·sd(p̂(x)), sd from the binomial
		// variance of f(x) (Wang et al. 2017, as ULDP §2.5 uses it).
		z := distuv.UnitNormal.Quantile(1 - significance/float64(len(raw)))
		for x := range raw {
			if raw[x] < z*scale[x]*math.Sqrt(f[x]*(1-f[x])/n) {
				raw[x] = 0
			}
		}
	}
	return raw
}

// background returns π of a PUM tag over k symbols: given, from the study's personal
// cells, or uniform.
func background(k int, tag string, s *Study, given []float64) ([]float64, error) {
	if given != nil {
		if len(given) != k {
			return nil, fmt.Errorf("core: background of tag %q has %d entries for %d symbols", tag, len(given), k)
		}
		sum := floats.Sum(given)
		if !(sum > 0) || floats.Min(given) < 0 {
			return nil, fmt.Errorf("core: background of tag %q is not a distribution", tag)
		}
		out := append([]float64(nil), given...)
		floats.Scale(1/sum, out)
		return out, nil
	}
	out := make([]float64, k)
	n := 0
	if s != nil {
		for _, x := range s.Personal[tag] {
			if x >= 0 {
				out[x]++
				n++
			}
		}
	}
	if n == 0 {
		return fill(out, k, 1/float64(k)), nil
	}
	floats.Scale(1/float64(n), out)
	return out, nil
}

// MethodULDP names the empirical estimator of utility-optimized
// mechanisms (ULDP §2.5, §4).
const MethodULDP Method = "uldp"

// uldpEstimator is the empirical ULDP estimator, registered in registry.
var uldpEstimator = Estimator{Method: MethodULDP, Title: "ULDP empirical", Help: "empirical uRR/uRAP/PUM estimator (ULDP)",
	Needs: CapUtility, Cost: CostPass,
	run: func(e *estimation) (*Estimate, error) { return closed(ULDPEstimate(e.mechs, e.g, e.s, e.opt.ULDP)) }}
