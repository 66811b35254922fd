package emd

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/privmap/privmap/core"
	"github.com/privmap/privmap/internal/linalg"
)

// Metrics compare an estimate with the truth (package core/emd's doc).
type Metrics struct {
	// EMD is the earth mover's distance in the alphabet's ground distance
	// (km on grids, steps on linear alphabets); NaN on categorical ones.
	EMD float64
	// EMDUnit names EMD's unit.
	EMDUnit string
	// EMDNote says why EMD is NaN on a grid: the exact transport was too
	// large to compute (a *TooLargeError's message); empty otherwise.
	EMDNote string
	// MSE is the squared error Σ (p − p̂)² (CEM eq. 2).
	MSE float64
	// JSD is the Jensen–Shannon divergence in nats (CEM eq. 8).
	JSD float64
	// TV is the total variation ½ Σ |p − p̂|.
	TV float64
}

// Compare computes the metrics of estimate against truth on alphabet a
// (Kind "" for no ground distance). Cancelling ctx stops the exact EMD
// of a grid, which may take long.
func Compare(ctx context.Context, truth, estimate []float64, a core.Alphabet) (Metrics, error) {
	if len(truth) != len(estimate) {
		return Metrics{}, fmt.Errorf("core: metrics: the truth has %d symbols, the estimate %d", len(truth), len(estimate))
	}
	m := Metrics{EMD: math.NaN(), MSE: SquaredError(truth, estimate), JSD: JSD(truth, estimate), TV: TV(truth, estimate)}
	switch a.Kind {
	case core.KindLinear:
		m.EMD, m.EMDUnit = EMDLinear(truth, estimate), "step"
	case core.KindGrid:
		if a.Len() != len(truth) {
			return Metrics{}, fmt.Errorf("core: metrics: the grid has %d cells, the distributions %d", a.Len(), len(truth))
		}
		d, err := transport(ctx, truth, estimate, gridCosts(a))
		var large *core.TooLargeError
		switch {
		case errors.As(err, &large):
			m.EMDUnit, m.EMDNote = "km", large.Error()
		case err != nil:
			return Metrics{}, err
		default:
			m.EMD, m.EMDUnit = d, "km"
		}
	}
	return m, nil
}

// EMDs returns the EMD from p to each of qs on a, as Compare measures
// it (a linear alphabet's CDF distance in steps, a grid's exact
// transport in km), on every core, with its unit. progress, when not
// nil, is called with the distances done, one call at a time. A
// categorical alphabet has no ground distance (an error), and a
// transport too large to compute is its *core.TooLargeError.
func EMDs(ctx context.Context, a core.Alphabet, p []float64, qs [][]float64, progress func(done int)) ([]float64, string, error) {
	var one func(q []float64) (float64, error)
	unit := "km"
	switch a.Kind {
	case core.KindLinear:
		one, unit = func(q []float64) (float64, error) { return EMDLinear(p, q), nil }, "step"
	case core.KindGrid:
		if a.Len() != len(p) {
			return nil, "", fmt.Errorf("core: metrics: the grid has %d cells, the distributions %d", a.Len(), len(p))
		}
		one = func(q []float64) (float64, error) {
			return transport(ctx, p, q, gridCosts(a))
		}
	default:
		return nil, "", fmt.Errorf("core: metrics: a %s alphabet has no ground distance for the EMD", a.Kind)
	}
	d := make([]float64, len(qs))
	errs := make([]error, len(qs))
	var mu sync.Mutex
	done := 0
	linalg.Each(len(qs), func(i int) {
		if errs[i] = ctx.Err(); errs[i] != nil {
			return
		}
		if len(qs[i]) != len(p) {
			panic("core: slice length mismatch")
		}
		d[i], errs[i] = one(qs[i])
		if progress != nil {
			mu.Lock()
			done++
			progress(done)
			mu.Unlock()
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	return d, unit, errors.Join(errs...)
}

// SquaredError returns Σ (p − q)².
func SquaredError(p, q []float64) float64 {
	s := 0.0
	for i := range p {
		s += (p[i] - q[i]) * (p[i] - q[i])
	}
	return s
}

// TV returns the total variation distance ½ Σ |p − q|.
func TV(p, q []float64) float64 {
	s := 0.0
	for i := range p {
		s += math.Abs(p[i] - q[i])
	}
	return s / 2
}

// JSD returns the Jensen–Shannon divergence ½ KL(p‖m) + ½ KL(q‖m),
// m = (p+q)/2, in nats; 0·log 0 = 0. It is finite for every pair of
// distributions, subnormal entries included.
func JSD(p, q []float64) float64 {
	s := 0.0
	for i := range p {
		s += klTerm(p[i], q[i])
		s += klTerm(q[i], p[i])
	}
	return s / 2
}

// klTerm returns a·ln(a/m), m = (a+b)/2, for a, b ≥ 0 (0 when a = 0).
// When m underflows (a and b subnormal, (a+b)/2 rounds to 0) or a/m
// overflows, it uses a·(ln 2 + ln a − ln(a+b)), which stays finite.
func klTerm(a, b float64) float64 {
	if !(a > 0) {
		return 0
	}
	m := (a + b) / 2
	if r := a / m; m > 0 && !math.IsInf(r, 0) {
		return a * math.Log(r)
	}
	return a * (math.Ln2 + math.Log(a) - math.Log(a+b))
}

// EMDLinear returns the earth mover's distance on a linear alphabet with
// unit steps: Σ_x |P(x) − Q(x)|, P and Q the cumulative distributions.
func EMDLinear(p, q []float64) float64 {
	s, cp, cq := 0.0, 0.0, 0.0
	for i := range len(p) - 1 {
		cp += p[i]
		cq += q[i]
		s += math.Abs(cp - cq)
	}
	return s
}
