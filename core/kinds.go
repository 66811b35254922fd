package core

import (
	"context"
	"fmt"
	"slices"
)

// MechanismKind names the kind of a mechanism in a study file.
type MechanismKind string

// A Kind is one kind of local mechanism: what a study file, the
// population editor, the cost model and Applicable need to know of it.
// Each kind's file declares its Kind next to its mechanism (krrKind in
// krr.go, …), and kindRegistry lists them; adding a kind is its file and
// one line there (docs/ARCHITECTURE.md, "Adding to privmap").
type Kind struct {
	// Name is the kind's name in study files ("krr").
	Name MechanismKind
	// Alphabets lists the alphabets the kind works on; nil for any.
	Alphabets []AlphabetKind
	// Param is the privacy parameter it takes.
	Param Param
	// Sensitive: it takes a set of sensitive symbols X_S (ULDP §2.3).
	Sensitive bool
	// Personal: each user first maps her personal sensitive data to
	// semantic tags (MechanismSpec.Tags, Base; ULDP §5); DefaultTags are
	// the tags a new mechanism of the kind protects.
	Personal    bool
	DefaultTags []string
	// Caps are the capabilities of its reports that estimators ask for
	// (Estimator.Needs, Estimator.Refuses).
	Caps Caps
	// GeoLevel: its ε is a nominal level of geo-indistinguishability, per
	// unit of the alphabet's distance (km on a grid, a step on a line),
	// which the audit of the built channel should give back.
	GeoLevel bool
	// Convolution: its channel is applied by FFT convolution, N log N a
	// product on the grid's torus, rather than in O(K).
	Convolution bool
	// Solved: it is built by solving a linear program over K² variables,
	// whose time grows as K³.
	Solved bool
	// Hashes: it takes g, the range of its hash (MechanismSpec.G; OLH).
	Hashes bool
	// TwoValued: its channel is off·11ᵀ + diff·I (k-RR, the identity),
	// which corrected EM's bias correction takes in O(K²) whatever the
	// number of reports (cem_bias.go).
	TwoValued bool
	// outputs, when not nil, returns the number of output symbols of
	// the kind's channel on k symbols when it is not k (the Hadamard
	// response's K'), which the estimators on one channel matrix ask
	// (Applicable).
	outputs func(k int) int
	// build makes the mechanism of a validated spec on alphabet a.
	build func(ctx context.Context, spec MechanismSpec, a Alphabet, progress func(iter int, gap float64)) (Mechanism, error)
}

// Param is the privacy parameter a kind takes.
type Param int

// Privacy parameters.
const (
	// ParamNone: the kind takes none (the identity, ε = ∞).
	ParamNone Param = iota
	// ParamEpsilon: ε, MechanismSpec.Epsilon.
	ParamEpsilon
	// ParamQualityLoss: Shokri's bound Q on the expected distance,
	// MechanismSpec.QualityLoss.
	ParamQualityLoss
)

// Caps are capabilities of a kind's reports, as a bit set.
type Caps uint

// Capabilities of a kind's reports.
const (
	// CapBits: reports are K-bit vectors (a BitSampler), not symbols:
	// independent bits (a BitChannel) or subset selection's ω-subsets.
	CapBits Caps = 1 << iota
	// CapRAPPOR: basic one-time RAPPOR, every bit of a one-hot vector
	// flipped with one probability (FW eq. 12), as [RAP]'s estimator
	// needs.
	CapRAPPOR
	// CapUtility: utility-optimized, with an empirical estimator affine
	// in its reports' frequencies (ULDP §4), as the uldp estimator needs.
	CapUtility
	// CapPersonal: reports live on an alphabet extended by semantic tags
	// (PUM, ULDP §5); only the uldp estimator takes them.
	CapPersonal
	// CapHashed: reports are a hash's seed and a value (local hashing,
	// a hasher): no channel matrix over a common output alphabet.
	CapHashed
	// CapOracle: a pure frequency oracle (k-RR, RAPPOR, OUE, OLH, BLH,
	// SS, HR), whose support counting the oracle estimators take
	// (supporter, oracle.go).
	CapOracle
	// capLast is the last capability.
	capLast = CapOracle
)

// kindRegistry lists the kinds, in the order of the package doc's
// "Mechanisms", in which front ends offer them.
var kindRegistry = []*Kind{&krrKind, &rapporKind, &oueKind, &olhKind, &blhKind, &ssKind, &hrKind, &geometricKind, &planarKind, &shokriKind,
	&urrKind, &urapKind, &pumKind, &identityKind}

// Kinds returns the mechanism kinds, in the order of the package doc's
// "Mechanisms".
func Kinds() []Kind {
	out := make([]Kind, len(kindRegistry))
	for i, k := range kindRegistry {
		out[i] = *k
	}
	return out
}

// Info returns the kind named k, and whether there is one.
func (k MechanismKind) Info() (Kind, bool) {
	i := slices.IndexFunc(kindRegistry, func(x *Kind) bool { return x.Name == k })
	if i < 0 {
		return Kind{}, false
	}
	return *kindRegistry[i], true
}

// TakesSensitive reports whether mechanisms of kind k take a set of
// sensitive symbols X_S (uRR, uRAP and PUM).
func (k MechanismKind) TakesSensitive() bool {
	info, _ := k.Info()
	return info.Sensitive
}

// kindNames lists the kinds' names joined by ", ", the last two by " or ".
func kindNames() string {
	names := make([]MechanismKind, len(kindRegistry))
	for i, k := range kindRegistry {
		names[i] = k.Name
	}
	return joinLast(names, ", ", " or ")
}

// Level returns the value of the kind's privacy parameter in m: its ε,
// Shokri's Q, or 0 for none.
func (k Kind) Level(m MechanismSpec) float64 {
	switch k.Param {
	case ParamEpsilon:
		return m.Epsilon
	case ParamQualityLoss:
		return m.QualityLoss
	}
	return 0
}

// SetLevel sets the kind's privacy parameter of m to v, and the others
// to zero.
func (k Kind) SetLevel(m *MechanismSpec, v float64) {
	m.Epsilon, m.QualityLoss = 0, 0
	switch k.Param {
	case ParamEpsilon:
		m.Epsilon = v
	case ParamQualityLoss:
		m.QualityLoss = v
	}
}

// LevelName names the kind's privacy parameter with its units on
// alphabet a: "ε", "ε per km" (a geo-indistinguishability level on a
// grid), "ε per step", "Q (km)" (Shokri's expected distance), or "" for
// none.
func (k Kind) LevelName(a Alphabet) string {
	unit := "step"
	if a.Kind == KindGrid {
		unit = "km"
	}
	switch {
	case k.Param == ParamQualityLoss:
		return fmt.Sprintf("Q (%s)", unit)
	case k.Param == ParamEpsilon && k.GeoLevel:
		return "ε per " + unit
	case k.Param == ParamEpsilon:
		return "ε"
	}
	return ""
}

// outputsOn returns the number of outputs of the kind's channel on k
// symbols: k, unless the kind says otherwise.
func (k Kind) outputsOn(n int) int {
	if k.outputs != nil {
		return k.outputs(n)
	}
	return n
}
