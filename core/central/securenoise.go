package central

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"math/big"
)

// SecureGeometricMixture draws integer noise from the geometric mixture
// (PM Def. 4) for a release meant for publication: every draw comes from
// a cryptographic source and uses exact integer arithmetic on rational
// parameters, so no floating-point rounding biases the distribution or
// leaks the count it is added to (Mironov, CCS 2012). The per-step rates
// γ₁ = ε₁/Δ within the break-point c and γ₂ = ε₂/Δ beyond it are
// rationals; Break = 0 (or γ₁ = γ₂) is the two-sided geometric mechanism
// P(k) ∝ e^{−γ|k|}.
//
// The discrete Laplace draw is Canonne, Kamath and Steinke's exact
// sampler ("The discrete Gaussian for differential privacy", NeurIPS
// 2020, Algorithms 1–2: Bernoulli(e^{−γ}) by a series of Bernoulli(γ/k),
// then a geometric over a uniform remainder). The mixture is drawn by
// rejection from the discrete Laplace of the smaller rate γ, which
// dominates it: with γ₂ ≥ γ₁ a draw |k| > c is kept with probability
// e^{−(γ₂−γ₁)(|k|−c)}; with γ₂ < γ₁ a draw |k| ≤ c is kept with
// probability e^{−(γ₁−γ₂)|k|} and one beyond c with e^{−(γ₁−γ₂)c}. Each
// of these is an exact Bernoulli(e^{−r}) with r rational.
//
// It is safe for concurrent use if Src is (crypto/rand.Reader is).
type SecureGeometricMixture struct {
	Rate1, Rate2 *big.Rat // γ₁ = ε₁/Δ, γ₂ = ε₂/Δ, positive
	Break        int      // c ≥ 0
	// Src is the source of random bytes; nil for crypto/rand.Reader.
	Src io.Reader
}

// NewSecureGeometricMixture returns the exact sampler for ε₁, ε₂ and Δ
// given as decimal strings ("0.5", "1", "3/4"), read exactly.
func NewSecureGeometricMixture(eps1, eps2 string, c int, sensitivity string) (*SecureGeometricMixture, error) {
	rat := func(name, s string) (*big.Rat, error) {
		r, ok := new(big.Rat).SetString(s)
		if !ok || r.Sign() <= 0 {
			return nil, fmt.Errorf("core: %s %q: want a positive decimal or fraction", name, s)
		}
		// Bound the size of the fraction: its digits set the cost of every
		// Bernoulli draw.
		if r.Num().BitLen() > 256 || r.Denom().BitLen() > 256 {
			return nil, fmt.Errorf("core: %s %q has more digits than an exact release takes (256 bits)", name, s)
		}
		return r, nil
	}
	e1, err := rat("ε", eps1)
	if err != nil {
		return nil, err
	}
	e2, err := rat("ε", eps2)
	if err != nil {
		return nil, err
	}
	d, err := rat("sensitivity", sensitivity)
	if err != nil {
		return nil, err
	}
	if c < 0 || c > MaxBreak {
		return nil, fmt.Errorf("core: break-point %d: want 0 to %d", c, MaxBreak)
	}
	return &SecureGeometricMixture{Rate1: new(big.Rat).Quo(e1, d), Rate2: new(big.Rat).Quo(e2, d), Break: c}, nil
}

// MaxSecureTries bounds the proposals Rand makes for one noise. The
// rejection sampler accepts a proposal with a probability that shrinks
// as e^{−|ε₁−ε₂|·c/Δ}: at ε₁ = 700, ε₂ = 10⁻⁹ and c = 1 it would run
// for ever.
const MaxSecureTries = 1_000_000

// ErrSecureTries is Rand's error when MaxSecureTries proposals were all
// rejected.
var ErrSecureTries = fmt.Errorf("core: the exact sampler rejected %d proposals for one noise: ε within and beyond the break-point are too far apart for it (bring them closer, or the break-point nearer 0)", MaxSecureTries)

