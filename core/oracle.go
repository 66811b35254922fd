package core

import (
	"errors"
	"math"
)

// A supporter is a pure frequency oracle (Wang, Blocki, Li and Jha,
// USENIX Security 2017, Def. 2): each report supports a set of symbols,
// the datum's with probability p* and any other with q* < p*, so that
// support counting is unbiased (Oracle).
type supporter interface {
	Mechanism
	// support adds c to acc_x for each symbol x that r supports.
	support(r Report, acc []float64, c float64)
	// supportProbs returns p* = P(r supports x | x) and q* = P(r
	// supports x | y), y ≠ x.
	supportProbs() (p, q float64)
}

// The pure frequency oracles.
var (
	_ supporter = (*KRR)(nil)
	_ supporter = (*RAPPOR)(nil)
	_ supporter = (*OUE)(nil)
	_ supporter = (*LH)(nil)
	_ supporter = (*SS)(nil)
	_ supporter = (*HR)(nil)
)

// k-RR's report z supports z: p* = e^ε/(e^ε + K − 1), q* = 1/(e^ε + K − 1).
func (m *KRR) support(r Report, acc []float64, c float64) { acc[r.Symbol] += c }

func (m *KRR) supportProbs() (p, q float64) {
	q = 1 / (math.Exp(m.Epsilon) + float64(m.K-1))
	return 1 / (1 + float64(m.K-1)*math.Exp(-m.Epsilon)), q
}

// RAPPOR's report supports its set bits: p* = 1/(1 + e^{−ε/2}), q* =
// 1/(1 + e^{ε/2}) (basic one-time RAPPOR, FW eq. 12).
func (m *RAPPOR) support(r Report, acc []float64, c float64) { setAdd(r.Bits, acc, c) }

func (m *RAPPOR) supportProbs() (p, q float64) { return m.keep(), m.flipProb() }

// OUE's report supports its set bits: p* = ½, q* = 1/(e^ε + 1).
func (m *OUE) support(r Report, acc []float64, c float64) { setAdd(r.Bits, acc, c) }

func (m *OUE) supportProbs() (p, q float64) { return 0.5, m.other() }

// Local hashing's report (s, v) supports the symbols x with H_s(x) = v:
// p* = e^ε/(e^ε + g − 1), q* = 1/g over a uniformly random hash (Wang
// et al. 2017, §4.4).
func (m *LH) support(r Report, acc []float64, c float64) {
	for x := range acc {
		if m.hash(r.Seed, x) == r.Symbol {
			acc[x] += c
		}
	}
}

func (m *LH) supportProbs() (p, q float64) { return math.Exp(m.logKept()), 1 / float64(m.G) }

// Subset selection's report supports its subset: p* = ωe^ε/(ωe^ε + K −
// ω), and another symbol is one of the ω − 1 others beside the datum or
// one of the ω without it: q* = (p*(ω − 1) + (1 − p*)ω)/(K − 1) (Ye and
// Barg 2018, §III).
func (m *SS) support(r Report, acc []float64, c float64) { setAdd(r.Bits, acc, c) }

func (m *SS) supportProbs() (p, q float64) {
	p = m.kept()
	w := float64(m.Omega)
	return p, (p*(w-1) + (1-p)*w) / float64(m.K-1)
}

// The Hadamard response's output y supports the symbols whose half C_x
// holds it: p* = e^ε/(e^ε + 1), and a half holds another symbol's
// output with probability ½ (two halves meet in K'/4 outputs).
func (m *HR) support(r Report, acc []float64, c float64) {
	for x := range acc {
		if inHalf(x, r.Symbol) {
			acc[x] += c
		}
	}
}

func (m *HR) supportProbs() (p, q float64) { return 1 / (1 + math.Exp(-m.Epsilon)), 0.5 }

// Oracle is the frequency oracles' own estimate by support counting
// (Wang et al. 2017, eq. 2), for users of one or several pure oracles:
// with C_x the reports supporting x, n_j the users of oracle j and p̄,
// q̄ the users' mean p* and q*, E[C_x] = n q̄ + n (p̄ − q̄) f_x, so
//
//	f̂_x = (C_x/n − q̄)/(p̄ − q̄)
//
// is unbiased, with variance (q̄(1 − q̄) + f_x(p̄ − q̄)(1 − p̄ − q̄))/
// (n (p̄ − q̄)²) for one oracle (their eq. 3): 4e^ε/(n(e^ε − 1)²) at small
// f_x for OUE and OLH. It is post-processed by post; the default,
// projection on the simplex, is Wang et al.'s Norm-Sub (NDSS 2020, §4.2:
// negative estimates to 0, the same amount taken from the positive ones
// until they sum to 1), which it equals.
func Oracle(mechs []Mechanism, g *Groups, s *Study, post Post) ([]float64, error) {
	raw, err := oracleRaw(mechs, g, s, MethodOracle)
	if err != nil {
		return nil, err
	}
	return PostProcess(raw, post)
}

