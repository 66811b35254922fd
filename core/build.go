package core

import (
	"context"
	"fmt"
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
	k := a.Len()
	var (
		m   Mechanism
		err error
	)
	switch spec.Kind {
	case KindKRR:
		m, err = NewKRR(k, spec.Epsilon)
	case KindRAPPOR:
		m, err = NewRAPPOR(k, spec.Epsilon)
	case KindGeo:
		m, err = NewGeometric(k, spec.Epsilon)
	case KindPlanar:
		m, err = NewPlanarGeometric(a.Cols, a.Rows, a.CellKm, spec.Epsilon)
	case KindURR:
		m, err = NewURR(k, spec.Epsilon, spec.Sensitive)
	case KindURAP:
		m, err = NewURAP(k, spec.Epsilon, spec.Sensitive)
	case KindIdentity:
		m, err = NewIdentity(k)
	case KindShokri:
		m, err = newShokri(ctx, a, spec.QualityLoss, progress)
	case KindPUM:
		m, err = NewPUM(k, spec.Epsilon, spec.Sensitive, spec.Tags, spec.Base)
	default:
		return nil, fmt.Errorf("core: mechanism %q: unknown kind %q", spec.ID, spec.Kind)
	}
	if err != nil {
		return nil, fmt.Errorf("core: mechanism %q: %w", spec.ID, err)
	}
	return m, nil
}

// newShokri solves Shokri's mechanism on a metric alphabet with a uniform
// prior, as FW §8.2.4 does.
func newShokri(ctx context.Context, a Alphabet, q float64, progress func(int, float64)) (*Shokri, error) {
	k := a.Len()
	d := mat.NewDense(k, k, nil)
	for x := range k {
		for z := range k {
			v, _, ok := a.Distance(x, z)
			if !ok {
				return nil, fmt.Errorf("shokri needs a linear or grid alphabet, not %s", a.Kind)
			}
			d.Set(x, z, v)
		}
	}
	return SolveShokri(ctx, d, nil, q, ShokriOptions{Progress: progress})
}

// Draw sanitises x with m and returns the report, for mechanisms with
// symbol outputs (Sample) and bit-vector outputs (SampleBits).
func Draw(m Mechanism, rng *rand.Rand, x int) Report {
	switch s := m.(type) {
	case *PUM:
		return Draw(s.Common, rng, x)
	case interface{ Sample(*rand.Rand, int) int }:
		return SymbolReport(s.Sample(rng, x))
	case interface{ SampleBits(*rand.Rand, int) Bits }:
		return BitsReport(s.SampleBits(rng, x))
	}
	panic(fmt.Sprintf("core: %T cannot sample", m))
}

// ParseReport parses a report as written in a reports file for m: a
// symbol index for symbol outputs, a string of Inputs() 0s and 1s for
// bit-vector outputs. A PUM's reports are those of its common mechanism.
func ParseReport(m Mechanism, s string) (Report, error) {
	if p, ok := m.(*PUM); ok {
		m = p.Common
	}
	if b, ok := m.(interface{ Bits() int }); ok {
		bits, err := ParseBits(s)
		if err != nil {
			return Report{}, err
		}
		if bits.Len() != b.Bits() {
			return Report{}, fmt.Errorf("core: report %q has %d bits, want %d", clip(s, 40), bits.Len(), b.Bits())
		}
		return BitsReport(bits), nil
	}
	var z int
	if _, err := fmt.Sscan(s, &z); err != nil || fmt.Sprint(z) != s {
		return Report{}, fmt.Errorf("core: report %q is not a symbol index", clip(s, 40))
	}
	if c, ok := m.(Channel); ok && (z < 0 || z >= c.Outputs()) {
		return Report{}, fmt.Errorf("core: report %d out of range 0..%d", z, c.Outputs()-1)
	}
	return SymbolReport(z), nil
}
