package core

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// MaxFisherSymbols bounds the alphabet of Fisher intervals: the K×K
// information matrix is formed and factorised densely (K³/3
// multiply-adds, 7 s at 4,096 symbols).
const MaxFisherSymbols = 4096

// Fisher returns Wald intervals for GIBU's estimate θ̂ from the observed
// information of the n reports, J = −n∇²L(θ̂) (CEM eq. 14's likelihood;
// Casella and Berger 2002, §10.1.3). On the simplex the estimate moves
// only along Σ_x v_x = 0, where its covariance is
//
//	C = J⁻¹ − (J⁻¹1)(J⁻¹1)ᵀ / (1ᵀJ⁻¹1),
//
// the inverse of J restricted to that plane. Each symbol's interval is
// θ̂_x ± z·√C_xx, z = Φ⁻¹((1+L)/2); the band takes z at the level
// L^{1/K} in place of L, which covers all K at once with probability at
// least L for any correlation of a normal vector (Šidák 1967). Both
// are clipped to [0, 1].
//
// The normal approximation holds for an MLE inside the simplex: Fisher
// refuses an estimate with a symbol at 0 (the boundary, where the
// bootstrap is needed), a singular information (reports that cannot tell
// some symbols apart), and alphabets beyond MaxFisherSymbols.
func Fisher(ctx context.Context, mechs []Mechanism, g *Groups, s *Study, theta []float64, level float64) (*Intervals, error) {
	if err := checkLevel(level); err != nil {
		return nil, err
	}
	k := len(theta)
	if k > MaxFisherSymbols {
		return nil, fmt.Errorf("core: fisher intervals form the %d×%d information matrix, beyond the %d symbols they take: use the bootstrap", k, k, MaxFisherSymbols)
	}
	if j := personalizedUsed(mechs, g.Users); j >= 0 {
		return nil, pumNeedsULDP(s, j)
	}
	zeros := 0
	for _, v := range theta {
		if v <= bindingTol {
			zeros++
		}
	}
	if zeros > 0 {
		return nil, fmt.Errorf("core: fisher intervals need an estimate inside the simplex, and %d of its %d symbols are 0: "+
			"the normal approximation fails at the boundary; use the bootstrap", zeros, k)
	}
	cm, err := newCurvedModel(mechs, g, s, IntervalFisher)
	if err != nil {
		return nil, err
	}
	h, err := information(ctx, cm, theta)
	if err != nil {
		return nil, err
	}
	h.ScaleSym(float64(g.N()), h)
	var ch mat.Cholesky
	if !ch.Factorize(h) {
		return nil, fmt.Errorf("core: fisher intervals: the information matrix is singular (the reports cannot tell some symbols apart); use the bootstrap")
	}
	var inv mat.SymDense
	if err := ch.InverseTo(&inv); err != nil {
		return nil, fmt.Errorf("core: fisher intervals: the information matrix is singular to working precision (%v); use the bootstrap", err)
	}
	u := make([]float64, k) // J⁻¹1
	total := 0.0
	for x := range k {
		for y := range k {
			u[x] += inv.At(x, y)
		}
		total += u[x]
	}
	iv := &Intervals{Level: level, Method: IntervalFisher, Lo: make([]float64, k), Hi: make([]float64, k),
		BandLo: make([]float64, k), BandHi: make([]float64, k), SE: make([]float64, k), TV: math.NaN(), MaxError: math.NaN()}
	std := distuv.UnitNormal
	z := std.Quantile((1 + level) / 2)
	iv.Critical = sidak(level, k)
	for x, t := range theta {
		iv.SE[x] = math.Sqrt(math.Max(inv.At(x, x)-u[x]*u[x]/total, 0))
		iv.Lo[x], iv.Hi[x] = clamp01(t-z*iv.SE[x]), clamp01(t+z*iv.SE[x])
		iv.BandLo[x], iv.BandHi[x] = clamp01(t-iv.Critical*iv.SE[x]), clamp01(t+iv.Critical*iv.SE[x])
	}
	return iv, nil
}

// information returns −∇²L(θ) on every symbol: formed densely from the
// reports' likelihoods when that is faceable, else one Hessian product
// a symbol.
func information(ctx context.Context, m curvedModel, theta []float64) (*mat.SymDense, error) {
	k := len(theta)
	all := make([]int, k)
	for x := range all {
		all[x] = x
	}
	var fh faceHessian
	if built, err := fh.build(ctx, m, theta, all); err != nil || built {
		return fh.h, err
	}
	if err := CheckMemory(fmt.Sprintf("the %d×%d information matrix", k, k), 16*float64(k)*float64(k)); err != nil {
		return nil, err
	}
	m.at(theta)
	h := mat.NewSymDense(k, nil)
	e, col := make([]float64, k), make([]float64, k)
	for x := range k {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		e[x] = 1
		m.hessVec(e, col)
		e[x] = 0
		for y := x; y < k; y++ {
			h.SetSym(x, y, col[y])
		}
	}
	return h, nil
}
