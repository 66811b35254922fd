package core

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"

	"github.com/privmap/privmap/internal/linalg"
)

// The bias correction of corrected EM (CEM eq. (28)–(32)) is computed
// here by the structure of the channels rather than from one dense
// likelihood column per report group (package app/interval's doc). Every
// report group is an output z of one mechanism, reported by c_z users,
// whose likelihood column a_z (a_z[x] = P(z | x), up to a scale that
// cancels) enters only through
//
//	q_z = p·a_z,  s_z = a_z/q_z,
//	Ŝ   = (1/N) Σ_z c_z s_z s_zᵀ                                    (31)
//	t1_z = a_zᵀ Q̃ a_z,  t2_z = ‖Q̃ a_z‖²,  Q̃ = (Ŝ + λI)⁻¹ = −Q̂    (32)
//
// and sums Σ_z h_z a_z. With Q̂ŜQ̂ = −Q̂ − λQ̂², CEM's B = Σ c_z w_z w_zᵀ
// (w_z = Q̂ s_z) gives s_zᵀ B s_z = N (t1_z − λ t2_z)/q_z², so that
//
//	â₋₁ = −(1/N) Q̃ { Ŝ m − Σ_z (c_z/q_z)(−t1_z/(N q_z²) + f (t1_z − λ t2_z)/(2N q_z²)) a_z },
//	m   = −Q̃ (1/N) Σ_z (c_z/q_z) a_z,
//
// f = 2 (exact ∇²s) or 1 (as printed). Three kinds of share make Ŝ, t1,
// t2 and the sums:
//
//   - a two-valued channel (k-RR, the identity: a_z = off·1 + diff·e_z)
//     in O(K) each from Q̃'s diagonal, Q̃1 and Q̃²1 (Sherman–Morrison's
//     structure, rank one plus diagonal);
//   - mechanisms applied as operators (the planar geometric's bordered
//     convolution, FW §2.3): Ŝ one column per input by one product,
//     Ŝe_x = Σ_j A_j (w_j ⊙ P_j(·|x)), and t1, t2 one input at a time
//     from the products of Q̃'s rows, (Q̃_x A_j)_z = (Q̃ a_z)_x;
//   - any other channel by its likelihood columns, blocked so that the
//     K² work per group runs in matrix products.
//
// Ŝ + λI is inverted in place (linalg.InvertSPD): one K×K matrix, 650 MB
// at New York's 9,024 cells, instead of the G×K columns and five dense
// matrices of the evaluation over groups (about 24 GB there).

// A cemShare is the users of one or more mechanisms, in one of the forms
// above. Its outputs z are those reported.
type cemShare interface {
	// at sets q_z = p·a_z of every output reported and fails when one
	// is not positive.
	at(p []float64) error
	// gram adds (1/N) Σ_z c_z s_z s_zᵀ to the lower triangle of the
	// K×K row-major s, calling tick with the fraction done.
	gram(ctx context.Context, s []float64, n float64, tick func(float64)) error
	// mulGram adds (1/N) Σ_z c_z (s_z·v) s_z to dst.
	mulGram(dst, v []float64, n float64)
	// forms sets t1_z and t2_z from the symmetric K×K row-major q = Q̃,
	// calling tick with the fraction done.
	forms(ctx context.Context, q []float64, f *qFacts, tick func(float64)) error
	// combine adds Σ_z h(c_z, q_z, t1_z, t2_z) a_z to dst.
	combine(dst []float64, h func(c, q, t1, t2 float64) float64)
	// work estimates the multiply-adds of gram and forms together.
	work(k int) float64
}

// cemModel is the reports of a corrected EM in shares.
type cemModel struct {
	k      int
	n      float64
	shares []cemShare
}

