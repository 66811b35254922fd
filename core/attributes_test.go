package core

import (
	"errors"
	"slices"
	"testing"
)

func TestAlphabetAttributes(t *testing.T) {
	a := Alphabet{Kind: KindCategorical, Size: 12, Attributes: []Attribute{
		{Name: "age", Labels: []string{"young", "old"}},
		{Name: "sex", Labels: []string{"m", "f"}},
		{Name: "income", Labels: []string{"lo", "mid", "hi"}},
	}}
	if err := a.Validate(); err != nil {
		t.Fatal(err)
	}
	// Symbol 11 = (1·2 + 1)·3 + 2.
	if got := a.Digits(nil, 11); !slices.Equal(got, []int{1, 1, 2}) {
		t.Errorf("Digits(11) = %v, want [1 1 2]", got)
	}
	if got := a.Digits(nil, 4); !slices.Equal(got, []int{0, 1, 1}) {
		t.Errorf("Digits(4) = %v, want [0 1 1]", got)
	}
	p := make([]float64, 12)
	for i := range p {
		p[i] = float64(i)
	}
	// Rows income, columns age: entry income·2 + age sums over sex.
	m, err := a.Marginal(p, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	// income lo: age young {0, 3}, old {6, 9}; mid {1, 4}, {7, 10}; hi {2, 5}, {8, 11}.
	if want := []float64{3, 15, 5, 17, 7, 19}; !slices.Equal(m, want) {
		t.Errorf("Marginal(income, age) = %v, want %v", m, want)
	}
	if i := a.Attribute("sex"); i != 1 {
		t.Errorf("Attribute(sex) = %d, want 1", i)
	}
	if _, err := (Alphabet{Kind: KindCategorical, Size: 3}).Marginal([]float64{1, 2, 3}, 0); !errors.Is(err, ErrNoAttributes) {
		t.Errorf("Marginal without attributes: err = %v", err)
	}
	for _, bad := range []Alphabet{
		{Kind: KindCategorical, Size: 5, Attributes: a.Attributes},
		{Kind: KindCategorical, Size: 2, Attributes: a.Attributes},
		{Kind: KindCategorical, Size: 2, Attributes: []Attribute{{Name: "x"}}},
		{Kind: KindCategorical, Size: 2, Attributes: []Attribute{{Labels: []string{"a", "b"}}}},
	} {
		if err := bad.Validate(); err == nil {
			t.Errorf("Validate(%+v) = nil, want an error", bad)
		}
	}
}
