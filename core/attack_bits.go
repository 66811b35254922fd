package core

import (
	"fmt"
	"math"
	"slices"
)

// bitSuccess returns the Bayes vulnerability V = Σ_v max_x π_x P(v | x)
// of a one-hot bit channel (RAPPOR, FW eq. 12; uRAP, ULDP Def. 4)
// without enumerating its 2^K reports.
//
// Bit j is 1 with probability a_j when j is the datum and b_j when it is
// not. A bit with b_j = 0 (uRAP's non-sensitive bits) reveals its
// symbol: the reports with it set add π_j a_j to V, and on the others
// the symbol's likelihood is 1 − a_j. For a report v whose revealing
// bits are all 0,
//
//	P(v | x) = c(v) · f_x(v_x),  c(v) = Π_{j free} b_j^{v_j} (1−b_j)^{1−v_j},
//
// with f_x(1) = a_x/b_x, f_x(0) = (1−a_x)/(1−b_x) for a free x, and
// f_x = 1 − a_x for a revealing one. c is the law of independent bits,
// so that part of V is E[max(C₀, max_x π_x f_x(v_x))] over v ~ c, with
// C₀ the largest π_x(1 − a_x) of the revealing symbols: the expected
// maximum of independent two-point variables, which a sweep of their 2K
// atoms in decreasing order gives in O(K log K). The atom of x's value
// u is the maximum when x takes it and no atom above it is taken:
//
//	P = P(X_x = u) · Π_{y ≠ x} P(X_y below u),
//
// and its term u·P(X_x = u) is π_x a_x or π_x (1 − a_x), computed without
// the ratio, so that no value overflows at large ε.
func bitSuccess(c oneHotBits, pi []float64) (float64, error) {
	k := c.Inputs()
	type atom struct {
		log  float64 // ln of the atom's value π_x f_x
		term float64 // its value times its probability
		rest float64 // the probability of x's other atom
		x    int     // its symbol; −1 for the floor C₀
	}
	atoms := make([]atom, 0, 2*k+1)
	var v, comp, floor float64
	for x, p := range pi {
		if p == 0 {
			continue
		}
		other := (x + 1) % k
		a1, a0 := c.bitLogProbs(x, x)     // the datum's own bit
		b1, b0 := c.bitLogProbs(other, x) // bit x when x is not the datum
		switch {
		case math.IsInf(b1, -1):
			v, comp = twoSum(v, p*math.Exp(a1), comp)
			floor = max(floor, p*math.Exp(a0))
		case math.IsInf(b0, -1):
			return 0, fmt.Errorf("core: bit %d of the channel is always 1 for other inputs; its exposure is not measured", x)
		default:
			lp := math.Log(p)
			atoms = append(atoms,
				atom{log: lp + a1 - b1, term: p * math.Exp(a1), rest: math.Exp(b0), x: x},
				atom{log: lp + a0 - b0, term: p * math.Exp(a0), rest: math.Exp(b1), x: x})
		}
	}
	if floor > 0 {
		atoms = append(atoms, atom{log: math.Log(floor), term: floor, x: -1})
	}
	slices.SortStableFunc(atoms, func(s, t atom) int {
		switch {
		case s.log > t.log:
			return -1
		case s.log < t.log:
			return 1
		}
		return 0
	})
	// below[x] is the probability that X_x is below every atom swept so
	// far; logAll the sum of their logarithms over the symbols seen.
	below := make(map[int]float64, len(atoms)/2)
	logAll := 0.0
	for _, at := range atoms {
		if at.x < 0 {
			// The floor: the maximum is at least C₀.
			v, comp = twoSum(v, at.term*math.Exp(logAll), comp)
			break
		}
		u, seen := below[at.x]
		if !seen {
			u = 1
		}
		others := logAll - math.Log(u)
		v, comp = twoSum(v, at.term*math.Exp(others), comp)
		if seen || at.rest == 0 {
			// Both atoms of x are swept: some atom was surely taken.
			break
		}
		below[at.x] = at.rest
		logAll = others + math.Log(at.rest)
	}
	return v + comp, nil
}
