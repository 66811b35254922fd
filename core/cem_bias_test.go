package core

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
)

// TestBiasCorrectionStructured holds the bias correction by structure
// (cem_bias.go) to the dense evaluation over report groups (denseBias)
// at the MLE: on a 32×32 grid (1,024 cells) with FW Table 7's mixture of
// five planar geometric and five k-RR mechanisms, the planar users
// both as operators (budget 0) and as likelihood columns; and on mixtures
// with RAPPOR, uRR, the linear geometric and the identity, whose columns
// and two-valued shares meet in one Ŝ. Equal to 1e−10 of the largest
// entry, exact ∇²s and as printed.
func TestBiasCorrectionStructured(t *testing.T) {
	const side = 32
	k := side * side
	fw := fwTable7Mechanisms(t, side, side)
	rappor, _ := NewRAPPOR(k, 2)
	urr, _ := NewURR(k, 1.5, []int{1, 5, 9, 100, 500})
	geo, _ := NewGeometric(k, 0.2)
	id, _ := NewIdentity(k)
	krr, _ := NewKRR(k, 2.5)
	cases := []struct {
		name   string
		mechs  []Mechanism
		users  int
		budget int
	}{
		{"FW Table 7, operators", fw, 4000, 0},
		{"FW Table 7, columns", fw, 4000, ColumnBudget},
		{"RAPPOR, uRR, geometric, identity, k-RR", []Mechanism{rappor, urr, geo, id, krr}, 1500, 0},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(11, uint64(i)))
			truth := randomDist(rng, k, 0.5)
			users := make([]int, len(tc.mechs))
			for j := range users {
				users[j] = tc.users / len(users)
			}
			g, err := SimulateGroups(context.Background(), rng, tc.mechs, users, truth)
			if err != nil {
				t.Fatal(err)
			}
			est, err := GIBU(context.Background(), tc.mechs, g, nil, EMOptions{})
			if err != nil {
				t.Fatal(err)
			}
			c, err := newColumns(tc.mechs, g, nil)
			if err != nil {
				t.Fatal(err)
			}
			cm, err := newCEMModel(tc.mechs, g, nil, tc.budget)
			if err != nil {
				t.Fatal(err)
			}
			for _, printed := range []bool{false, true} {
				want, err := denseBias(c, est.Theta, 0, printed)
				if err != nil {
					t.Fatal(err)
				}
				got, err := cm.biasCorrection(context.Background(), est.Theta, 0, printed, nil, nil)
				if err != nil {
					t.Fatal(err)
				}
				scale := floats.Norm(want, math.Inf(1))
				d := floats.Distance(got, want, math.Inf(1)) / scale
				t.Logf("printed %v: %d groups, %d shares, max |â₋₁| %.3g, relative difference %.2g", printed, len(g.List), len(cm.shares), scale, d)
				if !(d <= 1e-10) {
					t.Errorf("printed %v: structured â₋₁ differs from the dense one by %.3g of its largest entry", printed, d)
				}
			}
		})
	}
}

// TestBiasCorrectionCancel checks that a cancelled bias correction ends
// with the context's error, from every stage.
func TestBiasCorrectionCancel(t *testing.T) {
	m, _ := NewPlanarGeometric(12, 12, 0.5, 1)
	r, _ := NewKRR(144, 2)
	mechs := []Mechanism{m, r}
	rng := rand.New(rand.NewPCG(1, 2))
	g, err := SimulateGroups(context.Background(), rng, mechs, []int{300, 300}, randomDist(rng, 144, 0))
	if err != nil {
		t.Fatal(err)
	}
	cm, err := newCEMModel(mechs, g, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	p := make([]float64, 144)
	for i := range p {
		p[i] = 1.0 / 144
	}
	seen := map[string]bool{}
	for _, stop := range []string{"Forming", "Inverting", "Quadratic"} {
		t.Run(stop, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			_, err := cm.biasCorrection(ctx, p, 0, false, func(stage string, _ float64) {
				seen[stage] = true
				if len(stage) >= len(stop) && stage[:len(stop)] == stop {
					cancel()
				}
			}, nil)
			if !errors.Is(err, context.Canceled) {
				t.Errorf("cancelled at %q: %v", stop, err)
			}
		})
	}
	if len(seen) < 3 {
		t.Errorf("stages seen: %v", fmt.Sprint(seen))
	}
}
