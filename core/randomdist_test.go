package core

import "math/rand/v2"

func randomDist(rng *rand.Rand, k int, zeros float64) []float64 {
	p := make([]float64, k)
	s := 0.0
	for i := range p {
		if rng.Float64() >= zeros {
			p[i] = rng.ExpFloat64()
			s += p[i]
		}
	}
	if s == 0 {
		p[0], s = 1, 1
	}
	for i := range p {
		p[i] /= s
	}
	return p
}
