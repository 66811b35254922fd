package core

import (
	"gonum.org/v1/gonum/floats"

	"github.com/privmap/privmap/internal/linalg"
)

// PerMechanism is FW eq. (4)–(5), [e]_R: it runs the estimator e on the
// reports of each mechanism's users alone and averages the estimates
// weighted by n^A/n. The mechanisms' estimates are independent, so they
// run on every core; e must be safe for concurrent use. They are averaged
// in the mechanisms' order, and the first mechanism's error is returned,
// so the result does not depend on the schedule.
func PerMechanism(g *Groups, e func(sub *Groups) ([]float64, error)) ([]float64, error) {
	var subs []*Groups
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
		subs = append(subs, sub)
	}
	thetas := make([][]float64, len(subs))
	errs := make([]error, len(subs))
	linalg.Each(len(subs), func(i int) { thetas[i], errs[i] = e(subs[i]) })
	var out []float64
	n := float64(g.N())
	for i, sub := range subs {
		if errs[i] != nil {
			return nil, errs[i]
		}
		if out == nil {
			out = make([]float64, len(thetas[i]))
		}
		floats.AddScaled(out, float64(sub.N())/n, thetas[i])
	}
	return out, nil
}
