package core

import (
	"fmt"

	"gonum.org/v1/gonum/floats"

	"github.com/privmap/privmap/internal/linalg"
)

// Post names a post-processing of the inversion estimators, whose raw
// estimates may leave the simplex (FW §5.1, CEM §3.2).
type Post string

// Post-processings.
const (
	// PostProj projects onto the simplex in Euclidean distance (Wang &
	// Carreira-Perpiñán 2013): Kairouz et al.'s projected decoder.
	PostProj Post = "proj"
	// PostNorm clips negative entries to 0 and renormalises: the
	// normalised decoder.
	PostNorm Post = "norm"
	// PostNone keeps the raw estimate, which sums to 1 but may have
	// negative entries: what FW Propositions 2 and 3 speak of.
	PostNone Post = "none"
)

// PostProcess returns θ post-processed by post (PostProj, PostNorm or PostNone) as
// a new slice.
func PostProcess(theta []float64, post Post) ([]float64, error) {
	out := make([]float64, len(theta))
	switch post {
	case PostProj, "":
		linalg.ProjectSimplex(out, theta)
	case PostNorm:
		return ClipNormalize(theta), nil
	case PostNone:
		copy(out, theta)
	default:
		return nil, fmt.Errorf("core: post-processing %q: want proj, norm or none", post)
	}
	return out, nil
}

// ClipNormalize clips negative entries of θ to 0 and renormalises; when
// nothing is positive it returns the uniform distribution.
func ClipNormalize(theta []float64) []float64 {
	out := make([]float64, len(theta))
	s := 0.0
	for i, v := range theta {
		if v > 0 {
			out[i] = v
			s += v
		}
	}
	if s == 0 {
		return fill(out, len(out), 1/float64(len(out)))
	}
	floats.Scale(1/s, out)
	return out
}
