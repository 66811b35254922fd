package emd

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats"

	"github.com/privmap/privmap/core"
)

// BenchmarkEMDGrid computes the exact earth mover's distance between two
// dense distributions on FW's 24×16 grid.
func BenchmarkEMDGrid(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	fw := core.Alphabet{Kind: core.KindGrid, Cols: 24, Rows: 16, CellKm: 0.5}
	p, q := randomDist(rng, 384, 0), randomDist(rng, 384, 0)
	for b.Loop() {
		if _, err := Compare(context.Background(), p, q, fw); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEMDCity is the exact EMD of issue 14's NYC scenario at its
// size: a truth on 850 of the 9,024 cells of a 94×96 grid of 0.5 km
// cells against a full-support estimate (the truth blurred by a planar
// channel, as a reconstruction is).
func BenchmarkEMDCity(b *testing.B) { benchCity(b, 0) }

// BenchmarkEMDCitySparse is BenchmarkEMDCity against an estimate kept on
// its 1,581 largest cells: the shape of GIBU's estimate of New York
// (850×1,581 cells), where issue 31 quotes POT's ot.emd2 at 0.22 s.
func BenchmarkEMDCitySparse(b *testing.B) { benchCity(b, 1581) }

func benchCity(b *testing.B, support int) {
	a := core.Alphabet{Kind: core.KindGrid, Cols: 94, Rows: 96, CellKm: 0.5}
	rng := rand.New(rand.NewPCG(7, 7))
	truth := make([]float64, a.Len())
	for range 850 {
		truth[rng.IntN(len(truth))] = rng.ExpFloat64()
	}
	floats.Scale(1/floats.Sum(truth), truth)
	blur, _ := core.NewPlanarGeometric(94, 96, 0.5, 1.2)
	est := blur.MulVecTo(nil, true, truth)
	for i := range est {
		est[i] = max(est[i], 0)
	}
	if support > 0 {
		cut := slices.Sorted(slices.Values(est))[len(est)-support]
		for i := range est {
			if est[i] < cut {
				est[i] = 0
			}
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compare(context.Background(), truth, est, a); err != nil {
			b.Fatal(err)
		}
	}
}
