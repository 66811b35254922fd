package core

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestBoundContributions bounds a small data set of three people holding
// 5, 1 and 3 data: at Δ = 2 the first keeps 2 of her 5 and the third 2 of
// his 3 (4 dropped), nobody keeps more than Δ, the kept data are real
// indices in order, and the same seed keeps the same ones.
func TestBoundContributions(t *testing.T) {
	people := []int{0, 1, 0, 2, 0, 2, 0, 0, 2}
	keep, dropped := BoundContributions(people, len(people), 2, rand.New(rand.NewPCG(1, 2)))
	if dropped != 4 || len(keep) != 5 {
		t.Fatalf("kept %v, dropped %d; want 5 kept and 4 dropped", keep, dropped)
	}
	for i := 1; i < len(keep); i++ {
		if keep[i] <= keep[i-1] {
			t.Errorf("kept %v: not distinct indices in data order", keep)
		}
	}
	per := map[int]int{}
	for _, i := range keep {
		per[people[i]]++
	}
	if per[0] != 2 || per[1] != 1 || per[2] != 2 {
		t.Errorf("per person %v, want 2, 1, 2", per)
	}
	again, _ := BoundContributions(people, len(people), 2, rand.New(rand.NewPCG(1, 2)))
	if !slices.Equal(keep, again) {
		t.Errorf("the same seed kept %v, then %v", keep, again)
	}
	if all, d := BoundContributions(nil, 4, 1, nil); d != 0 || !slices.Equal(all, []int{0, 1, 2, 3}) {
		t.Errorf("without people: %v, %d dropped", all, d)
	}
	if all, d := BoundContributions(people, len(people), 5, nil); d != 0 || len(all) != len(people) {
		t.Errorf("Δ at the largest contribution: %v, %d dropped", all, d)
	}
}

// TestBoundContributionsUniform checks that a person's data are kept
// uniformly: over 6,000 seeds, each of her 4 data is among the 2 kept in
// half the draws. Each count is Binomial(6000, 1/2), sd ≈ 38.7; a band of
// ±200 (5.2 sd) fails by chance with probability below 2·10⁻⁶ per datum.
func TestBoundContributionsUniform(t *testing.T) {
	people := []int{0, 0, 0, 0}
	var seen [4]int
	for seed := range uint64(6000) {
		keep, _ := BoundContributions(people, 4, 2, rand.New(rand.NewPCG(seed, 3)))
		for _, i := range keep {
			seen[i]++
		}
	}
	for i, n := range seen {
		if n < 2800 || n > 3200 {
			t.Errorf("datum %d kept %d times of 6,000, want about 3,000", i, n)
		}
	}
}
