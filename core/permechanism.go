package core

import "gonum.org/v1/gonum/floats"

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
