package core

import (
	"context"

	"gonum.org/v1/gonum/mat"
)

// IBUM is [IBU]_M (FW §5.3): IBU on the compound channel A[n] and the
// pooled output frequencies q[n]. It is not the MLE unless all users
// share one mechanism.
func IBUM(ctx context.Context, mechs []Mechanism, g *Groups, s *Study, opt EMOptions) (*Estimate, error) {
	cs, err := symbolChannels(mechs, g, s, "ibu-m")
	if err != nil {
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
