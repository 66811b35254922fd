package core

import (
	"context"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// IBUM is [IBU]_M (FW §5.3): IBU on the compound channel A[n] and the
// pooled output frequencies q[n]. It is not the MLE unless all users
// share one mechanism.
func IBUM(ctx context.Context, mechs []Mechanism, g *Groups, s *Study, opt EMOptions) (*Estimate, error) {
	return ibuM(ctx, mechs, g, s, opt, columnBudget)
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

// sumPlanar replaces the planar geometric mechanisms among ops that can
// share transforms (batchable) by their weighted sum as one operator
// (planarSum), in the place of the first, with weight 1.
func sumPlanar(ops []operator, w []float64) ([]operator, []float64) {
	type weighted struct {
		op operator
		w  float64
	}
	items := make([]weighted, len(ops))
	for i, op := range ops {
		items[i] = weighted{op, w[i]}
	}
	merged := mergePlanar(items, func(it weighted) operator { return it.op },
		func(ms []*PlanarGeometric, at []int) weighted {
			mw := make([]float64, len(at))
			for j, i := range at {
				mw[j] = w[i]
			}
			return weighted{planarSum(ms, mw), 1}
		})
	ops, w = ops[:0:0], w[:0:0]
	for _, it := range merged {
		ops, w = append(ops, it.op), append(w, it.w)
	}
	return ops, w
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
