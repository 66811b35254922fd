package core

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestApplicable checks Study.Applicable against Reconstruct on every
// method and on populations of every registered kind alone, of every two
// kinds in the registry's order, and of a few chosen pairs, on a 3×2
// grid and on a line of 6 symbols (each kind where its record allows):
// where Applicable gives a reason, Reconstruct fails with the same
// words; where it gives none, Reconstruct estimates. The kinds come from
// the registry, so a new kind is checked without a line here.
func TestApplicable(t *testing.T) {
	refused := 0
	for _, a := range []Alphabet{{Kind: KindGrid, Cols: 3, Rows: 2, CellKm: 1}, {Kind: KindLinear, Size: 6}} {
		var fit []MechanismSpec
		for _, kind := range Kinds() {
			if kind.Alphabets == nil || slices.Contains(kind.Alphabets, a.Kind) {
				spec, _ := exampleSpec(kind)
				fit = append(fit, spec)
			}
		}
		var pops [][]MechanismSpec
		for i, spec := range fit {
			pops = append(pops, []MechanismSpec{spec})
			if i > 0 {
				pops = append(pops, []MechanismSpec{fit[i-1], spec})
			}
		}
		byKind := func(k MechanismKind) MechanismSpec {
			return fit[slices.IndexFunc(fit, func(s MechanismSpec) bool { return s.Kind == k })]
		}
		pops = append(pops, []MechanismSpec{byKind(KindKRR), byKind(KindPUM)}, []MechanismSpec{byKind(KindKRR), byKind(KindRAPPOR)},
			[]MechanismSpec{byKind(KindURR), byKind(KindURAP)})
		refused += checkApplicable(t, a, pops)
	}
	if refused < 40 {
		t.Errorf("only %d refusals: the populations do not exercise the checks", refused)
	}
	a := Alphabet{Kind: KindGrid, Cols: 3, Rows: 2, CellKm: 1}
	if err := (&Study{Alphabet: a, Mechanisms: []MechanismSpec{{ID: "krr", Kind: KindKRR, Epsilon: 2}}}).Applicable("nope"); err == nil {
		t.Error("an unknown method is applicable")
	}
}

// checkApplicable compares Applicable with Reconstruct on each
// population of alphabet a and returns the refusals.
func checkApplicable(t *testing.T, a Alphabet, pops [][]MechanismSpec) int {
	t.Helper()
	const n = 600
	rng := rand.New(rand.NewPCG(7, 8))
	data := make([]int, n)
	home := make([]int, n)
	for i := range data {
		data[i], home[i] = rng.IntN(a.Len()), rng.IntN(a.Len())
	}
	refused := 0
	for _, pop := range pops {
		s := &Study{Alphabet: a}
		var mechs []Mechanism
		for i, spec := range pop {
			spec.ID = fmt.Sprintf("%s-%d", spec.ID, i)
			m, err := NewMechanism(spec, a)
			if err != nil {
				t.Fatal(err)
			}
			s.Mechanisms, mechs = append(s.Mechanisms, spec), append(mechs, m)
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
	return refused
}
