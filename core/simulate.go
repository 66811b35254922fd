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
	if j := personalizedUsed(mechs, counts); j >= 0 {
		return fmt.Errorf("core: mechanism %d is personalized (pum), which needs each user's personal sensitive cells: "+
			"simulate data that carry them instead of draws from a distribution", j+1)
	}
	draw := NewDataSampler(truth)
	n := sum(counts)
	if n > MaxUsers || n < 0 {
		return fmt.Errorf("core: %d users are more than the %d a simulation draws", n, MaxUsers)
	}
	assign := inBlocks(counts)
	return simulate(ctx, rng, mechs, n, assign, func(int, int) int { return draw.Draw(rng) }, emit, progress)
}

// A DataSampler draws data from a distribution by inversion of its
// cumulative masses.
type DataSampler struct{ cum []float64 }

// NewDataSampler returns the sampler of truth, a distribution (its
// masses need not sum to 1 exactly).
func NewDataSampler(truth []float64) *DataSampler {
	cum := make([]float64, len(truth))
	acc := 0.0
	for i, p := range truth {
		acc += p
		cum[i] = acc
	}
	return &DataSampler{cum}
}

// Draw returns a symbol drawn with rng: the first whose cumulative mass
// exceeds u times the total, u uniform in [0, 1) — never a symbol of
// probability 0, and in range as u·total < total.
func (d *DataSampler) Draw(rng *rand.Rand) int {
	u := rng.Float64() * d.cum[len(d.cum)-1]
	return sort.Search(len(d.cum), func(i int) bool { return d.cum[i] > u })
}

// SimulateGroups is Simulate with the reports grouped.
func SimulateGroups(ctx context.Context, rng *rand.Rand, mechs []Mechanism, counts []int, truth []float64) (*Groups, error) {
	var mech []int
	var reps []Report
	err := Simulate(ctx, rng, mechs, counts, truth, func(_, j int, r Report) error {
		mech, reps = append(mech, j), append(reps, r)
		return nil
	}, nil)
	if err != nil {
		return nil, err
	}
	return GroupReports(len(mechs), mech, reps), nil
}

// SimulateData sanitises given data, data[i] the true symbol of user i:
// counts[j] users use mechs[j], the users of each mechanism chosen by a
// random permutation drawn from rng, so that the order of the data (by
// user id, say) cannot correlate with the mechanisms. Users are emitted in
// order. A PUM's users first map their datum by Premap with their cells
// in personal (tag name → cell of every user, −1 for none, as in
// Study.Personal), which must then hold every tag of the PUM.
func SimulateData(ctx context.Context, rng *rand.Rand, mechs []Mechanism, counts []int, data []int, personal map[string][]int,
	emit func(user, mech int, r Report) error, progress func(float64)) error {
	if len(mechs) == 0 {
		return errors.New("core: no mechanisms")
	}
	if err := checkMechs(mechs, counts, DataSymbols(mechs[0])); err != nil {
		return err
	}
	if n := sum(counts); n != len(data) {
		return fmt.Errorf("core: %d users assigned for %d data", n, len(data))
	}
	mechOf := assignBlocks(rng, counts, len(data))
	assign := func(user int) int { return mechOf[user] }
	premap, err := premappers(mechs, personal, len(data))
	if err != nil {
		return err
	}
	return simulate(ctx, rng, mechs, len(data), assign, func(user, j int) int { return premap[j](user, data[user]) }, emit, progress)
}

// SimulatePeople is SimulateData for the data of people: people[i] is the
// person of datum i, and counts, which sum to the number of people,
// assign people to the mechanisms, so that every datum of a person goes
// through her one mechanism — a user chooses her mechanism once (FW §1)
// and each of her reports spends its privacy (sequential composition).
// People are numbered in the order of their first datum; when each has
// one datum it draws exactly what SimulateData draws.
func SimulatePeople(ctx context.Context, rng *rand.Rand, mechs []Mechanism, counts []int, data, people []int, personal map[string][]int,
	emit func(user, mech int, r Report) error, progress func(float64)) error {
	if len(mechs) == 0 {
		return errors.New("core: no mechanisms")
	}
	if err := checkMechs(mechs, counts, DataSymbols(mechs[0])); err != nil {
		return err
	}
	if len(people) != len(data) {
		return fmt.Errorf("core: %d persons given for %d data", len(people), len(data))
	}
	index := make(map[int]int)
	for _, p := range people {
		if _, ok := index[p]; !ok {
			index[p] = len(index)
		}
	}
	if n := sum(counts); n != len(index) {
		return fmt.Errorf("core: %d people assigned for %d people", n, len(index))
	}
	mechOfPerson := assignBlocks(rng, counts, len(index))
	assign := func(user int) int { return mechOfPerson[index[people[user]]] }
	premap, err := premappers(mechs, personal, len(data))
	if err != nil {
		return err
	}
	return simulate(ctx, rng, mechs, len(data), assign, func(user, j int) int { return premap[j](user, data[user]) }, emit, progress)
}