// oracleRaw is Oracle's estimate before post-processing.
func oracleRaw(mechs []Mechanism, g *Groups, s *Study, method Method) ([]float64, error) {
	n := float64(g.N())
	if n == 0 {
		return nil, errors.New("core: no reports")
	}
	var pBar, qBar float64
	for j, m := range mechs {
		if g.Users[j] == 0 {
			continue
		}
		o, ok := m.(supporter)
		if !ok {
			return nil, capReason(CapOracle, false, method, s, j)
		}
		p, q := o.supportProbs()
		pBar += float64(g.Users[j]) / n * p
		qBar += float64(g.Users[j]) / n * q
	}
	acc := make([]float64, mechs[0].Inputs())
	for _, gr := range g.List {
		mechs[gr.Mech].(supporter).support(gr.Report, acc, float64(gr.Count))
	}
	for x := range acc {
		acc[x] = (acc[x]/n - qBar) / (pBar - qBar)
	}
	return acc, nil
}

// The names of the frequency oracles' estimator by support counting for
// the users of one oracle, of its form for mixed oracles and ε
// (Oracle's p̄, q̄) and of its form per mechanism averaged (FW eq. 4).
const (
	MethodOracle  Method = "oracle"
	MethodOracleM Method = "oracle-m"
	MethodOracleR Method = "oracle-r"
	// MethodOwnR estimates each mechanism's users by their kind's own
	// estimator — support counting for a frequency oracle, the
	// empirical estimator for uRR and uRAP (ULDP §4), FW's matrix
	// inversion (eq. 7) for the others — and averages them by users
	// (FW eq. 4): what a collector without GIBU does with a free-will
	// population of oracles and geometric mechanisms.
	MethodOwnR Method = "own-r"
)

// The support-counting estimators, registered in registry.
var (
	oracleEstimator = Estimator{Method: MethodOracle, Single: true, Needs: CapOracle, Refuses: CapPersonal, Cost: CostPass,
		run: func(e *estimation) (*Estimate, error) { return closed(e.oracle(e.g)) }}
	oracleMEstimator = Estimator{Method: MethodOracleM, Title: "[Oracle]_M", Help: "support counting, mixed oracles (Wang et al. 2017)",
		Needs: CapOracle, Refuses: CapPersonal, Cost: CostPass,
		run: func(e *estimation) (*Estimate, error) { return closed(e.oracle(e.g)) }}
	oracleREstimator = Estimator{Method: MethodOracleR, Title: "[Oracle]_R", Help: "each oracle's own estimate, averaged",
		PerMechanism: true, Needs: CapOracle, Refuses: CapPersonal, Cost: CostPass,
		run: func(e *estimation) (*Estimate, error) { return closed(PerMechanism(e.g, e.oracle)) }}
	ownREstimator = Estimator{Method: MethodOwnR, Title: "[Own]_R", Help: "each kind's own estimator per mechanism, averaged",
		PerMechanism: true, Refuses: CapPersonal, Cost: CostInversionEach,
		run: func(e *estimation) (*Estimate, error) { return closed(PerMechanism(e.g, e.own)) }}
)

// own is the estimate of the users of one mechanism, g, by their kind's
// own estimator: support counting for an oracle, the empirical one for a
// utility-optimized mechanism, inversion otherwise.
func (e *estimation) own(g *Groups) ([]float64, error) {
	for j, n := range g.Users {
		if n == 0 {
			continue
		}
		switch e.mechs[j].(type) {
		case supporter:
			return e.oracle(g)
		case empirical:
			return ULDPEstimate(e.mechs, g, e.s, e.opt.ULDP)
		}
	}
	return e.inv(g)
}

func (e *estimation) oracle(g *Groups) ([]float64, error) {
	raw, err := oracleRaw(e.mechs, g, e.s, e.method)
	if err != nil {
		return nil, err
	}
	return PostProcess(raw, e.opt.Post)
}
