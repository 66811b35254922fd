package core

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
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

// TestSimulatePeople checks that a person's every datum goes through her
// one mechanism, that the people, not the data, are shared among the
// mechanisms, and that with one datum a person it draws exactly what
// SimulateData draws.
func TestSimulatePeople(t *testing.T) {
	k1, _ := NewKRR(4, 1)
	k2, _ := NewKRR(4, 3)
	mechs := []Mechanism{k1, k2}
	data := []int{0, 1, 2, 3, 0, 1, 2, 3, 0, 1}
	people := []int{7, 7, 7, 7, 7, 7, 3, 9, 9, 5} // 7 has six data
	mechOf := map[int]int{}
	perMech := make([]int, 2)
	err := SimulatePeople(context.Background(), rand.New(rand.NewPCG(1, 1)), mechs, []int{2, 2}, data, people, nil, func(user, j int, _ Report) error {
		if m, ok := mechOf[people[user]]; ok && m != j {
			t.Errorf("person %d reports through mechanisms %d and %d", people[user], m, j)
		}
		if _, ok := mechOf[people[user]]; !ok {
			perMech[j]++
		}
		mechOf[people[user]] = j
		return nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if perMech[0] != 2 || perMech[1] != 2 {
		t.Errorf("people per mechanism %v, want 2 and 2", perMech)
	}
	if err := SimulatePeople(context.Background(), rand.New(rand.NewPCG(1, 1)), mechs, []int{2, 1}, data, people, nil, nil, nil); err == nil {
		t.Error("3 people assigned for 4: no error")
	}
	type rep struct {
		user, j int
		r       Report
	}
	draw := func(f func(emit func(int, int, Report) error) error) []rep {
		var out []rep
		if err := f(func(u, j int, r Report) error { out = append(out, rep{u, j, r}); return nil }); err != nil {
			t.Fatal(err)
		}
		return out
	}
	own := []int{4, 2, 9, 0, 1, 3, 8, 5, 6, 7} // a person each, numbered in any order
	a := draw(func(emit func(int, int, Report) error) error {
		return SimulatePeople(context.Background(), rand.New(rand.NewPCG(2, 2)), mechs, []int{5, 5}, data, own, nil, emit, nil)
	})
	b := draw(func(emit func(int, int, Report) error) error {
		return SimulateData(context.Background(), rand.New(rand.NewPCG(2, 2)), mechs, []int{5, 5}, data, nil, emit, nil)
	})
	if !slices.Equal(a, b) {
		t.Errorf("one datum a person: %v\nSimulateData: %v", a, b)
	}
}
