package core

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// A Preset is a named population of mechanisms from a paper's
// experiments, built for an alphabet.
type Preset struct {
	Name, Title string
	// Build returns the mechanisms for alphabet a, or an error when the
	// preset does not apply to it.
	Build func(a Alphabet) ([]MechanismSpec, error)
}

var presets = map[string]Preset{
	"cem":        {Name: "cem", Title: "CEM §5.1: k-RR with ε = 0.1, 2, ln K and ∞, users 10:10:1:1", Build: cemPreset},
	"fw-t4-high": {Name: "fw-t4-high", Title: "FW Table 4, high privacy: 10 RAPPOR, ε 0.1–1.0", Build: fwRAPPOR(fwT4High)},
	"fw-t4-low":  {Name: "fw-t4-low", Title: "FW Table 4, low privacy: 10 RAPPOR, ε 1–10", Build: fwRAPPOR(fwT4Low)},
	"fw-t5":      {Name: "fw-t5", Title: "FW Table 5: 10 k-RR (linear ε 3.00–8.08, planar 3.05–8.20)", Build: fwT5},
	"fw-t6":      {Name: "fw-t6", Title: "FW Table 6: 10 geometric (linear ε 0.020–0.869 per step, planar 0.190–3.124 per km)", Build: fwT6},
	"fw-t7":      {Name: "fw-t7", Title: "FW Table 7: 5 geometric and 5 k-RR", Build: fwT7},
	"fw-t8":      {Name: "fw-t8", Title: "FW Table 8: 10 Shokri (linear Q 1–28 steps, planar 0.3–3.0 km)", Build: fwT8},
	"oracles":    {Name: "oracles", Title: "Deployed frequency oracles: k-RR, OUE, OLH at ε 1 and 4, with 2 geometric on a map", Build: oraclesPreset},
}

// oracleLevels are the oracles preset's ε, a high and a low privacy
// level of Wang et al.'s comparisons (USENIX Security 2017, Fig. 2).
var oracleLevels = []float64{1, 4}

// oraclesPreset is a free-will population of the frequency oracles that
// deployed systems chose (k-RR, OUE, OLH at ε 1 and 4), with on a grid
// or a line two geometric mechanisms at FW Table 6's middle and low
// privacy levels: FW's free-will setting with these kinds added.
func oraclesPreset(a Alphabet) ([]MechanismSpec, error) {
	var out []MechanismSpec
	for _, kind := range []MechanismKind{KindKRR, KindOUE, KindOLH} {
		out = append(out, fwSpecs(kind, string(kind), oracleLevels)...)
	}
	if a.Kind == KindGrid || a.Kind == KindLinear {
		geo, _ := fwGeo(a, []float64{fwT6Linear[4], fwT6Linear[8]}, []float64{fwT6Planar[4], fwT6Planar[8]})
		out = append(out, geo...)
	}
	return out, nil
}

// The privacy levels of FW Appendix A, Tables 4–8.
var (
	fwT4High      = []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0}
	fwT4Low       = []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	fwT5Linear    = []float64{3.00, 3.54, 3.96, 4.34, 4.69, 5.06, 5.46, 5.93, 6.60, 8.08}
	fwT5Planar    = []float64{3.05, 4.19, 4.81, 5.27, 5.67, 6.05, 6.44, 6.87, 7.40, 8.20}
	fwT6Linear    = []float64{0.020, 0.025, 0.031, 0.039, 0.050, 0.065, 0.088, 0.131, 0.236, 0.869}
	fwT6Planar    = []float64{0.190, 0.244, 0.310, 0.390, 0.493, 0.632, 0.835, 1.159, 1.762, 3.124}
	fwT8Linear    = []float64{1.0, 4.0, 7.0, 10.0, 13.0, 16.0, 19.0, 22.0, 24.5, 28.0}
	fwT8PlanarKm  = []float64{0.3, 0.6, 0.9, 1.2, 1.5, 1.8, 2.1, 2.4, 2.7, 3.0}
	fwT7GeoLinear = fwT6Linear[5:]
	fwT7GeoPlanar = fwT6Planar[5:]
	fwT7KRRLinear = fwT5Linear[:5]
	fwT7KRRPlanar = fwT5Planar[:5]
)

