package core

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/privmap/privmap/internal/testtool"
)

// BenchmarkOracles is issue 49's comparison with the libraries: each
// frequency oracle alone on K = 384 and 4,096 symbols (a Zipf truth of
// exponent 1.1), ε 0.5, 1, 2 and 4, 100,000 and 1,000,000 users,
// estimated by GIBU to its certified MLE (gap 1e−11) and, as the
// baseline in the same run, by the oracle's own support counting with
// Norm-Sub (Oracle: what multi-freq-ldpy and pure-LDP compute). It
// reports GIBU's time as a multiple of the baseline's ("x-oracle"), its
// steps, the peak heap of the estimate beyond the reports ("MiB"), and
// the total variation of each against the truth ("tv-gibu",
// "tv-oracle"). Select a part with -bench, e.g.
// 'BenchmarkOracles/olh/K=384/'.
func BenchmarkOracles(b *testing.B) {
	for _, kind := range []MechanismKind{KindOUE, KindOLH, KindBLH, KindSS, KindHR} {
		for _, k := range []int{384, 4096} {
			truth := zipf(k, 1.1)
			for _, eps := range []float64{0.5, 1, 2, 4} {
				for _, n := range []int{100000, 1000000} {
					b.Run(fmt.Sprintf("%s/K=%d/eps=%g/n=%d", kind, k, eps, n), func(b *testing.B) {
						benchOracle(b, kind, k, eps, n, truth)
					})
				}
			}
		}
	}
}

// zipf returns the distribution p_x ∝ (x+1)^{−s} on k symbols.
func zipf(k int, s float64) []float64 {
	p := make([]float64, k)
	sum := 0.0
	for x := range p {
		p[x] = math.Pow(float64(x+1), -s)
		sum += p[x]
	}
	for x := range p {
		p[x] /= sum
	}
	return p
}

func benchOracle(b *testing.B, kind MechanismKind, k int, eps float64, n int, truth []float64) {
	m, err := NewMechanism(MechanismSpec{ID: "m", Kind: kind, Epsilon: eps}, Alphabet{Kind: KindCategorical, Size: k})
	if err != nil {
		b.Fatal(err)
	}
	mechs := []Mechanism{m}
	g, err := SimulateGroups(context.Background(), rand.New(rand.NewPCG(uint64(k), uint64(n))), mechs, []int{n}, truth)
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	base, err := Oracle(mechs, g, nil, PostProj)
	if err != nil {
		b.Fatal(err)
	}
	baseline := time.Since(start)
	b.ResetTimer()
	for b.Loop() {
		stop := testtool.PeakHeap()
		start := time.Now()
		est, err := GIBU(context.Background(), mechs, g, nil, EMOptions{})
		took := time.Since(start)
		peak := stop()
		if err != nil {
			b.Fatal(err)
		}
		if !est.Converged {
			b.Fatalf("not certified: gap %v", est.Gap)
		}
		b.ReportMetric(float64(took)/float64(baseline), "x-oracle")
		b.ReportMetric(float64(est.Iterations), "steps")
		b.ReportMetric(peak, "MiB")
		b.ReportMetric(tv(est.Theta, truth), "tv-gibu")
		b.ReportMetric(tv(base, truth), "tv-oracle")
	}
}

// tv returns the total variation ½ Σ |p − q|.
func tv(p, q []float64) float64 {
	d := 0.0
	for i := range p {
		d += math.Abs(p[i] - q[i])
	}
	return d / 2
}
