package core

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Post-processing of the inversion estimators, whose raw estimates may
// leave the simplex (FW §5.1, CEM §3.2).
const (
	// PostProj projects onto the simplex in Euclidean distance (Wang &
	// Carreira-Perpiñán 2013): Kairouz et al.'s projected decoder.
	PostProj = "proj"
	// PostNorm clips negative entries to 0 and renormalises: the
	// normalised decoder.
	PostNorm = "norm"
	// PostNone keeps the raw estimate, which sums to 1 but may have
	// negative entries: what FW Propositions 2 and 3 speak of.
	PostNone = "none"
)

// maxCondition is the largest condition number of A[n] that the
// inversion estimators accept.
const maxCondition = 1e12

// PostProcess returns θ post-processed by post (PostProj, PostNorm or PostNone) as
// a new slice.
func PostProcess(theta []float64, post string) ([]float64, error) {
	out := make([]float64, len(theta))
	switch post {
	case PostProj, "":
		ProjectSimplex(out, theta)
	case PostNorm:
		return ClipNormalize(theta), nil
	case PostNone:
		copy(out, theta)
	default:
		return nil, fmt.Errorf("core: post-processing %q: want proj, norm or none", post)
	}
	return out, nil
}

// ClipNormalize clips negative entries of θ to 0 and renormalises; when
// nothing is positive it returns the uniform distribution.
func ClipNormalize(theta []float64) []float64 {
	out := make([]float64, len(theta))
	s := 0.0
	for i, v := range theta {
		if v > 0 {
			out[i] = v
			s += v
		}
	}
	if s == 0 {
		return fill(out, len(out), 1/float64(len(out)))
	}
	floats.Scale(1/s, out)
	return out
}

// symbolChannels returns the mechanisms of the groups as Channels with a
// common output alphabet, or an error naming the first that is not.
func symbolChannels(mechs []Mechanism, g *Groups, s *Study, method string) ([]Channel, error) {
	cs := make([]Channel, len(mechs))
	outputs := -1
	first := -1
	for j, m := range mechs {
		if g.Users[j] == 0 {
			continue
		}
		c, ok := m.(Channel)
		if !ok {
			return nil, fmt.Errorf("core: %s needs mechanisms with symbol outputs; mechanism %s (%s) reports bit vectors", method, mechName(s, j), kindOf(m))
		}
		if outputs >= 0 && c.Outputs() != outputs {
			return nil, fmt.Errorf("core: %s needs a common output alphabet: mechanism %s has %d outputs, %s has %d",
				method, mechName(s, first), outputs, mechName(s, j), c.Outputs())
		}
		if outputs < 0 {
			outputs, first = c.Outputs(), j
		}
		cs[j] = c
	}
	if first < 0 {
		return nil, errors.New("core: no reports")
	}
	return cs, nil
}

// kindOf names a mechanism's kind for errors.
func kindOf(m Mechanism) string {
	switch m.(type) {
	case *RAPPOR:
		return KindRAPPOR
	case *URAP:
		return KindURAP
	case *PUM:
		return KindPUM
	}
	return fmt.Sprintf("%T", m)
}

// compound returns A[n] = Σ_A (n^A/n) A and q[n], the frequencies of the
// outputs over all users (FW eq. 6–7), for mechanisms with a common
// output alphabet.
func compound(cs []Channel, g *Groups) (*mat.Dense, []float64) {
	var a *mat.Dense
	var q []float64
	n := float64(g.N())
	for j, c := range cs {
		if c == nil {
			continue
		}
		m := Matrix(c)
		if a == nil {
			a = mat.NewDense(c.Inputs(), c.Outputs(), nil)
			q = make([]float64, c.Outputs())
		}
		a.Apply(func(x, z int, v float64) float64 { return v + float64(g.Users[j])/n*m.At(x, z) }, a)
	}
	for _, gr := range g.List {
		q[gr.Report.Symbol] += float64(gr.Count) / n
	}
	return a, q
}

