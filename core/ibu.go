package core

import (
	"context"
	"math"
	"sync"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// IBUM is [IBU]_M (FW §5.3): IBU on the compound channel A[n] and the
// pooled output frequencies q[n]. It is not the MLE unless all users
// share one mechanism.
func IBUM(ctx context.Context, mechs []Mechanism, g *Groups, s *Study, opt EMOptions) (*Estimate, error) {
	return ibuM(ctx, mechs, g, s, opt, ColumnBudget)
}

// ibuM is IBUM, matrix-free when every mechanism has an operator and a
// dense channel would pass budget entries.
func ibuM(ctx context.Context, mechs []Mechanism, g *Groups, s *Study, opt EMOptions, budget int) (*Estimate, error) {
	cs, err := symbolChannels(mechs, g, s, "ibu-m")
	if err != nil {
		return nil, err
	}
	if ops, w, ok := compoundOperators(cs, g, budget); ok {
		// Matrix-free: A[n] applied as Σ_A (n^A/n) A, two products of
		// each mechanism a step, as GIBU's operator terms.
		k := mechs[0].Inputs()
		q := pooled(cs, g)
		n := float64(g.N())
		for z := range q {
			q[z] *= n
		}
		t := &operatorTerm{op: &compoundOp{ops: ops, w: w}, q: q, n: n}
		return runEM(ctx, &mixture{k: k, terms: []term{t}}, opt)
	}
	if err := checkDense("[IBU]_M's compound channel", cs); err != nil {
		return nil, err
	}
	a, q := compound(cs, g)
	k, _ := a.Dims()
	n := float64(g.N())
	c := &columns{k: k, n: 0}
	for z, f := range q {
		if f == 0 {
			continue
		}
		col := mat.Col(nil, z, a)
		c.col = append(c.col, col)
		c.scale = append(c.scale, 0)
		c.count = append(c.count, f*n)
		c.n += f * n
	}
	return runEM(ctx, c, opt)
}

// compoundOperators returns the mechanisms of cs that have users as
// matrix-free operators with their weights n^A/n, when every one has one
// and their dense matrices would pass budget entries.
func compoundOperators(cs []Channel, g *Groups, budget int) ([]operator, []float64, bool) {
	var ops []operator
	var w []float64
	n := float64(g.N())
	for j, c := range cs {
		if c == nil {
			continue
		}
		op, ok := c.(operator)
		if !ok || c.Inputs()*c.Outputs() <= budget {
			return nil, nil, false
		}
		ops, w = append(ops, op), append(w, float64(g.Users[j])/n)
	}
	ops, w = sumPlanar(ops, w)
	return ops, w, len(ops) > 0
}

// compoundOp applies A[n] = Σ_A w_A A matrix-free.
type compoundOp struct {
	ops []operator
	w   []float64
	tmp []float64
}

func (c *compoundOp) MulVecTo(dst []float64, trans bool, x []float64) []float64 {
	dst = c.ops[0].MulVecTo(dst, trans, x)
	floats.Scale(c.w[0], dst)
	for i, op := range c.ops[1:] {
		c.tmp = op.MulVecTo(c.tmp, trans, x)
		floats.AddScaled(dst, c.w[i+1], c.tmp)
	}
	return dst
}

// The names of IBU (FW eq. 10) for the users of one mechanism, of
// [IBU]_M on their average channel (FW §5.3) and of [IBU]_R, IBU per
// mechanism averaged (FW eq. 4).
const (
	MethodIBU  Method = "ibu"
	MethodIBUM Method = "ibu-m"
	MethodIBUR Method = "ibu-r"
)

// The IBU estimators, registered in registry.
var (
	ibuEstimator = Estimator{Method: MethodIBU, Single: true, Refuses: CapPersonal, Certified: true, Cost: CostEM,
		run: (*estimation).gibu, ownLogLik: true}
	ibuMEstimator = Estimator{Method: MethodIBUM, Title: "[IBU]_M", Help: "IBU on the users' average matrix (FW §5.3)",
		Refuses: CapPersonal | CapBits | CapHashed, Certified: true, Cost: CostEMAverage,
		run: func(e *estimation) (*Estimate, error) { return IBUM(e.ctx, e.mechs, e.g, e.s, e.opt.EM) }}
	ibuREstimator = Estimator{Method: MethodIBUR, Title: "[IBU]_R", Help: "IBU per mechanism, averaged by users (FW eq. 4)",
		PerMechanism: true, Refuses: CapPersonal, Certified: true, Cost: CostEMEach, run: (*estimation).ibuR}
)

// ibuR runs GIBU on each mechanism's users alone (PerMechanism), its
// progress callbacks serialised, and certifies the average by the
// largest of the mechanisms' gaps.
func (e *estimation) ibuR() (*Estimate, error) {
	iters, converged, gap := 0, true, 0.0
	var mu sync.Mutex // the mechanisms' IBUs run concurrently
	em := e.opt.EM
	if progress := em.Progress; progress != nil {
		em.Progress = func(iter int, ll, gap float64) {
			mu.Lock()
			defer mu.Unlock()
			progress(iter, ll, gap)
		}
	}
	if inner := em.Inner; inner != nil {
		em.Inner = func(iter int, done float64) {
			mu.Lock()
			defer mu.Unlock()
			inner(iter, done)
		}
	}
	theta, err := PerMechanism(e.g, func(sub *Groups) ([]float64, error) {
		est, err := GIBU(e.ctx, e.mechs, sub, e.s, em)
		if err != nil {
			return nil, err
		}
		mu.Lock()
		defer mu.Unlock()
		iters += est.Iterations
		converged = converged && est.Converged
		gap = math.Max(gap, est.Gap)
		return est.Theta, nil
	})
	est, err := closed(theta, err)
	if est != nil {
		// Each mechanism's IBU is certified on its own users.
		est.Iterations, est.Converged, est.Gap = iters, converged, gap
	}
	return est, err
}
