package core

import (
	"errors"
	"fmt"
)

// An Attribute is one factor of a cross-product alphabet: its name and
// the labels of its categories, in order.
type Attribute struct {
	Name   string   `json:"name"`
	Labels []string `json:"labels"`
}

// validateAttributes checks that the attributes multiply out to the size.
func (a Alphabet) validateAttributes() error {
	if a.Attributes == nil {
		return nil
	}
	size := 1
	for i, at := range a.Attributes {
		if at.Name == "" {
			return fmt.Errorf("core: attribute %d has no name", i+1)
		}
		if len(at.Labels) == 0 {
			return fmt.Errorf("core: attribute %q has no categories", at.Name)
		}
		// size ≤ a.Size before the product, so it cannot overflow.
		size *= len(at.Labels)
		if size > a.Size {
			return fmt.Errorf("core: attributes multiply out to more than the size %d", a.Size)
		}
	}
	if size != a.Size {
		return fmt.Errorf("core: attributes multiply out to %d categories, not the size %d", size, a.Size)
	}
	return nil
}

// ErrNoAttributes is returned by Marginal for an alphabet without
// attributes.
var ErrNoAttributes = errors.New("core: the alphabet has no attributes")

// Digits returns the category of every attribute in symbol x, into dst if
// it has room.
//
//	x = ((d₀·n₁ + d₁)·n₂ + d₂)·… , nⱼ the number of categories of attribute j
func (a Alphabet) Digits(dst []int, x int) []int {
	m := len(a.Attributes)
	dst = append(dst[:0], make([]int, m)...)
	for j := m - 1; j >= 0; j-- {
		n := len(a.Attributes[j].Labels)
		dst[j] = x % n
		x /= n
	}
	return dst
}

// Marginal returns the marginal of the distribution p over the attributes
// keep (indices into Attributes), summing out the others: entry
// Σᵢ dᵢ·Πⱼ₌ᵢ₊₁ nⱼ over the kept attributes in the order given, the first
// most significant. With keep = [r, c] the result is a table of
// len(Labels of r) rows and len(Labels of c) columns in row-major order.
// It panics if p is not of the alphabet's length or keep names an
// attribute twice or out of range.
func (a Alphabet) Marginal(p []float64, keep ...int) ([]float64, error) {
	if len(a.Attributes) == 0 {
		return nil, ErrNoAttributes
	}
	if len(p) != a.Len() {
		panic("core: Marginal: distribution length differs from the alphabet")
	}
	size := 1
	seen := make(map[int]bool, len(keep))
	for _, k := range keep {
		if k < 0 || k >= len(a.Attributes) || seen[k] {
			panic(fmt.Sprintf("core: Marginal: bad attribute index %d", k))
		}
		seen[k] = true
		size *= len(a.Attributes[k].Labels)
	}
	out := make([]float64, size)
	var d []int
	for x, v := range p {
		d = a.Digits(d, x)
		i := 0
		for _, k := range keep {
			i = i*len(a.Attributes[k].Labels) + d[k]
		}
		out[i] += v
	}
	return out, nil
}

// Attribute returns the index of the attribute called name, or −1.
func (a Alphabet) Attribute(name string) int {
	for i, at := range a.Attributes {
		if at.Name == name {
			return i
		}
	}
	return -1
}
