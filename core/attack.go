package core

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/privmap/privmap/internal/linalg"
)

// An Exposure is what the Bayes-optimal adversary learns from one report
// of a mechanism. She knows the mechanism's channel A and a prior π over
// the data's symbols (the population's map, or a map of her own) and
// sees one report z of a person drawn from π.
//
// The figures are exact: sums over every output, no sampling
// (docs/ARCHITECTURE.md, "What an attacker learns").
type Exposure struct {
	// Success is the Bayes vulnerability, the probability that her best
	// guess names the person's symbol (Smith 2009; Shokri et al., CCS
	// 2012, §4):
	//
	//	V = Σ_z max_x π_x A_xz.
	Success float64
	// Prior is max_x π_x: her success without the report.
	Prior float64
	// Over, when not empty, names the model in which the figures are
	// exact: for local hashing, "a uniformly random hash", which its
	// seeded family stands in for (hashSuccess).
	Over string
	// Distance says whether the distance figures below were computed:
	// on a grid or a line, for a mechanism with symbol outputs.
	// NoDistance says why not otherwise.
	Distance   bool
	NoDistance string
	// ExpectedError is Shokri et al.'s privacy measure (CCS 2012, eq. 8):
	// the expected distance between the person's place and the guess
	// that minimises it,
	//
	//	E = Σ_z min_g Σ_x π_x A_xz d(x, g),
	//
	// in Unit (km on a grid, steps on a line). PriorError is the same
	// without the report, min_g Σ_x π_x d(x, g).
	ExpectedError, PriorError float64
	Unit                      string
	// Within[i] is the probability that that guess lies within Radii[i]
	// of the person's place.
	Radii, Within []float64
}

// Expose returns the Exposure of mechanism m on alphabet a under prior,
// a distribution over m's data symbols (its masses are normalised;
// they need not sum to 1). radii are the distances, in the alphabet's
// unit, whose Within are wanted. ctx cancels; progress, when not nil,
// gets the fraction done.
//
// The Bayes vulnerability costs O(K·L) by rows for a channel with L
// outputs, O(K) for k-RR (Exposure.Success's sum in closed form), and
// O(K log K) for RAPPOR and uRAP, whose 2^K outputs are not enumerated
// (bitSuccess). The expected error finds each output's best guess by a
// certified lattice search (medianSearch).
func Expose(ctx context.Context, m Mechanism, a Alphabet, prior []float64, radii []float64, progress func(float64)) (Exposure, error) {
	if _, ok := m.(Personalized); ok {
		return Exposure{}, ErrPersonalExposure
	}
	pi, err := normalPrior(prior, m.Inputs())
	if err != nil {
		return Exposure{}, err
	}
	if progress == nil {
		progress = func(float64) {}
	}
	e := Exposure{Prior: slices.Max(pi)}
	e.Success, err = bayesSuccess(ctx, m, pi)
	if err != nil {
		return Exposure{}, err
	}
	if _, ok := m.(hasher); ok {
		e.Over = "a uniformly random hash"
	}
	progress(0.2)
	c, isChannel := m.(Channel)
	lat, metric := newLattice(a)
	switch {
	case !metric:
		e.NoDistance = "a categorical alphabet has no distance"
		progress(1)
		return e, nil
	case !isChannel && e.Over != "":
		e.NoDistance = "its reports carry a hash's seed, one of 2³², and leave no exact way to the best guess of each"
		progress(1)
		return e, nil
	case !isChannel:
		e.NoDistance = "its 2^K bit-vector reports leave no exact way to the best guess of each"
		progress(1)
		return e, nil
	case lat.cells() != len(pi):
		return Exposure{}, fmt.Errorf("core: the alphabet has %d symbols, the mechanism %d", lat.cells(), len(pi))
	}
	e.Distance, e.Unit, e.Radii = true, lat.unit, radii
	e.PriorError = lat.priorError(pi)
	e.ExpectedError, e.Within, err = lat.expectedError(ctx, c, pi, radii, func(f float64) { progress(0.2 + 0.8*f) })
	if err != nil {
		return Exposure{}, err
	}
	return e, nil
}

// A bayesExact mechanism gives its Bayes vulnerability in closed form
// (subset selection, whose C(K, ω) reports are not enumerated).
type bayesExact interface {
	bayesSuccess(pi []float64) float64
}

