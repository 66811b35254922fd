package core

import (
	"context"
	"math/rand/v2"
	"testing"
)

// TestApplicable checks Study.Applicable against Reconstruct on every
// method and on populations of one kind, two kinds and PUM on a 3×2
// grid: where Applicable gives a reason, Reconstruct fails with the same
// words; where it gives none, Reconstruct estimates.
func TestApplicable(t *testing.T) {
	a := Alphabet{Kind: KindGrid, Cols: 3, Rows: 2, CellKm: 1}
	specs := map[string]MechanismSpec{
		"krr":    {ID: "krr", Kind: KindKRR, Epsilon: 2},
		"planar": {ID: "planar", Kind: KindPlanar, Epsilon: 2},
		"rappor": {ID: "rappor", Kind: KindRAPPOR, Epsilon: 2},
		"urr":    {ID: "urr", Kind: KindURR, Epsilon: 2, Sensitive: []int{0, 1}},
		"urap":   {ID: "urap", Kind: KindURAP, Epsilon: 2, Sensitive: []int{0, 1}},
		"pum":    {ID: "pum", Kind: KindPUM, Epsilon: 2, Sensitive: []int{0}, Tags: []string{"home"}},
	}
	pops := [][]string{{"krr"}, {"planar"}, {"rappor"}, {"urr"}, {"urap"}, {"pum"},
		{"krr", "planar"}, {"rappor", "urap"}, {"urr", "urap"}, {"krr", "pum"}, {"krr", "rappor"}}
	const n = 600
	rng := rand.New(rand.NewPCG(7, 8))
	data := make([]int, n)
	home := make([]int, n)
	for i := range data {
		data[i], home[i] = rng.IntN(6), rng.IntN(6)
	}
	refused := 0
	for _, pop := range pops {
		s := &Study{Alphabet: a}
		var mechs []Mechanism
		for _, id := range pop {
			m, err := NewMechanism(specs[id], a)
			if err != nil {
				t.Fatal(err)
			}
			s.Mechanisms, mechs = append(s.Mechanisms, specs[id]), append(mechs, m)
		}
		counts := make([]int, len(mechs))
		for j := range counts {
			counts[j] = n / len(mechs)
		}
		var mech []int
		var reps []Report
		err := SimulateData(context.Background(), rng, mechs, counts, data, map[string][]int{"home": home}, func(_, j int, r Report) error {
			mech, reps = append(mech, j), append(reps, r)
			return nil
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
		g := GroupReports(len(mechs), mech, reps)
		for _, method := range Methods {
			why := s.Applicable(method)
			_, err := Reconstruct(context.Background(), method, s, mechs, g, EstimateOptions{CEM: CEMOptions{Seed: 1}})
			switch {
			case why != nil && (err == nil || err.Error() != why.Error()):
				t.Errorf("%v, %s: Applicable says %q, Reconstruct %v", pop, method, why, err)
			case why == nil && err != nil:
				t.Errorf("%v, %s: Applicable says nothing, Reconstruct fails: %v", pop, method, err)
			}
			if why != nil {
				refused++
			}
		}
	}
	if refused < 20 {
		t.Errorf("only %d refusals: the populations do not exercise the checks", refused)
	}
	if err := (&Study{Alphabet: a, Mechanisms: []MechanismSpec{specs["krr"]}}).Applicable("nope"); err == nil {
		t.Error("an unknown method is applicable")
	}
}