// newCEMModel splits the grouped reports into shares: two-valued
// channels, planar geometric mechanisms with more than budget likelihood
// entries (groups × K) as operators, and columns for the rest.
func newCEMModel(mechs []Mechanism, g *Groups, s *Study, budget int) (*cemModel, error) {
	if len(g.List) == 0 {
		return nil, errors.New("core: no reports")
	}
	k := mechs[g.List[0].Mech].Inputs()
	perMech := make([]int, len(mechs))
	for _, gr := range g.List {
		perMech[gr.Mech]++
	}
	two, ops, err := structuredShares(mechs, perMech, s, k, budget)
	if err != nil {
		return nil, err
	}
	var rest []Group
	for _, gr := range g.List {
		if t := two[gr.Mech]; t != nil {
			t.counts[gr.Report.Symbol] += float64(gr.Count)
		} else if i, ok := ops.has(gr.Mech); ok {
			ops.counts[i][gr.Report.Symbol] += float64(gr.Count)
		} else {
			rest = append(rest, gr)
		}
	}
	m := &cemModel{k: k, n: float64(g.N())}
	for j := range mechs {
		if t := two[j]; t != nil {
			m.shares = append(m.shares, t)
		}
	}
	if ops != nil {
		m.shares = append(m.shares, ops)
	}
	if len(rest) > 0 {
		m.shares = append(m.shares, &columnShare{k: k, mechs: mechs, s: s, groups: rest})
	}
	return m, nil
}

// structuredShares returns the two-valued share of each mechanism with
// such a channel and the operator share of the planar geometric
// mechanisms whose groups × K exceed budget (nil when none), for the
// mechanisms with reports (perMech).
func structuredShares(mechs []Mechanism, perMech []int, s *Study, k, budget int) (map[int]*twoValuedShare, *opShare, error) {
	var planar []rowOperator
	var planarAt []int
	two := map[int]*twoValuedShare{}
	for j, mech := range mechs {
		if perMech[j] == 0 {
			continue
		}
		if mech.Inputs() != k {
			return nil, nil, fmt.Errorf("core: mechanism %s has %d inputs, others %d", mechName(s, j), mech.Inputs(), k)
		}
		switch t := mech.(type) {
		case twoValuedChannel:
			two[j] = &twoValuedShare{ch: t.channel(), counts: make([]float64, k)}
		case rowOperator:
			if perMech[j]*k > budget {
				planar, planarAt = append(planar, t), append(planarAt, j)
			}
		}
	}
	return two, newOpShare(planar, planarAt, k), nil
}

// CEMCost is what corrected EM's bias correction costs on a study, for
// cost models (its memory is Method.Memory's): the K³ of inverting Ŝ + λI, the transforms of
// the planar geometric users' passes (one batch of J+1 transforms of a
// Torus-point torus per input and pass, for J mechanisms), and the
// multiply-adds of other users' likelihood columns in matrix products.
// Two-valued channels (k-RR, the identity) cost O(K²), nothing here.
type CEMCost struct {
	Cube        float64
	Transforms  float64
	Torus       int
	ColumnWork  float64
	Corrections int // bias corrections: the data's and one a simulation of α's choice
}

// CorrectedEMCost returns the cost of a corrected EM of s for n users
// spread evenly over its mechanisms (at most one report group per user
// and output), with sims simulations choosing α (CEMOptions.Simulations;
// 0 when α is given), each an EM estimate and a bias correction. The
// kinds' records say which share takes each mechanism's users.
func (s *Study) CorrectedEMCost(n int, sims int) CEMCost {
	k := s.Alphabet.Len()
	kk := float64(k)
	c := CEMCost{Cube: kk * kk * kk, Corrections: 1 + sims}
	mechs := float64(max(1, len(s.Mechanisms)))
	planar := 0
	for _, m := range s.Mechanisms {
		info, _ := m.Kind.Info()
		switch {
		case info.TwoValued:
		case info.Convolution && s.Alphabet.Kind == KindGrid:
			planar++
		default:
			groups := math.Min(float64(n)/mechs, kk)
			c.ColumnWork += 2 * groups * kk * kk
		}
	}
	if planar > 0 {
		side := 2*max(s.Alphabet.Cols, s.Alphabet.Rows) - 1
		c.Torus = side * side
		c.Transforms = 2 * kk * float64(planar+1)
	}
	return c
}

// cemStage reports a bias correction's progress: the stage's name and
// the fraction of it done.
type cemStage func(stage string, done float64)