// assignBlocks assigns n units to the mechanisms by a uniform
// permutation: counts[j] of them, in blocks, to mechanism j.
func assignBlocks(rng *rand.Rand, counts []int, n int) []int {
	perm := rng.Perm(n)
	byPos := inBlocks(counts)
	mechOf := make([]int, n)
	for pos, unit := range perm {
		mechOf[unit] = byPos(pos)
	}
	return mechOf
}

// premappers returns for each mechanism the map from (user, datum) to the
// symbol it sanitises: the datum itself, or a Personalized mechanism's
// Premap with the user's personal cells.
func premappers(mechs []Mechanism, personal map[string][]int, n int) ([]func(user, x int) int, error) {
	out := make([]func(user, x int) int, len(mechs))
	for j, m := range mechs {
		p, ok := m.(Personalized)
		if !ok {
			out[j] = func(_, x int) int { return x }
			continue
		}
		cells := make([][]int, len(p.TagNames()))
		for k, t := range p.TagNames() {
			c, ok := personal[t]
			if !ok {
				return nil, fmt.Errorf("core: mechanism %d (pum) has tag %q, for which the data carry no personal cells", j+1, t)
			}
			if len(c) != n {
				return nil, fmt.Errorf("core: tag %q gives personal cells for %d users, not %d", t, len(c), n)
			}
			cells[k] = c
		}
		mine := make([]int, len(cells))
		out[j] = func(user, x int) int {
			for k := range cells {
				mine[k] = cells[k][user]
			}
			return p.Premap(x, mine)
		}
	}
	return out, nil
}

// checkMechs checks that every mechanism sanitises the data's k symbols
// and can be simulated.
func checkMechs(mechs []Mechanism, counts []int, k int) error {
	if len(mechs) != len(counts) {
		panic("core: slice length mismatch")
	}
	for _, m := range mechs {
		if DataSymbols(m) != k {
			return errors.New("core: the data's alphabet differs from the mechanisms'")
		}
		if err := checkDraw(m); err != nil {
			return err
		}
	}
	return nil
}

// MaxUsers bounds the users of one simulation: 2³², whose per-user
// report file would hold about 40 GB, and whose counts stay far below
// the 2⁵³ that estimators count exactly.
const MaxUsers = 1 << 32

// inBlocks returns the mechanism of user i of Σcounts users in blocks:
// the first counts[0] users use mechanism 0, the next counts[1]
// mechanism 1, and so on. It holds the blocks' ends, not a slice of
// every user.
func inBlocks(counts []int) func(user int) int {
	ends := make([]int, len(counts))
	acc := 0
	for j, c := range counts {
		acc += c
		ends[j] = acc
	}
	return func(user int) int { return sort.SearchInts(ends, user+1) }
}

func sum(v []int) int {
	n := 0
	for _, x := range v {
		n += x
	}
	return n
}

// simulate sanitises datum(user, j) with mechs[j], j = assign(user), for
// every user of n.
func simulate(ctx context.Context, rng *rand.Rand, mechs []Mechanism, n int, assign func(user int) int, datum func(user, j int) int,
	emit func(user, mech int, r Report) error, progress func(float64)) error {
	for user := range n {
		j := assign(user)
		if user%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			if progress != nil {
				progress(float64(user) / float64(n))
			}
		}
		if err := emit(user, j, Draw(mechs[j], rng, datum(user, j))); err != nil {
			return err
		}
	}
	if progress != nil {
		progress(1)
	}
	return nil
}
