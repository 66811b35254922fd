package core

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// KindPUM names PUM (ULDP §5) in study files.
const KindPUM MechanismKind = "pum"

// pumKind is PUM (ULDP §5), registered in kindRegistry.
var pumKind = Kind{Name: KindPUM, Param: ParamEpsilon, Sensitive: true, Personal: true, Caps: CapUtility | CapPersonal,
	// A new PUM protects each user's home, the cell of most of their
	// check-ins (privmap grid -home).
	DefaultTags: []string{"home"},
	build: func(_ context.Context, s MechanismSpec, a Alphabet, _ func(int, float64)) (Mechanism, error) {
		m, err := NewPUM(a.Len(), s.Epsilon, s.Sensitive, s.Tags, s.Base)
		return m, err
	},
}

// PUM is the personalized ULDP mechanism with semantic tags of ULDP §5
// (restated in package core's doc, "Mechanisms"). Besides the common sensitive set
// X_S, user i has personal sensitive data X_S^(i) ⊆ X_N (a home cell, a
// workplace), each labelled with one of κ semantic tags ⊥_1..⊥_κ. The user
// first maps her datum with the deterministic pre-processing
//
//	Q_pre^(i)(x) = ⊥_k  if x ∈ X_S^(i) carries tag k,  x otherwise,
//
// then sanitises the result with Common(), a uRR or uRAP on the extended
// alphabet X ∪ {⊥_1..⊥_κ} whose sensitive set is X_S ∪ {⊥_1..⊥_κ}. Tag k
// is symbol K+k of the extended alphabet. The composition is
// (X_S ∪ X_S^(i), Y_P ∪ {⊥_1..⊥_κ}, ε)-ULDP for every user, and as Common
// is the same for everyone, the collector does not learn what is
// sensitive to whom: a personal datum is never reported as itself.
//
// Inputs, Likelihood and the reports are those of Common(), over the
// extended alphabet; the collector estimates the extended distribution r
// and returns tag k's mass to the cells with a background distribution
// π_k: p(x) = r(x) + Σ_k r(⊥_k) π_k(x).
type PUM struct {
	common Mechanism // the uRR or uRAP on the K+κ extended symbols
	// K is the size of the alphabet X of true data.
	K int
	// Tags names ⊥_1..⊥_κ, in the order of their symbols K, K+1, ….
	Tags []string
	sens []bool // X_S over the K true symbols
}

// PUM bases: the common mechanism on the extended alphabet.
const (
	BaseURR  = KindURR
	BaseURAP = KindURAP
)

// NewPUM returns the PUM on K symbols with common sensitive symbols
// sensitive (possibly none), the given tags and a uRR or uRAP (base) at
// level ε.
func NewPUM(k int, eps float64, sensitive []int, tags []string, base MechanismKind) (*PUM, error) {
	if err := checkSize(k); err != nil {
		return nil, err
	}
	if err := checkTags(tags); err != nil {
		return nil, err
	}
	sens := make([]bool, k)
	if len(sensitive) > 0 {
		var err error
		if _, sens, err = sensitiveSet(k, sensitive); err != nil {
			return nil, err
		}
	}
	ext := slices.Clone(sensitive)
	for t := range tags {
		ext = append(ext, k+t)
	}
	p := &PUM{K: k, Tags: slices.Clone(tags), sens: sens}
	var err error
	switch base {
	case BaseURR, "":
		p.common, err = NewURR(k+len(tags), eps, ext)
	case BaseURAP:
		p.common, err = NewURAP(k+len(tags), eps, ext)
	default:
		return nil, fmt.Errorf("core: pum base %q: want urr or urappor", base)
	}
	if err != nil {
		return nil, err
	}
	return p, nil
}

// checkTags rejects an empty tag list, empty names and repeated names.
func checkTags(tags []string) error {
	if len(tags) == 0 {
		return errors.New("core: pum needs at least one tag (e.g. \"tags\": [\"home\"])")
	}
	for i, t := range tags {
		if strings.TrimSpace(t) == "" {
			return fmt.Errorf("core: pum tag %d has no name", i+1)
		}
		if slices.Contains(tags[:i], t) {
			return fmt.Errorf("core: pum tag %q listed twice", t)
		}
	}
	return nil
}

var _ Personalized = (*PUM)(nil)

// Inputs returns K+κ, the size of the extended alphabet.
func (p *PUM) Inputs() int { return p.common.Inputs() }

// Likelihood sets dst[x] for the K+κ extended symbols as Common does.
func (p *PUM) Likelihood(dst []float64, r Report) ([]float64, float64) {
	return p.common.Likelihood(dst, r)
}

// Common returns the uRR or uRAP on the extended alphabet that draws the
// reports.
func (p *PUM) Common() Mechanism { return p.common }

// DataSymbols returns K, the size of the alphabet of true data.
func (p *PUM) DataSymbols() int { return p.K }

// TagNames returns Tags.
func (p *PUM) TagNames() []string { return p.Tags }

// Tag returns the extended symbol ⊥_k = K+k of tag name, or false.
func (p *PUM) Tag(name string) (int, bool) {
	k := slices.Index(p.Tags, name)
	return p.K + k, k >= 0
}

// Premap is Q_pre^(i): it returns the extended symbol that a user whose
// personal sensitive cells are personal (personal[k] for tag k, −1 for
// none) sanitises for datum x. A datum in the common X_S is protected
// anyway and kept (ULDP §5 takes X_S^(i) ⊆ X_N); when two tags name the
// same cell, the first wins.
func (p *PUM) Premap(x int, personal []int) int {
	if p.sens[x] {
		return x
	}
	for k, c := range personal {
		if c == x {
			return p.K + k
		}
	}
	return x
}