// ErrPersonalExposure is Expose's answer for a personalized mechanism
// (PUM): its report depends on each person's own tagged cells, which a
// prior over the data's symbols does not give.
var ErrPersonalExposure = errors.New("core: a personalized mechanism's report depends on each person's tagged cells: its exposure to one report is not measured")

// normalPrior checks prior, k masses finite and ≥ 0 with a positive
// sum, and returns it divided by that sum.
func normalPrior(prior []float64, k int) ([]float64, error) {
	if len(prior) != k {
		return nil, fmt.Errorf("core: the prior has %d masses for %d symbols", len(prior), k)
	}
	var sum, comp float64
	for x, p := range prior {
		if !(p >= 0) || math.IsInf(p, 0) {
			return nil, fmt.Errorf("core: the prior's mass of symbol %d is %v", x, p)
		}
		sum, comp = twoSum(sum, p, comp)
	}
	sum += comp
	if !(sum > 0) {
		return nil, errors.New("core: the prior has no mass")
	}
	out := make([]float64, k)
	for x, p := range prior {
		out[x] = p / sum
	}
	return out, nil
}

// support returns the symbols of positive mass.
func support(pi []float64) []int32 {
	var xs []int32
	for x, p := range pi {
		if p > 0 {
			xs = append(xs, int32(x))
		}
	}
	return xs
}

// bayesSuccess returns V = Σ_z max_x π_x A_xz for m's channel.
func bayesSuccess(ctx context.Context, m Mechanism, pi []float64) (float64, error) {
	switch c := m.(type) {
	case hasher:
		return hashSuccess(c, pi), nil
	case bayesExact:
		return c.bayesSuccess(pi), nil
	case twoValuedChannel:
		return twoValuedSuccess(c.channel(), pi), nil
	case oneHotBits:
		return bitSuccess(c, pi)
	case Channel:
		return rowSuccess(ctx, c, pi)
	}
	return 0, fmt.Errorf("core: a %T gives neither symbol nor one-hot bit reports: its exposure is not measured", m)
}

// twoValuedSuccess is V for the channel off·11ᵀ + diff·I (k-RR, FW eq.
// 1): the best guess from z is z itself or the likeliest other symbol,
//
//	V = Σ_z max(π_z (off + diff), off · max_{x≠z} π_x).
func twoValuedSuccess(t twoValued, pi []float64) float64 {
	first, second := -1, -1 // the two largest masses
	for x, p := range pi {
		switch {
		case first < 0 || p > pi[first]:
			first, second = x, first
		case second < 0 || p > pi[second]:
			second = x
		}
	}
	var v, comp float64
	for z, p := range pi {
		other := pi[first]
		if z == first {
			other = pi[second]
		}
		v, comp = twoSum(v, max(p*(t.off+t.diff), t.off*other), comp)
	}
	return v + comp
}

// rowBlock is the rows a worker of rowSuccess reads at once.
const rowBlock = 256

// rowSuccess is V for a channel read by rows: each block of the
// prior's support keeps its outputs' largest π_x A_xz, and the blocks'
// maxima are combined (max is exact, so the schedule does not change
// the result). A rowOperator gives its rows whole (planar geometric:
// O(K) a row); other channels by Prob.
func rowSuccess(ctx context.Context, c Channel, pi []float64) (float64, error) {
	xs := support(pi)
	l := c.Outputs()
	blocks := (len(xs) + rowBlock - 1) / rowBlock
	best := make([][]float64, blocks)
	linalg.Each(blocks, func(b int) {
		if ctx.Err() != nil {
			return
		}
		top := make([]float64, l)
		row := make([]float64, l)
		for _, x := range xs[b*rowBlock : min(len(xs), (b+1)*rowBlock)] {
			channelRow(c, int(x), row)
			p := pi[x]
			for z, a := range row {
				top[z] = max(top[z], p*a)
			}
		}
		best[b] = top
	})
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	var v, comp float64
	for z := range l {
		m := 0.0
		for _, top := range best {
			m = max(m, top[z])
		}
		v, comp = twoSum(v, m, comp)
	}
	return v + comp, nil
}

// channelRow sets row to P(·|x): by probRow for a rowOperator, else
// entry by entry.
func channelRow(c Channel, x int, row []float64) {
	if r, ok := c.(rowOperator); ok {
		r.probRow(x, row)
		return
	}
	for z := range row {
		row[z] = c.Prob(x, z)
	}
}
