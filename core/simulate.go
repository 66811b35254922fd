package core

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"sort"
)

// Assign splits n users among mechanisms in proportion to shares by the
// largest-remainder method: each gets ⌊share·n⌋, and the users left over
// go one each to the largest fractional parts, ties to the earlier
// mechanism. The counts sum to n.
func Assign(shares []float64, n int) []int {
	counts := make([]int, len(shares))
	frac := make([]float64, len(shares))
	left := n
	for i, s := range shares {
		v := s * float64(n)
		counts[i] = int(math.Floor(v))
		frac[i] = v - math.Floor(v)
		left -= counts[i]
	}
	order := make([]int, len(shares))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return frac[order[a]] > frac[order[b]] })
	for i := 0; left > 0 && len(order) > 0; i = (i + 1) % len(order) {
		counts[order[i]]++
		left--
	}
	return counts
}

// Simulate draws users' data from truth and sanitises them: counts[j]
// users (in order, j = 0, 1, …) use mechs[j]. For each user it calls
// emit(user, j, report). progress, when not nil, gets the fraction done;
// ctx cancels. The result depends only on rng's stream.
//
// Seeded math/rand/v2 makes simulations repeatable; it is not fit for
// collecting real data (see the package comment).
func Simulate(ctx context.Context, rng *rand.Rand, mechs []Mechanism, counts []int, truth []float64,
	emit func(user, mech int, r Report) error, progress func(float64)) error {
	if len(mechs) != len(counts) {
		panic("core: slice length mismatch")
	}
	for _, m := range mechs {
		if m.Inputs() != len(truth) {
			return errors.New("core: the truth's alphabet differs from the mechanisms'")
		}
	}
	cum := make([]float64, len(truth))
	acc := 0.0
	for i, p := range truth {
		acc += p
		cum[i] = acc
	}
	total := 0
	for _, c := range counts {
		total += c
	}
	user := 0
	for j, m := range mechs {
		for range counts[j] {
			if user%4096 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
				if progress != nil {
					progress(float64(user) / float64(total))
				}
			}
			// The first cell whose cumulative mass exceeds u: never a
			// cell of probability 0, and in range as u < acc.
			u := rng.Float64() * acc
			x := sort.Search(len(cum), func(i int) bool { return cum[i] > u })
			if err := emit(user, j, Draw(m, rng, x)); err != nil {
				return err
			}
			user++
		}
	}
	if progress != nil {
		progress(1)
	}
	return nil
}
