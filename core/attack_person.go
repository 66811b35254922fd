package core

import (
	"fmt"
	"slices"
	"sync"
)

// A HomeAttack is the adversary who sees every report of one person,
// knows the mechanism she used and a prior π over the data's symbols
// (the population's map), and names her home: the cell where she is
// most often. She estimates the person's own distribution over the
// cells from her reports by iterative Bayesian update started at the
// prior (FW eq. 10 on one person's reports), θ⁰ = π and
//
//	θ^{t+1}_x = (1/m) Σ_i θ^t_x P(r_i | x) / Σ_y θ^t_y P(r_i | y),
//
// and names the cell of largest θ. One step gives each cell the
// expected number of her reports sent from it, each report's posterior
// under the prior summed; with one report it names the Bayes-optimal
// guess of Expose. Further steps sharpen the estimate towards her own
// maximum-likelihood distribution, which many reports allow and few do
// not: the adversary takes one step for every ten reports, at most 30
// (HomeStepsFor). On New York's check-ins with every check-in kept
// (FW Table 7's population) that rule names 17.1% of the homes, against
// 15.3%, 14.2%, 10.7% and 9.6% for 1, 3, 10 and 30 steps whatever the
// reports (docs/ARCHITECTURE.md, "What an attacker learns").
//
// A HomeAttack is safe for concurrent use.
type HomeAttack struct {
	// Steps, when above 0, fixes the number of update steps; 0 (the
	// default) takes HomeStepsFor the person's reports.
	Steps int
	mechs []Mechanism
	xs    []int32   // the prior's support
	prior []float64 // π over xs
	k     int
	bufs  sync.Pool
}

// HomeStepsFor returns the update steps of a person who sent m
// reports: ⌈m/10⌉, at most 30.
func HomeStepsFor(m int) int { return max(1, min(30, (m+9)/10)) }

// maxHomeColumns bounds the likelihood columns a guess keeps across
// steps (distinct reports × the prior's support): 4·10⁶ floats, 32 MB.
// A person with more has them recomputed at each step.
const maxHomeColumns = 4 << 20

// NewHomeAttack returns the attack on people who use mechs, with prior
// π over their data's symbols (normalised; it need not sum to 1).
// Personalized mechanisms (PUM) are not attacked (Guess): their reports
// depend on each person's tagged cells.
func NewHomeAttack(mechs []Mechanism, prior []float64) (*HomeAttack, error) {
	if len(mechs) == 0 {
		return nil, fmt.Errorf("core: no mechanisms")
	}
	k := DataSymbols(mechs[0])
	for j, m := range mechs {
		if DataSymbols(m) != k {
			return nil, fmt.Errorf("core: mechanism %d has %d symbols, mechanism 1 %d", j+1, DataSymbols(m), k)
		}
	}
	pi, err := normalPrior(prior, k)
	if err != nil {
		return nil, err
	}
	h := &HomeAttack{mechs: mechs, xs: support(pi), k: len(pi)}
	h.prior = make([]float64, len(h.xs))
	for i, x := range h.xs {
		h.prior[i] = pi[x]
	}
	return h, nil
}

// homeScratch is one guess's work space.
type homeScratch struct {
	theta, next []float64
	like        []float64 // a likelihood over every symbol
	col         []float64 // a column over the support, when not kept
	cols        []float64 // the kept columns, one after another
}

// distinct is a report and how many times she sent it.
type distinct struct {
	r Report
	n float64
}

// Guess returns the adversary's guess of the home of a person whose
// reports reps mechanism j drew: the cell of largest estimated
// frequency, the lowest on ties; −1 for a personalized mechanism, which
// is not attacked. Reports no cell of the prior's support can send are
// left out.
func (h *HomeAttack) Guess(j int, reps []Report) int {
	m := h.mechs[j]
	if _, ok := m.(Personalized); ok {
		return -1
	}
	s, _ := h.bufs.Get().(*homeScratch)
	if s == nil {
		n := len(h.xs)
		s = &homeScratch{theta: make([]float64, n), next: make([]float64, n), col: make([]float64, n), like: make([]float64, h.k)}
	}
	defer h.bufs.Put(s)
	ds := distinctReports(reps)
	steps := h.Steps
	if steps <= 0 {
		steps = HomeStepsFor(len(reps))
	}
	keep := steps > 1 && len(ds)*len(h.xs) <= maxHomeColumns
	if keep {
		s.cols = slices.Grow(s.cols[:0], len(ds)*len(h.xs))[:len(ds)*len(h.xs)]
	}
	copy(s.theta, h.prior)
	for step := range steps {
		if !h.step(s, m, ds, keep, step > 0) {
			break // no report is possible from the prior's support
		}
	}
	best := 0
	for i, v := range s.theta {
		if v > s.theta[best] {
			best = i
		}
	}
	return int(h.xs[best])
}

// step makes one update of s.theta from the distinct reports ds of
// mechanism m, reading their columns from s.cols when kept and filled,
// and reports false when no report is possible under θ.
func (h *HomeAttack) step(s *homeScratch, m Mechanism, ds []distinct, keep, filled bool) bool {
	clear(s.next)
	n := len(h.xs)
	for d, dr := range ds {
		col := s.col
		if keep {
			col = s.cols[d*n : (d+1)*n]
		}
		if !keep || !filled {
			h.column(m, dr.r, col, s)
		}
		addPosterior(s.next, s.theta, col, dr.n)
	}
	total := 0.0
	for _, v := range s.next {
		total += v
	}
	if total == 0 {
		return false
	}
	for i, v := range s.next {
		s.theta[i] = v / total
	}
	return true
}

// column sets col[i] = P(r | xs[i]), up to a common factor.
func (h *HomeAttack) column(m Mechanism, r Report, col []float64, s *homeScratch) {
	if c, ok := m.(Channel); ok && r.Symbol >= 0 {
		channelColumn(c, r.Symbol, h.xs, col)
		return
	}
	like, _ := m.Likelihood(s.like, r)
	s.like = like
	for i, x := range h.xs {
		col[i] = like[x]
	}
}

// addPosterior adds n times the posterior θ∘col/⟨θ, col⟩ to acc; a
// report impossible under θ adds nothing.
func addPosterior(acc, theta, col []float64, n float64) {
	z := 0.0
	for i, c := range col {
		z += theta[i] * c
	}
	if !(z > 0) {
		return
	}
	f := n / z
	for i, c := range col {
		acc[i] += f * theta[i] * c
	}
}

// distinctReports returns reps with their multiplicities: symbols
// sorted, bit vectors one each.
func distinctReports(reps []Report) []distinct {
	var syms []int
	var out []distinct
	for _, r := range reps {
		if r.Symbol >= 0 {
			syms = append(syms, r.Symbol)
		} else {
			out = append(out, distinct{r, 1})
		}
	}
	slices.Sort(syms)
	for i := 0; i < len(syms); {
		n := 1
		for i+n < len(syms) && syms[i+n] == syms[i] {
			n++
		}
		out = append(out, distinct{SymbolReport(syms[i]), float64(n)})
		i += n
	}
	return out
}