// invert solves θ A = q for a square, well-conditioned A.
func invert(a *mat.Dense, q []float64) ([]float64, error) {
	k, z := a.Dims()
	if k != z {
		return nil, fmt.Errorf("core: the channel has %d inputs and %d outputs; matrix inversion needs as many of each", k, z)
	}
	var lu mat.LU
	lu.Factorize(a)
	if c := lu.Cond(); c > maxCondition || math.IsInf(c, 0) || math.IsNaN(c) {
		return nil, fmt.Errorf("core: the channel matrix is singular or ill-conditioned (condition number %.3g > %.0g); use GIBU or IBU", c, maxCondition)
	}
	var theta mat.VecDense
	if err := lu.SolveVecTo(&theta, true, mat.NewVecDense(k, q)); err != nil {
		return nil, fmt.Errorf("core: matrix inversion: %w", err)
	}
	return theta.RawVector().Data, nil
}

// InvM is [INV]_M (FW eq. 7): θ̂ = q[n] A[n]⁻¹, post-processed. With one
// mechanism it is INV, the empirical estimator.
func InvM(mechs []Mechanism, g *Groups, s *Study, post string) ([]float64, error) {
	cs, err := symbolChannels(mechs, g, s, "inv-m")
	if err != nil {
		return nil, err
	}
	a, q := compound(cs, g)
	raw, err := invert(a, q)
	if err != nil {
		return nil, err
	}
	return PostProcess(raw, post)
}

// RapM is [RAP]_M (FW eq. 13–14) for users of RAPPOR at various ε: with
// 1/(1+e^{ε[n]/2}) = (1/n) Σ_i 1/(1+e^{ε_i/2}) and s[n] the mean report,
//
//	θ̂ = ((e^{ε[n]/2}+1) s[n] − 1) / (e^{ε[n]/2} − 1),
//
// post-processed. With one ε it is RAP.
func RapM(mechs []Mechanism, g *Groups, s *Study, post string) ([]float64, error) {
	n := float64(g.N())
	flip := 0.0 // (1/n) Σ 1/(1+e^{ε_i/2})
	k := -1
	for j, m := range mechs {
		if g.Users[j] == 0 {
			continue
		}
		r, ok := m.(*RAPPOR)
		if !ok {
			return nil, fmt.Errorf("core: rap needs RAPPOR users; mechanism %s is %s", mechName(s, j), kindOf(m))
		}
		k = r.K
		flip += float64(g.Users[j]) / n / (1 + math.Exp(r.Epsilon/2))
	}
	if k < 0 {
		return nil, errors.New("core: no reports")
	}
	mean := make([]float64, k)
	for _, gr := range g.List {
		for x := range k {
			mean[x] += float64(gr.Count*gr.Report.Bits.Bit(x)) / n
		}
	}
	// e^{ε[n]/2} = 1/flip − 1.
	e := 1/flip - 1
	raw := make([]float64, k)
	for x := range raw {
		raw[x] = ((e+1)*mean[x] - 1) / (e - 1)
	}
	return PostProcess(raw, post)
}

// IbuM is [IBU]_M (FW §5.3): IBU on the compound channel A[n] and the
// pooled output frequencies q[n]. It is not the MLE unless all users
// share one mechanism.
func IbuM(ctx context.Context, mechs []Mechanism, g *Groups, s *Study, opt EMOptions) (*Estimate, error) {
	cs, err := symbolChannels(mechs, g, s, "ibu-m")
	if err != nil {
		return nil, err
	}
	a, q := compound(cs, g)
	k, _ := a.Dims()
	n := float64(g.N())
	c := &columns{k: k, n: 0}
	for z, f := range q {
		if f == 0 {
			continue
		}
		col := mat.Col(nil, z, a)
		c.col = append(c.col, col)
		c.scale = append(c.scale, 0)
		c.count = append(c.count, f*n)
		c.n += f * n
	}
	return runEM(ctx, c, opt)
}

// PerMechanism is FW eq. (4)–(5), [e]_R: it runs the estimator e on the
// reports of each mechanism's users alone and averages the estimates
// weighted by n^A/n.
func PerMechanism(g *Groups, e func(sub *Groups) ([]float64, error)) ([]float64, error) {
	var out []float64
	n := float64(g.N())
	for j, nj := range g.Users {
		if nj == 0 {
			continue
		}
		sub := newGroups(len(g.Users))
		sub.Users[j] = nj
		for _, gr := range g.List {
			if gr.Mech == j {
				sub.List = append(sub.List, gr)
			}
		}
		theta, err := e(sub)
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = make([]float64, len(theta))
		}
		floats.AddScaled(out, float64(nj)/n, theta)
	}
	return out, nil
}