// biasCorrection returns â₋₁ of CEM eq. (28) at p (see above), with
// λ = 1e−3 when lambda is 0, in the K×K work space q (allocated when
// nil; its contents are overwritten).
func (m *cemModel) biasCorrection(ctx context.Context, p []float64, lambda float64, printed bool, stage cemStage, q []float64) ([]float64, error) {
	if lambda == 0 {
		lambda = 1e-3
	}
	if stage == nil {
		stage = func(string, float64) {}
	}
	k, n := m.k, m.n
	if q == nil {
		if err := checkCEMSize(k); err != nil {
			return nil, err
		}
		q = make([]float64, k*k)
	}
	if err := m.inverse(ctx, p, lambda, stage, q); err != nil {
		return nil, err
	}
	facts := &qFacts{q: q, k: k}
	for i, s := range m.shares {
		if err := s.forms(ctx, q, facts, m.ticker(stage, "Quadratic forms (CEM eq. (29)–(30))", i)); err != nil {
			return nil, err
		}
	}
	mean := make([]float64, k)
	for _, s := range m.shares {
		s.combine(mean, func(c, qz, _, _ float64) float64 { return c / (qz * n) })
	}
	w := symv(q, k, -1, mean)
	term := make([]float64, k)
	for _, s := range m.shares {
		s.mulGram(term, w, n)
	}
	f := 2.0
	if printed {
		f = 1
	}
	for _, s := range m.shares {
		s.combine(term, func(c, qz, t1, t2 float64) float64 {
			q2 := qz * qz
			return -c / qz * (-t1/(n*q2) + f*(t1-lambda*t2)/(2*n*q2))
		})
	}
	return symv(q, k, -1/n, term), nil
}

// inverse sets q = Q̃ = (Ŝ + λI)⁻¹ at p, CEM eq. (31)–(32).
func (m *cemModel) inverse(ctx context.Context, p []float64, lambda float64, stage cemStage, q []float64) error {
	k := m.k
	clear(q)
	for _, s := range m.shares {
		if err := s.at(p); err != nil {
			return err
		}
	}
	for i, s := range m.shares {
		if err := s.gram(ctx, q, m.n, m.ticker(stage, "Forming Ŝ (CEM eq. (31))", i)); err != nil {
			return err
		}
	}
	for x := range k {
		q[x*k+x] += lambda
	}
	err := linalg.InvertSPD(ctx, q, k, func(f float64) { stage("Inverting Ŝ + λI (CEM eq. (32))", f) })
	if errors.Is(err, linalg.ErrNotPositiveDefinite) {
		return fmt.Errorf("core: cem: Ŝ + λI is not positive definite at λ = %g", lambda)
	}
	return err
}

// ticker returns the tick of share i's pass in the stage named name: the
// shares' passes follow one another, each its share of their work.
// Ticks may come from several cores; stage is called from one at a time.
func (m *cemModel) ticker(stage cemStage, name string, i int) func(float64) {
	var mu sync.Mutex
	total, before := 0.0, 0.0
	for j, s := range m.shares {
		total += s.work(m.k)
		if j < i {
			before += s.work(m.k)
		}
	}
	mine := m.shares[i].work(m.k)
	tick := func(f float64) {
		mu.Lock()
		defer mu.Unlock()
		stage(name, (before+f*mine)/total)
	}
	tick(0)
	return tick
}

// cemBytes is the memory of a corrected EM on k symbols: its K×K matrix
// and 80% more for the rest (the EM model, the shares' work space and the
// heap's growth before Go's collector runs: New York's 9,024 cells, a
// 651 MB matrix, peaked at 1.18 GB resident; docs/PERFORMANCE.md).
func cemBytes(k int) float64 {
	kk := float64(k)
	return 1.8 * 8 * kk * kk
}

// symv returns α·q·v for the symmetric K×K row-major q.
func symv(q []float64, k int, alpha float64, v []float64) []float64 {
	out := make([]float64, k)
	blas64.Gemv(blas.NoTrans, alpha, blas64.General{Rows: k, Cols: k, Stride: k, Data: q}, blas64.Vector{N: k, Inc: 1, Data: v}, 0, blas64.Vector{N: k, Inc: 1, Data: out})
	return out
}

// qFacts are the products of Q̃ that two-valued shares read, made once:
// its diagonal, its rows' squared norms, Q̃1, Q̃²1, 1ᵀQ̃1 and ‖Q̃1‖².
type qFacts struct {
	q                []float64
	k                int
	made             bool
	diag, norms      []float64
	q1, qq1          []float64
	sumQ1, normQ1Sqr float64
}