// Rand draws one noise, with at most MaxSecureTries proposals, stopping
// when ctx is done.
func (m *SecureGeometricMixture) Rand(ctx context.Context) (int64, error) {
	s := exactSampler{src: m.Src}
	if s.src == nil {
		s.src = rand.Reader
	}
	c := big.NewRat(int64(m.Break), 1)
	up := m.Rate2.Cmp(m.Rate1) >= 0 // the tail is steeper: propose from γ₁
	low, diff := m.Rate2, new(big.Rat).Sub(m.Rate1, m.Rate2)
	if up {
		low, diff = m.Rate1, new(big.Rat).Sub(m.Rate2, m.Rate1)
	}
	for try := 0; ; try++ {
		if try == MaxSecureTries {
			return 0, ErrSecureTries
		}
		if try%1024 == 1023 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
		k, err := s.discreteLaplace(low)
		if err != nil {
			return 0, err
		}
		ak := k
		if ak < 0 {
			ak = -ak
		}
		var r *big.Rat // the rate of the rejection: keep with e^{−r}
		switch {
		case up && ak <= int64(m.Break):
			return k, nil
		case up:
			r = new(big.Rat).Mul(diff, big.NewRat(ak-int64(m.Break), 1))
		case ak <= int64(m.Break):
			r = new(big.Rat).Mul(diff, big.NewRat(ak, 1))
		default:
			r = new(big.Rat).Mul(diff, c)
		}
		keep, err := s.bernoulliExp(r)
		if err != nil {
			return 0, err
		}
		if keep {
			return k, nil
		}
	}
}

// exactSampler draws exact discrete variates from a source of random bytes.
type exactSampler struct{ src io.Reader }

// uniform returns a uniform integer in [0, n).
func (s exactSampler) uniform(n *big.Int) (*big.Int, error) { return rand.Int(s.src, n) }

// bernoulli returns true with probability p, 0 ≤ p ≤ 1.
func (s exactSampler) bernoulli(p *big.Rat) (bool, error) {
	u, err := s.uniform(p.Denom())
	if err != nil {
		return false, err
	}
	return u.Cmp(p.Num()) < 0, nil
}

// bernoulliExp returns true with probability e^{−γ}, γ ≥ 0 rational
// (CKS Algorithm 1): for γ ≤ 1, draw Bernoulli(γ/k) for k = 1, 2, … until
// one fails; the k it fails at is odd with probability e^{−γ}. A larger
// γ is ⌊γ⌋ draws at γ = 1 and one at its fraction.
func (s exactSampler) bernoulliExp(g *big.Rat) (bool, error) {
	if g.Sign() < 0 {
		return false, errors.New("core: negative rate")
	}
	one := big.NewRat(1, 1)
	if g.Cmp(one) > 0 {
		whole := new(big.Int).Quo(g.Num(), g.Denom())
		for i := new(big.Int); i.Cmp(whole) < 0; i.Add(i, big.NewInt(1)) {
			ok, err := s.bernoulliExp(one)
			if err != nil || !ok {
				return false, err
			}
		}
		g = new(big.Rat).Sub(g, new(big.Rat).SetInt(whole))
	}
	for k := int64(1); ; k++ {
		ok, err := s.bernoulli(new(big.Rat).Quo(g, big.NewRat(k, 1)))
		if err != nil {
			return false, err
		}
		if !ok {
			return k%2 == 1, nil
		}
	}
}

// discreteLaplace draws from P(z) ∝ e^{−γ|z|} on the integers, γ = n/d
// (CKS Algorithm 2): X = U + d·V with U uniform on {0…d−1}, kept with
// probability e^{−U/d}, and V geometric, e^{−1} a step, is geometric of
// rate 1/d; Y = ⌊X/n⌋ is geometric of rate n/d; a sign makes it two-sided,
// −0 rejected so that 0 is not counted twice.
func (s exactSampler) discreteLaplace(g *big.Rat) (int64, error) {
	n, d := g.Num(), g.Denom()
	one := big.NewRat(1, 1)
	half := big.NewRat(1, 2)
	for {
		u, err := s.uniform(d)
		if err != nil {
			return 0, err
		}
		ok, err := s.bernoulliExp(new(big.Rat).SetFrac(u, d))
		if err != nil {
			return 0, err
		}
		if !ok {
			continue
		}
		v := new(big.Int)
		for {
			a, err := s.bernoulliExp(one)
			if err != nil {
				return 0, err
			}
			if !a {
				break
			}
			v.Add(v, big.NewInt(1))
		}
		x := new(big.Int).Add(u, new(big.Int).Mul(d, v))
		y := new(big.Int).Quo(x, n)
		neg, err := s.bernoulli(half)
		if err != nil {
			return 0, err
		}
		if neg && y.Sign() == 0 {
			continue
		}
		if !y.IsInt64() {
			return 0, errors.New("core: a noise beyond 2⁶³")
		}
		if neg {
			return -y.Int64(), nil
		}
		return y.Int64(), nil
	}
}
