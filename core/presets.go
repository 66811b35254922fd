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
	"cem": {Name: "cem", Title: "CEM §5.1: k-RR with ε = 0.1, 2, ln K and ∞, users 10:10:1:1", Build: cemPreset},
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
