package core

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestSetTermLogLikelihood: the log-likelihood of OUE's reports on 384
// symbols, 200,000 in set terms and 10,000 in likelihood columns, is
// their exact sum (summed in 256-bit floats) to 1e−13 nats a report.
// Each report's log-probability holds a constant near −260 nats; summed
// plainly, the rounding reached 6·10⁻¹⁰ nats a report at a million
// reports, and polish refused the steps that would have certified the
// MLE.
func TestSetTermLogLikelihood(t *testing.T) {
	for _, tc := range []struct {
		n, budget int
		want      string
	}{{200000, 0, "*core.setTerm"}, {10000, ColumnBudget, "*core.columns"}} {
		logLikelihoodExact(t, tc.n, tc.budget, tc.want)
	}
}

func logLikelihoodExact(t *testing.T, n, budget int, want string) {
	const k = 384
	m, err := NewOUE(k, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	mechs := []Mechanism{m}
	truth := zipf(k, 1.1)
	g, err := SimulateGroups(context.Background(), rand.New(rand.NewPCG(3, 5)), mechs, []int{n}, truth)
	if err != nil {
		t.Fatal(err)
	}
	model, err := newModel(mechs, g, nil, budget)
	if err != nil {
		t.Fatal(err)
	}
	read := any(model) // the model, or its first term when a mixture
	if mix, ok := model.(*mixture); ok {
		read = mix.terms[0]
	}
	if kind := fmt.Sprintf("%T", read); kind != want {
		t.Fatalf("%d reports read by %s, want %s", n, kind, want)
	}
	got, _ := model.step(truth, make([]float64, k))
	sum := new(big.Float).SetPrec(256)
	for _, gr := range g.List {
		low, scale := m.setForm(gr.Report.Bits.Ones())
		dot := 0.0
		for x := range k {
			if gr.Report.Bits.Bit(x) == 1 {
				dot += truth[x]
			} else {
				dot += low * truth[x]
			}
		}
		term := new(big.Float).SetPrec(256).SetFloat64(math.Log(dot))
		term.Add(term, new(big.Float).SetPrec(256).SetFloat64(scale))
		term.Mul(term, new(big.Float).SetPrec(256).SetInt64(int64(gr.Count)))
		sum.Add(sum, term)
	}
	exact, _ := sum.Quo(sum, new(big.Float).SetPrec(256).SetInt64(int64(n))).Float64()
	if math.Abs(got-exact) > 1e-13 {
		t.Errorf("%s: log-likelihood %.17g, exact sum %.17g: off by %.3g nats a report", want, got, exact, got-exact)
	}
}
