package core

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// A Mechanism sanitises a symbol of the input alphabet and gives the
// likelihood of a report: every mechanism of this package is one.
type Mechanism interface {
	// Inputs returns the size K of the input alphabet.
	Inputs() int
	// Likelihood sets dst[x] so that P(r | x) = dst[x]·e^{scale}, and
	// returns dst and scale.
	Likelihood(dst []float64, r Report) ([]float64, float64)
}

// NewMechanism builds the mechanism a validated spec describes on the
// alphabet a. Shokri's mechanism solves a linear program, which takes
// seconds to minutes; NewMechanismWith can cancel it and report progress.
func NewMechanism(spec MechanismSpec, a Alphabet) (Mechanism, error) {
	return NewMechanismWith(context.Background(), spec, a, nil)
}

// NewMechanismWith is NewMechanism with a context that cancels a long
// build and a progress callback, called now and then during Shokri's
// solve with the iteration and the relative optimality gap.
func NewMechanismWith(ctx context.Context, spec MechanismSpec, a Alphabet, progress func(iter int, gap float64)) (Mechanism, error) {
	kind, ok := spec.Kind.Info()
	if !ok {
		return nil, fmt.Errorf("core: mechanism %q: unknown kind %q", spec.ID, spec.Kind)
	}
	m, err := kind.build(ctx, spec, a, progress)
	if err == nil {
		err = checkDraw(m)
	}
	if err == nil {
		err = checkStochastic(m)
	}
	if err != nil {
		return nil, fmt.Errorf("core: mechanism %q: %w", spec.ID, err)
	}
	return m, nil
}

// stochasticTol is how far a channel's row may sum from 1.
const stochasticTol = 1e-12

// checkStochastic checks, for every kind in one place, that the channel
// m reports through is one: each row's entries P(z | x) are finite and
// ≥ 0 and sum to 1 within stochasticTol (compensated sums), and a bit
// channel's probabilities lie in [0, 1]. A large channel (a city's
// planar mechanism) is checked on rows spread over it (checkedRows),
// since its rows are made by one formula.
func checkStochastic(m Mechanism) error {
	switch c := reporter(m).(type) {
	case Channel:
		for _, x := range checkedRows(c.Inputs(), c.Outputs()) {
			var sum, comp float64
			for z := range c.Outputs() {
				p := c.Prob(x, z)
				if !(p >= 0) || math.IsInf(p, 0) {
					return fmt.Errorf("core: the channel's P(%d | %d) is %v, not a probability", z, x, p)
				}
				sum, comp = twoSum(sum, p, comp)
			}
			if s := sum + comp; math.Abs(s-1) > stochasticTol {
				return fmt.Errorf("core: the channel's row %d sums to %v, not 1", x, s)
			}
		}
	case BitChannel:
		for _, x := range checkedRows(c.Inputs(), c.Bits()) {
			for j := range c.Bits() {
				if p := c.BitProb(x, j); !(p >= 0 && p <= 1) {
					return fmt.Errorf("core: the channel's P(bit %d = 1 | %d) is %v, not a probability", j, x, p)
				}
			}
		}
	}
	return nil
}

// checkedRows returns the rows checkStochastic reads of a k-row channel
// of n outputs: all of them while they hold at most checkEntries
// entries, else as many as fit spread evenly over the rows, the first
// and last always (a 2²⁴-symbol k-RR: those two, 3.4·10⁷ entries).
func checkedRows(k, n int) []int {
	const checkEntries = 4e6
	m := k
	if float64(k)*float64(n) > checkEntries {
		m = max(2, int(checkEntries/float64(n)))
	}
	rows := make([]int, m)
	for i := range rows {
		rows[i] = i
		if m < k {
			rows[i] = int(int64(i) * int64(k-1) / int64(m-1))
		}
	}
	return rows
}

// twoSum adds p to the running sum with Neumaier's compensation c.
func twoSum(sum, p, c float64) (float64, float64) {
	t := sum + p
	if math.Abs(sum) >= math.Abs(p) {
		c += (sum - t) + p
	} else {
		c += (p - t) + sum
	}
	return t, c
}

// DataSymbols returns the size of the alphabet of true data that m
// sanitises: Inputs, except for a Personalized mechanism, whose inputs
// add its tags.
func DataSymbols(m Mechanism) int {
	if p, ok := m.(Personalized); ok {
		return p.DataSymbols()
	}
	return m.Inputs()
}

// reporter returns the mechanism whose reports m gives: m itself, or
// the common mechanism of a Personalized one.
func reporter(m Mechanism) Mechanism {
	if p, ok := m.(Personalized); ok {
		return p.Common()
	}
	return m
}

// checkDraw returns an error unless Draw can sample m: its reports are
// drawn by a Sampler or a BitSampler.
func checkDraw(m Mechanism) error {
	switch reporter(m).(type) {
	case Sampler, BitSampler, hasher:
		return nil
	}
	return fmt.Errorf("core: a %T cannot be simulated: it draws neither symbols (Sampler), bit vectors (BitSampler) nor hashed values", m)
}

// Draw sanitises x with m and returns the report. m must pass checkDraw,
// as every mechanism that NewMechanism builds does; Simulate checks
// the mechanisms it is given.
func Draw(m Mechanism, rng *rand.Rand, x int) Report {
	switch s := reporter(m).(type) {
	case Sampler:
		return SymbolReport(s.Sample(rng, x))
	case BitSampler:
		return BitsReport(s.SampleBits(rng, x))
	case hasher:
		return s.SampleHash(rng, x)
	}
	panic(fmt.Sprintf("core: %T cannot sample", m))
}

// Matrix returns the channel as a dense Inputs×Outputs matrix,
// A[x][z] = P(z | x). It is meant for small alphabets; structured
// mechanisms offer matrix-free products instead.
func Matrix(c Channel) *mat.Dense {
	k, m := c.Inputs(), c.Outputs()
	a := mat.NewDense(k, m, nil)
	for x := range k {
		for z := range m {
			a.Set(x, z, c.Prob(x, z))
		}
	}
	return a
}

// MinEpsilon is the smallest privacy level a mechanism takes. Below it a
// channel's rows differ by less than about 1e−9 of their entries, which
// the estimators cannot tell from rounding (at ε = 1e−320, e^ε is 1 and
// an estimate came out NaN).
const MinEpsilon = 1e-9

// checkEpsilon rejects privacy levels that are not positive and finite
// (NaN, ±Inf, ≤ 0), in the manner of dp's checks.CheckEpsilonStrict, and
// those below MinEpsilon.
func checkEpsilon(eps float64) error {
	if !(eps > 0) || math.IsInf(eps, 0) {
		return fmt.Errorf("core: epsilon must be positive and finite, got %v", eps)
	}
	if eps < MinEpsilon {
		return fmt.Errorf("core: epsilon %v is below %v, the smallest privacy level whose channel floating point resolves", eps, MinEpsilon)
	}
	return nil
}

func checkSize(k int) error {
	if k < 2 {
		return fmt.Errorf("core: alphabet size must be at least 2, got %d", k)
	}
	if k > MaxSymbols {
		return fmt.Errorf("core: an alphabet of %d symbols is more than the %d privmap handles", k, MaxSymbols)
	}
	return nil
}
