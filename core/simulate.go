package core

import (
	"context"
	"errors"
	"fmt"
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
	if err := checkMechs(mechs, counts, len(truth)); err != nil {
		return err
	}
	cum := make([]float64, len(truth))
	acc := 0.0
	for i, p := range truth {
		acc += p
		cum[i] = acc
	}
	assign := blocks(counts)
	datum := func(int) int {
		// The first cell whose cumulative mass exceeds u: never a cell of
		// probability 0, and in range as u < acc.
		u := rng.Float64() * acc
		return sort.Search(len(cum), func(i int) bool { return cum[i] > u })
	}
	return simulate(ctx, rng, mechs, assign, datum, emit, progress)
}

// SimulateData sanitises given data, data[i] the true symbol of user i:
// counts[j] users use mechs[j], the users of each mechanism chosen by a
// random permutation drawn from rng, so that the order of the data (by
// user id, say) cannot correlate with the mechanisms. Users are emitted in
// order.
func SimulateData(ctx context.Context, rng *rand.Rand, mechs []Mechanism, counts []int, data []int,
	emit func(user, mech int, r Report) error, progress func(float64)) error {
	if len(mechs) == 0 {
		return errors.New("core: no mechanisms")
	}
	if err := checkMechs(mechs, counts, mechs[0].Inputs()); err != nil {
		return err
	}
	if n := sum(counts); n != len(data) {
		return fmt.Errorf("core: %d users assigned for %d data", n, len(data))
	}
	perm := rng.Perm(len(data))
	byPos := blocks(counts)
	assign := make([]int, len(data))
	for pos, user := range perm {
		assign[user] = byPos[pos]
	}
	return simulate(ctx, rng, mechs, assign, func(user int) int { return data[user] }, emit, progress)
}

func checkMechs(mechs []Mechanism, counts []int, k int) error {
	if len(mechs) != len(counts) {
		panic("core: slice length mismatch")
	}
	for _, m := range mechs {
		if m.Inputs() != k {
			return errors.New("core: the data's alphabet differs from the mechanisms'")
		}
	}
	return nil
}

// blocks returns the mechanism of each of Σcounts users, in blocks.
func blocks(counts []int) []int {
	out := make([]int, 0, sum(counts))
	for j, c := range counts {
		for range c {
			out = append(out, j)
		}
	}
	return out
}

func sum(v []int) int {
	n := 0
	for _, x := range v {
		n += x
	}
	return n
}

// simulate sanitises datum(user) with mechs[assign[user]] for every user.
func simulate(ctx context.Context, rng *rand.Rand, mechs []Mechanism, assign []int, datum func(int) int,
	emit func(user, mech int, r Report) error, progress func(float64)) error {
	for user, j := range assign {
		if user%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			if progress != nil {
				progress(float64(user) / float64(len(assign)))
			}
		}
		if err := emit(user, j, Draw(mechs[j], rng, datum(user))); err != nil {
			return err
		}
	}
	if progress != nil {
		progress(1)
	}
	return nil
}