// fwSpecs returns one mechanism of kind per level, with equal shares (FW
// §8 divides the users equally), identified as prefix-level.
func fwSpecs(kind MechanismKind, prefix string, levels []float64) []MechanismSpec {
	out := make([]MechanismSpec, len(levels))
	for i, v := range levels {
		out[i] = MechanismSpec{ID: fmt.Sprintf("%s-%g", prefix, v), Kind: kind}
		info, _ := kind.Info()
		info.SetLevel(&out[i], v)
	}
	return out
}

func fwRAPPOR(levels []float64) func(Alphabet) ([]MechanismSpec, error) {
	return func(Alphabet) ([]MechanismSpec, error) { return fwSpecs(KindRAPPOR, "rappor", levels), nil }
}

func fwT5(a Alphabet) ([]MechanismSpec, error) {
	if a.Kind == KindGrid {
		return fwSpecs(KindKRR, "krr", fwT5Planar), nil
	}
	return fwSpecs(KindKRR, "krr", fwT5Linear), nil
}

// fwGeo returns the linear or planar geometric mechanisms for a.
func fwGeo(a Alphabet, linear, planar []float64) ([]MechanismSpec, error) {
	switch a.Kind {
	case KindGrid:
		return fwSpecs(KindPlanar, "planar", planar), nil
	case KindLinear:
		return fwSpecs(KindGeo, "geo", linear), nil
	}
	return nil, fmt.Errorf("core: geometric mechanisms need a linear or grid alphabet, not %s", a.Kind)
}

func fwT6(a Alphabet) ([]MechanismSpec, error) { return fwGeo(a, fwT6Linear, fwT6Planar) }

func fwT7(a Alphabet) ([]MechanismSpec, error) {
	geo, err := fwGeo(a, fwT7GeoLinear, fwT7GeoPlanar)
	if err != nil {
		return nil, err
	}
	krr := fwT7KRRLinear
	if a.Kind == KindGrid {
		krr = fwT7KRRPlanar
	}
	return append(geo, fwSpecs(KindKRR, "krr", krr)...), nil
}

func fwT8(a Alphabet) ([]MechanismSpec, error) {
	switch a.Kind {
	case KindGrid:
		return fwSpecs(KindShokri, "shokri", fwT8PlanarKm), nil
	case KindLinear:
		return fwSpecs(KindShokri, "shokri", fwT8Linear), nil
	}
	return nil, fmt.Errorf("core: Shokri's mechanism needs a linear or grid alphabet, not %s", a.Kind)
}

// Presets returns the presets sorted by name.
func Presets() []Preset {
	out := make([]Preset, 0, len(presets))
	for _, p := range presets {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// PresetMechanisms returns the mechanisms of the preset called name for
// alphabet a.
func PresetMechanisms(name string, a Alphabet) ([]MechanismSpec, error) {
	p, ok := presets[strings.ToLower(name)]
	if !ok {
		names := make([]string, 0, len(presets))
		for _, p := range Presets() {
			names = append(names, p.Name)
		}
		return nil, fmt.Errorf("core: unknown preset %q (want %s)", name, strings.Join(names, ", "))
	}
	if err := a.Validate(); err != nil {
		return nil, err
	}
	return p.Build(a)
}

// cemPreset is the population of CEM §5.1: k-RR with ε = 0.1 (high
// privacy), 2 (middle), ln K (low: the true value is sent with
// probability ½) and ∞ (no obfuscation, the identity), in the ratio
// N₁:N₂:N₃:N₄ = 10:10:1:1 of CEM Fig. 6.
func cemPreset(a Alphabet) ([]MechanismSpec, error) {
	k := a.Len()
	if k < 3 {
		return nil, fmt.Errorf("core: the cem preset needs K ≥ 3 so that ln K > 0 is a third level, got K = %d", k)
	}
	share := func(n float64) *float64 { v := n / 22; return &v }
	return []MechanismSpec{
		{ID: "krr-0.1", Kind: KindKRR, Epsilon: 0.1, Share: share(10)},
		{ID: "krr-2", Kind: KindKRR, Epsilon: 2, Share: share(10)},
		{ID: "krr-lnK", Kind: KindKRR, Epsilon: math.Log(float64(k)), Share: share(1)},
		{ID: "identity", Kind: KindIdentity, Share: share(1)},
	}, nil
}
