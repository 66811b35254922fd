package core

import (
	"fmt"
	"strconv"
	"strings"
)

// A Report is one sanitised output. Mechanisms whose outputs are symbols
// (k-RR, geometric, Shokri, uRR, identity) report Symbol in 0..Outputs−1
// and leave Bits empty; RAPPOR, OUE and uRAP report a K-bit vector packed
// in Bits (see NewBits) and set Symbol to −1; local hashing (OLH, BLH)
// reports the seed of its hash in Seed and a hash value in Symbol, and is
// Hashed. A Report is comparable, so reports can be grouped in a map.
type Report struct {
	Symbol int
	Bits   Bits
	Seed   uint32
	Hashed bool
}

// SymbolReport returns the report of symbol z.
func SymbolReport(z int) Report { return Report{Symbol: z} }

// HashReport returns local hashing's report of value v of the hash
// seeded by seed.
func HashReport(seed uint32, v int) Report { return Report{Symbol: v, Seed: seed, Hashed: true} }

// BitsReport returns the report of a bit vector.
func BitsReport(b Bits) Report { return Report{Symbol: -1, Bits: b} }

// String formats r as in a reports file: the symbol's index, the bits as
// a string of 0s and 1s, or seed:value for local hashing.
func (r Report) String() string {
	if r.Hashed {
		return fmt.Sprintf("%d:%d", r.Seed, r.Symbol)
	}
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

// ParseReport parses a report as written in a reports file for m: a
// symbol index for symbol outputs, a string of 0s and 1s for bit-vector
// outputs, seed:value for local hashing (seed a 32-bit unsigned integer,
// value below the hash's range g). A Personalized mechanism's reports are
// its common one's.
func ParseReport(m Mechanism, s string) (Report, error) {
	m = reporter(m)
	if h, ok := m.(hasher); ok {
		return parseHashReport(s, h.values())
	}
	if b, ok := m.(BitSampler); ok {
		bits, err := ParseBits(s)
		if err != nil {
			return Report{}, err
		}
		if bits.Len() != b.Bits() {
			return Report{}, fmt.Errorf("core: report %q has %d bits, want %d", clip(s, 40), bits.Len(), b.Bits())
		}
		if c, ok := m.(reportChecker); ok {
			if err := c.checkReport(bits); err != nil {
				return Report{}, err
			}
		}
		return BitsReport(bits), nil
	}
	var z int
	if _, err := fmt.Sscan(s, &z); err != nil || fmt.Sprint(z) != s {
		return Report{}, fmt.Errorf("core: report %q is not a symbol index", clip(s, 40))
	}
	if c, ok := m.(Channel); ok && (z < 0 || z >= c.Outputs()) {
		return Report{}, fmt.Errorf("core: report %d out of range 0..%d", z, c.Outputs()-1)
	}
	return SymbolReport(z), nil
}

// parseHashReport parses seed:value, value in 0..g−1.
func parseHashReport(s string, g int) (Report, error) {
	a, b, ok := strings.Cut(s, ":")
	seed, err1 := strconv.ParseUint(a, 10, 32)
	v, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || strconv.Itoa(v) != b {
		return Report{}, fmt.Errorf("core: report %q is not seed:value, a hash's seed (0..4294967295) and value", clip(s, 40))
	}
	if v < 0 || v >= g {
		return Report{}, fmt.Errorf("core: report %q: hash value %d out of range 0..%d", clip(s, 40), v, g-1)
	}
	return HashReport(uint32(seed), v), nil
}
