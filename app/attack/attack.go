package attack

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/privmap/privmap/core"
)

// Radii are the distances, in km on a grid, whose shares of people
// located within them are stated: 0.5, 1 and 2 km.
var Radii = []float64{0.5, 1, 2}

// A Mechanism is one mechanism of the population and what an adversary
// learns from one of its reports.
type Mechanism struct {
	Spec  core.MechanismSpec
	Level string // the level in words: "ε = 1", "Q = 0.8 km"
	core.Exposure
	// NotMeasured says why the exposure was not measured (PUM); the
	// figures are then zero.
	NotMeasured string
}

// A Prior is the adversary's knowledge before any report: the data's own
// map, a uniform one, or a map the user gives.
type Prior struct {
	Name   string // "the data's map", "a uniform map", the file's name
	Masses []float64
}

// Uniform returns the uniform prior on k symbols.
func Uniform(k int) Prior {
	m := make([]float64, k)
	for i := range m {
		m[i] = 1
	}
	return Prior{Name: "a uniform map", Masses: m}
}

// Expose measures what an adversary with prior learns from one report of
// each of s's mechanisms, mechs as built (pipeline.BuildMechanisms).
// progress, when not nil, gets the fraction done; ctx cancels.
func Expose(ctx context.Context, s *core.Study, mechs []core.Mechanism, prior Prior, progress func(float64)) ([]Mechanism, error) {
	if len(prior.Masses) != s.Alphabet.Len() {
		return nil, fmt.Errorf("the prior (%s) has %d cells, the study's alphabet %d", prior.Name, len(prior.Masses), s.Alphabet.Len())
	}
	radii := Radii
	if s.Alphabet.Kind != core.KindGrid {
		radii = nil
	}
	out := make([]Mechanism, len(mechs))
	for j, m := range mechs {
		spec := s.Mechanisms[j]
		out[j] = Mechanism{Spec: spec, Level: levelWords(spec, s.Alphabet)}
		e, err := core.Expose(ctx, m, s.Alphabet, prior.Masses, radii, func(f float64) {
			if progress != nil {
				progress((float64(j) + f) / float64(len(mechs)))
			}
		})
		switch {
		case errors.Is(err, core.ErrPersonalExposure):
			out[j].NotMeasured = personalWhy
			continue
		case err != nil:
			return nil, fmt.Errorf("mechanism %s: %w", spec.ID, err)
		}
		out[j].Exposure = e
	}
	return out, nil
}

// personalWhy says why PUM's exposure is not measured and it is not
// swept.
const personalWhy = "its reports depend on each person's own tagged cells, which no map gives"

// levelWords writes a mechanism's level with its unit.
func levelWords(m core.MechanismSpec, a core.Alphabet) string {
	k, ok := m.Kind.Info()
	if !ok {
		return ""
	}
	switch {
	case k.Param == core.ParamEpsilon && k.GeoLevel:
		return fmt.Sprintf("ε = %.4g per %s", m.Epsilon, strings.TrimSuffix(unitOf(a), "s"))
	case k.Param == core.ParamEpsilon:
		return fmt.Sprintf("ε = %.4g", m.Epsilon)
	case k.Param == core.ParamQualityLoss:
		return fmt.Sprintf("Q = %.4g %s", m.QualityLoss, unitOf(a))
	}
	return "no noise"
}

// unitOf names the alphabet's distance unit: km, steps, or "".
func unitOf(a core.Alphabet) string {
	switch a.Kind {
	case core.KindGrid:
		return "km"
	case core.KindLinear:
		return "steps"
	}
	return ""
}
