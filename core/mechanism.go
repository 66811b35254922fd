package core

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// A Report is one sanitised output. Mechanisms whose outputs are symbols
// (k-RR, geometric, Shokri, uRR, identity) report Symbol in 0..Outputs−1
// and leave Bits empty; RAPPOR and uRAP report a K-bit vector packed in
// Bits (see NewBits) and set Symbol to −1. A Report is comparable, so
// reports can be grouped in a map.
type Report struct {
	Symbol int
	Bits   Bits
}

// SymbolReport returns the report of symbol z.
func SymbolReport(z int) Report { return Report{Symbol: z} }

// BitsReport returns the report of a bit vector.
func BitsReport(b Bits) Report { return Report{Symbol: -1, Bits: b} }

// String formats r as in a reports file: the symbol's index or the bits as
// a string of 0s and 1s.
func (r Report) String() string {
	if r.Symbol >= 0 {
		return fmt.Sprint(r.Symbol)
	}
	return r.Bits.String()
}

// Bits is a bit vector, packed eight bits a byte (bit j in byte j/8 at
// position j%8) in a string so that it is comparable and immutable.
type Bits struct {
	n    int
	data string
}

// NewBits packs bits (each 0 or 1) into a Bits.
func NewBits(bits []byte) Bits {
	b := make([]byte, (len(bits)+7)/8)
	for j, v := range bits {
		if v != 0 {
			b[j/8] |= 1 << (j % 8)
		}
	}
	return Bits{n: len(bits), data: string(b)}
}

// ParseBits parses a string of '0' and '1' characters.
func ParseBits(s string) (Bits, error) {
	bits := make([]byte, len(s))
	for j := range len(s) {
		switch s[j] {
		case '0':
		case '1':
			bits[j] = 1
		default:
			return Bits{}, fmt.Errorf("core: bit vector %q: character %d is not 0 or 1", clip(s, 40), j+1)
		}
	}
	return NewBits(bits), nil
}

// Len returns the number of bits.
func (b Bits) Len() int { return b.n }

// Bit returns bit j as 0 or 1.
func (b Bits) Bit(j int) int {
	if j < 0 || j >= b.n {
		panic("core: bit index out of range")
	}
	return int(b.data[j/8]>>(j%8)) & 1
}

// Ones returns the number of bits set.
func (b Bits) Ones() int {
	n := 0
	for j := range b.n {
		n += b.Bit(j)
	}
	return n
}

// String returns the bits as '0' and '1' characters.
func (b Bits) String() string {
	var s strings.Builder
	s.Grow(b.n)
	for j := range b.n {
		s.WriteByte(byte('0' + b.Bit(j)))
	}
	return s.String()
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// A Channel has symbol outputs and gives their probabilities. Every
// mechanism with symbol outputs is a Channel.
type Channel interface {
	// Inputs returns the size K of the input alphabet.
	Inputs() int
	// Outputs returns the number of output symbols.
	Outputs() int
	// Prob returns P(z | x).
	Prob(x, z int) float64
}

// Matrix returns the channel as a dense Inputs×Outputs matrix,
// A[x][z] = P(z | x). It is meant for small alphabets; structured
// mechanisms offer matrix-free products instead.
func Matrix(c Channel) *mat.Dense {
	k, m := c.Inputs(), c.Outputs()
	a := mat.NewDense(k, m, nil)
	for x := range k {
		for z := range m {
			a.Set(x, z, c.Prob(x, z))
		}
	}
	return a
}

// checkEpsilon rejects privacy levels that are not positive and finite
// (NaN, ±Inf, ≤ 0), in the manner of dp's checks.CheckEpsilonStrict.
func checkEpsilon(eps float64) error {
	if !(eps > 0) || math.IsInf(eps, 0) {
		return fmt.Errorf("core: epsilon must be positive and finite, got %v", eps)
	}
	return nil
}

func checkSize(k int) error {
	if k < 2 {
		return fmt.Errorf("core: alphabet size must be at least 2, got %d", k)
	}
	return nil
}
