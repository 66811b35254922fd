package core

import (
	"errors"
)

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

// The names of RAPPOR's estimator (FW eq. 13–14) for the users of one
// RAPPOR, of [RAP]_M for RAPPOR at mixed ε and of [RAP]_R, per
// mechanism averaged (FW eq. 4).
const (
	MethodRAP  Method = "rap"
	MethodRAPM Method = "rap-m"
	MethodRAPR Method = "rap-r"
)

// The RAPPOR estimators, registered in registry.
var (
	rapEstimator = Estimator{Method: MethodRAP, Single: true, Needs: CapRAPPOR, Refuses: CapPersonal, Cost: CostInversion,
		run: func(e *estimation) (*Estimate, error) { return closed(e.rap(e.g)) }}
	rapMEstimator = Estimator{Method: MethodRAPM, Title: "[RAP]_M", Help: "RAPPOR's estimator, mixed ε (FW eq. 13–14)",
		Needs: CapRAPPOR, Refuses: CapPersonal, Cost: CostInversion,
		run: func(e *estimation) (*Estimate, error) { return closed(e.rap(e.g)) }}
	rapREstimator = Estimator{Method: MethodRAPR, Title: "[RAP]_R", Help: "RAPPOR's estimator per mechanism, averaged",
		PerMechanism: true, Needs: CapRAPPOR, Refuses: CapPersonal, Cost: CostInversionEach,
		run: func(e *estimation) (*Estimate, error) { return closed(PerMechanism(e.g, e.rap)) }}
)

func (e *estimation) rap(g *Groups) ([]float64, error) { return RAPM(e.mechs, g, e.s, e.opt.Post) }
