package core

import (
	"math/rand/v2"
	"slices"
)

// BoundContributions keeps at most delta of the n data of each person
// and returns the indices kept, in data order, and how many were
// dropped. people[i] is the person of datum i (nil: every datum a person
// of its own, nothing to drop). Which of a person's data stay is a
// uniform draw from rng, person by person in order of first appearance,
// so that it depends on nothing but that person's data and the seed.
//
// This is the contribution bounding Google's DP libraries make before
// adding noise (MaxContributionsPerPartition, summed over partitions):
// afterwards adding or removing one person changes the histogram of the
// data by at most delta in L1, the sensitivity Δ of a release of its
// counts.
func BoundContributions(people []int, n, delta int, rng *rand.Rand) (keep []int, dropped int) {
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	if people == nil || delta < 1 {
		return all, 0
	}
	var order []int
	of := make(map[int][]int)
	for i, p := range people[:n] {
		if _, ok := of[p]; !ok {
			order = append(order, p)
		}
		of[p] = append(of[p], i)
	}
	keep = make([]int, 0, n)
	for _, p := range order {
		idx := of[p]
		if len(idx) > delta {
			rng.Shuffle(len(idx), func(a, b int) { idx[a], idx[b] = idx[b], idx[a] })
			dropped += len(idx) - delta
			idx = idx[:delta]
		}
		keep = append(keep, idx...)
	}
	slices.Sort(keep)
	return keep, dropped
}
