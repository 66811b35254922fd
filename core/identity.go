package core

import (
	"context"
	"math/rand/v2"
)

// KindIdentity names the identity, no noise (ε = ∞) in study files.
const KindIdentity MechanismKind = "identity"

// identityKind is the identity, no noise (ε = ∞), registered in kindRegistry.
var identityKind = Kind{TwoValued: true, Name: KindIdentity, Param: ParamNone,
	build: func(_ context.Context, _ MechanismSpec, a Alphabet, _ func(int, float64)) (Mechanism, error) {
		m, err := NewIdentity(a.Len())
		return m, err
	},
}

// Identity reports the datum unchanged: ε = ∞, no obfuscation (CEM §5.1).
type Identity struct{ K int }

// Identity's capabilities.
var (
	_ Channel  = (*Identity)(nil)
	_ Sampler  = (*Identity)(nil)
	_ operator = (*Identity)(nil)
)

// NewIdentity returns the identity mechanism on K symbols.
func NewIdentity(k int) (*Identity, error) {
	if k < 1 {
		return nil, checkSize(k)
	}
	return &Identity{K: k}, nil
}

// Inputs returns K.
func (m *Identity) Inputs() int { return m.K }

// Outputs returns K.
func (m *Identity) Outputs() int { return m.K }

// Prob returns 1 if z = x, else 0.
func (m *Identity) Prob(x, z int) float64 {
	if x == z {
		return 1
	}
	return 0
}

// Sample returns x.
func (m *Identity) Sample(_ *rand.Rand, x int) int { return x }

// Likelihood sets dst to the indicator of the reported symbol.
func (m *Identity) Likelihood(dst []float64, r Report) ([]float64, float64) {
	dst = fill(dst, m.K, 0)
	dst[r.Symbol] = 1
	return dst, 0
}

// MulVecTo sets dst = x: the identity channel as an operator. It
// allocates dst when it is nil.
func (m *Identity) MulVecTo(dst []float64, _ bool, x []float64) []float64 {
	if dst == nil {
		dst = make([]float64, m.K)
	}
	if len(x) != m.K || len(dst) != m.K {
		panic("core: slice length mismatch")
	}
	copy(dst, x)
	return dst
}

// squared returns the identity, its own square.
func (m *Identity) squared() operator { return m }

// channel returns the identity's likelihood columns, e_z
// (twoValuedChannel).
func (m *Identity) channel() twoValued { return twoValued{k: m.K, diff: 1} }
