package core

import (
	"errors"
)

// A bitFlipper reports a one-hot vector with each bit flipped with the
// same probability: basic one-time RAPPOR (FW eq. 12), the mechanism of
// RAP's estimator.
type bitFlipper interface {
	BitSampler
	// flipProb returns the probability 1/(1+e^{ε/2}) of flipping a bit.
	flipProb() float64
}

// RAPM is [RAP]_M (FW eq. 13–14) for users of RAPPOR at various ε: with
// 1/(1+e^{ε[n]/2}) = (1/n) Σ_i 1/(1+e^{ε_i/2}) and s[n] the mean report,
//
//	θ̂ = ((e^{ε[n]/2}+1) s[n] − 1) / (e^{ε[n]/2} − 1),
//
// post-processed. With one ε it is RAP.
func RAPM(mechs []Mechanism, g *Groups, s *Study, post Post) ([]float64, error) {
	n := float64(g.N())
	flip := 0.0 // (1/n) Σ 1/(1+e^{ε_i/2})
	k := -1
	for j, m := range mechs {
		if g.Users[j] == 0 {
			continue
		}
		r, ok := m.(bitFlipper)
		if !ok {
			return nil, rapNeedsRAPPOR(s, j)
		}
		k = r.Bits()
		flip += float64(g.Users[j]) / n * r.flipProb()
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
