package core

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
)

func TestAssign(t *testing.T) {
	tests := []struct {
		shares []float64
		n      int
		want   []int
	}{
		{[]float64{0.5, 0.3, 0.2}, 10, []int{5, 3, 2}},
		{[]float64{1.0 / 3, 1.0 / 3, 1.0 / 3}, 10, []int{4, 3, 3}},
		{[]float64{0.25, 0.25, 0.25, 0.25}, 2, []int{1, 1, 0, 0}},
		{[]float64{0.15, 0.85}, 7, []int{1, 6}},
		{[]float64{1}, 0, []int{0}},
	}
	for _, tc := range tests {
		got := Assign(tc.shares, tc.n)
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("Assign(%v, %d) = %v, want %v", tc.shares, tc.n, got, tc.want)
				break
			}
		}
	}
}

// TestSimulate checks that data follow the truth (never a cell of
// probability 0) and that the mechanisms get their users in order.
func TestSimulate(t *testing.T) {
	truth := []float64{0, 0.5, 0, 0.3, 0.2, 0}
	id, _ := NewIdentity(6)
	k, _ := NewKRR(6, 2)
	counts := []int{150000, 10}
	seen := make([]int, 6)
	byMech := []int{0, 0}
	err := Simulate(context.Background(), rand.New(rand.NewPCG(5, 5)), []Mechanism{id, k}, counts, truth,
		func(user, j int, r Report) error {
			if j == 0 {
				seen[r.Symbol]++
				if user >= counts[0] {
					t.Fatalf("user %d used mechanism 0", user)
				}
			}
			byMech[j]++
			return nil
		}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if byMech[0] != counts[0] || byMech[1] != counts[1] {
		t.Errorf("mechanism users %v, want %v", byMech, counts)
	}
	chiSquare(t, "simulated data", seen, truth)

	// Cancellation stops the run.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = Simulate(ctx, rand.New(rand.NewPCG(5, 5)), []Mechanism{id}, []int{10}, truth,
		func(int, int, Report) error { return nil }, nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled run: %v", err)
	}
}

func TestSimulateDataErrors(t *testing.T) {
	id, _ := NewIdentity(3)
	rng := rand.New(rand.NewPCG(1, 1))
	noop := func(int, int, Report) error { return nil }
	if err := SimulateData(context.Background(), rng, []Mechanism{id}, []int{2}, []int{0, 1, 2}, nil, noop, nil); err == nil {
		t.Error("2 users for 3 data accepted")
	}
	k, _ := NewKRR(4, 1)
	if err := SimulateData(context.Background(), rng, []Mechanism{k}, []int{1}, []int{0}, nil, noop, nil); err != nil {
		t.Errorf("one user: %v", err)
	}
	if err := SimulateData(context.Background(), rng, nil, nil, nil, nil, noop, nil); err == nil {
		t.Error("no mechanisms accepted")
	}
}