func (f *qFacts) make() {
	if f.made {
		return
	}
	f.made = true
	k := f.k
	f.diag, f.norms = make([]float64, k), make([]float64, k)
	ones := make([]float64, k)
	for x := range k {
		row := f.q[x*k : (x+1)*k]
		f.diag[x], f.norms[x] = row[x], floats.Dot(row, row)
		ones[x] = 1
	}
	f.q1 = symv(f.q, k, 1, ones)
	f.qq1 = symv(f.q, k, 1, f.q1)
	f.sumQ1, f.normQ1Sqr = floats.Sum(f.q1), floats.Dot(f.q1, f.q1)
}

// A twoValuedChannel's likelihood columns are off·1 + diff·e_z over K
// inputs and K outputs: k-RR and the identity.
type twoValuedChannel interface {
	channel() twoValued
}

// twoValuedShare is the users of one two-valued channel: a_z = off·1 +
// diff·e_z, so q_z = off·Σp + diff·p_z, and every product is O(K).
type twoValuedShare struct {
	ch             twoValued
	counts, q      []float64
	t1, t2         []float64
	sumP           float64
	weightsScratch []float64
}

func (t *twoValuedShare) at(p []float64) error {
	t.sumP = floats.Sum(p)
	t.q = make([]float64, len(p))
	for z, c := range t.counts {
		t.q[z] = t.ch.off*t.sumP + t.ch.diff*p[z]
		if c > 0 && !(t.q[z] > 0) {
			return errors.New("core: cem: the estimate gives a report probability 0")
		}
	}
	return nil
}

// weights returns w_z = c_z/(N q_z²).
func (t *twoValuedShare) weights(n float64) []float64 {
	w := t.weightsScratch[:0]
	for z, c := range t.counts {
		v := 0.0
		if c > 0 {
			v = c / (n * t.q[z] * t.q[z])
		}
		w = append(w, v)
	}
	t.weightsScratch = w
	return w
}

// gram adds diff²·diag(w) + off·diff·(w1ᵀ + 1wᵀ) + off²·Σw·11ᵀ.
func (t *twoValuedShare) gram(_ context.Context, s []float64, n float64, _ func(float64)) error {
	w := t.weights(n)
	k, off, diff := len(w), t.ch.off, t.ch.diff
	all := off * off * floats.Sum(w)
	for x := range k {
		row := s[x*k : x*k+x+1]
		for y := range row {
			row[y] += all + off*diff*(w[x]+w[y])
		}
		row[x] += diff * diff * w[x]
	}
	return nil
}

func (t *twoValuedShare) mulGram(dst, v []float64, n float64) {
	w := t.weights(n)
	off, diff := t.ch.off, t.ch.diff
	sv := floats.Sum(v)
	total := 0.0
	for z, wz := range w {
		r := wz * (off*sv + diff*v[z])
		total += r
		dst[z] += diff * r
	}
	for x := range dst {
		dst[x] += off * total
	}
}

func (t *twoValuedShare) forms(_ context.Context, _ []float64, f *qFacts, _ func(float64)) error {
	f.make()
	off, diff := t.ch.off, t.ch.diff
	k := len(t.counts)
	t.t1, t.t2 = make([]float64, k), make([]float64, k)
	for z := range k {
		t.t1[z] = diff*diff*f.diag[z] + 2*off*diff*f.q1[z] + off*off*f.sumQ1
		t.t2[z] = diff*diff*f.norms[z] + 2*off*diff*f.qq1[z] + off*off*f.normQ1Sqr
	}
	return nil
}

func (t *twoValuedShare) combine(dst []float64, h func(c, q, t1, t2 float64) float64) {
	total := 0.0
	for z, c := range t.counts {
		if c == 0 {
			continue
		}
		var t1, t2 float64
		if t.t1 != nil {
			t1, t2 = t.t1[z], t.t2[z]
		}
		v := h(c, t.q[z], t1, t2)
		total += v
		dst[z] += t.ch.diff * v
	}
	for x := range dst {
		dst[x] += t.ch.off * total
	}
}

func (t *twoValuedShare) work(k int) float64 { return 4 * float64(k) * float64(k) }
