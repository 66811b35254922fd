package census

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/privmap/privmap/core"
)

// An Attr says how one attribute of a record becomes a category. Exactly
// one of three rules applies:
//
//   - Edges bins a numeric attribute: category i holds the values v with
//     Edges[i] ≤ v < Edges[i+1], the last one every v ≥ Edges[n−1]. A
//     value below Edges[0] is an error. Bins are ordered.
//   - Values fixes the categories of a coded or categorical attribute:
//     category i is any raw value in Values[i]; another value is an error.
//   - Neither: every distinct value (after Merge) is a category of its
//     own, sorted as numbers when all values are numbers (and then
//     ordered), else as text.
type Attr struct {
	// Name names the attribute in alphabets and figures, e.g. "age".
	Name string
	// Column is the file's column it reads, matched regardless of case.
	Column string
	Edges  []float64
	Values [][]string
	// Labels names the categories of Edges or Values; when nil, bins are
	// named "lo–hi" and "lo+" and fixed categories by their values.
	Labels []string
	// Ordered marks fixed categories that follow an order, such as coded
	// age bins, so that the attribute alone can make a linear alphabet.
	Ordered bool
	// Merge renames raw values of an attribute with neither Edges nor
	// Values, so that several values make one category.
	Merge map[string]string
}

// Errors that a *geo.ParseError from Tabulate wraps.
var (
	ErrNotNumber  = errors.New("not a number")
	ErrBelowEdges = errors.New("below the first bin edge")
	ErrUnknownVal = errors.New("value of no category")
)

// Validate reports the first problem with a.
func (a Attr) Validate() error {
	switch {
	case a.Name == "" || a.Column == "":
		return errors.New("census: attribute needs a name and a column")
	case a.Edges != nil && a.Values != nil:
		return fmt.Errorf("census: attribute %s has both bin edges and fixed values", a.Name)
	case a.Merge != nil && (a.Edges != nil || a.Values != nil):
		return fmt.Errorf("census: attribute %s merges values but has fixed categories", a.Name)
	}
	if err := a.validateEdges(); err != nil {
		return err
	}
	if err := a.validateValues(); err != nil {
		return err
	}
	if n := a.fixed(); a.Labels != nil && len(a.Labels) != n {
		return fmt.Errorf("census: %d labels for the %d categories of %s", len(a.Labels), n, a.Name)
	}
	return nil
}

func (a Attr) validateEdges() error {
	if a.Edges == nil {
		return nil
	}
	if len(a.Edges) == 0 {
		return fmt.Errorf("census: attribute %s has no bin edges", a.Name)
	}
	for i, e := range a.Edges {
		if e != e || i > 0 && !(e > a.Edges[i-1]) {
			return fmt.Errorf("census: bin edges of %s must increase, got %v", a.Name, a.Edges)
		}
	}
	return nil
}

func (a Attr) validateValues() error {
	seen := map[string]bool{}
	for i, vs := range a.Values {
		if len(vs) == 0 {
			return fmt.Errorf("census: category %d of %s has no values", i+1, a.Name)
		}
		for _, v := range vs {
			if seen[v] {
				return fmt.Errorf("census: value %q of %s is in two categories", v, a.Name)
			}
			seen[v] = true
		}
	}
	return nil
}

// fixed returns the number of categories fixed by Edges or Values, or 0.
func (a Attr) fixed() int {
	if a.Edges != nil {
		return len(a.Edges)
	}
	return len(a.Values)
}

// labels returns the labels of fixed categories.
func (a Attr) labels() []string {
	if a.Labels != nil {
		return a.Labels
	}
	out := make([]string, a.fixed())
	for i := range out {
		if a.Edges != nil {
			out[i] = binLabel(a.Edges, i)
		} else {
			out[i] = strings.Join(a.Values[i], "|")
		}
	}
	return out
}

// binLabel names bin i: "lo–hi" with hi the last integer below the next
// edge when the edges are integers, "lo+" for the last.
func binLabel(e []float64, i int) string {
	f := func(v float64) string {
		if v == math.Trunc(v) && math.Abs(v) < 1e15 {
			return strconv.FormatFloat(v, 'f', 0, 64)
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	if i == len(e)-1 {
		return f(e[i]) + "+"
	}
	lo, hi := e[i], e[i+1]
	if lo == float64(int64(lo)) && hi == float64(int64(hi)) {
		if hi-1 == lo {
			return f(lo)
		}
		return f(lo) + "–" + f(hi-1)
	}
	return "[" + f(lo) + ", " + f(hi) + ")"
}

// bin returns the bin of v.
func (a Attr) bin(raw string) (int, error) {
	v, err := core.ParseDecimal(raw)
	if err != nil || v != v {
		return 0, fmt.Errorf("%s %q: %w", a.Name, clip(raw), ErrNotNumber)
	}
	i, found := slices.BinarySearch(a.Edges, v)
	if !found {
		i--
	}
	if i < 0 {
		return 0, fmt.Errorf("%s %v: %w %v", a.Name, v, ErrBelowEdges, a.Edges[0])
	}
	return i, nil
}

// Presets returns the preset attributes of format f by name: age, sex,
// income and marital, which together are CEM Table 2's mapping for
// Census1990 and its analogue for Adult (see CEMTable2).
func Presets(f Format) map[string]Attr {
	switch f {
	case Census1990:
		return census1990Presets()
	case Adult:
		return adultPresets()
	}
	return nil
}

// CEMTable2 returns the attributes of CEM Table 2 — age, sex, income and
// marital status — for format f, in that order.
//
// For Census1990 they are the recoded columns dAge (8 categories), iSex
// (2), dIncome1 (5, wages and salary) and iMarital (5): 400 categories,
// exactly the paper's. Adult's people are 17 or older and its income is a
// class, so its analogue keeps CEM's age bins from 17 on (17–19, 20–29,
// 30–39, 40–49, 50–64, 65+), sex, the class (≤50K, >50K) and marital
// status merged onto the census's five codes: the three married-* values
// make "now married (not separated)", as the census counts a spouse absent
// for reasons other than separation as married. 6 × 2 × 2 × 5 = 120
// categories.
func CEMTable2(f Format) []Attr {
	p := Presets(f)
	return []Attr{p["age"], p["sex"], p["income"], p["marital"]}
}

// coded returns categories {"0"}, {"1"}, … {"n−1"}.
func coded(n int) [][]string {
	out := make([][]string, n)
	for i := range out {
		out[i] = []string{strconv.Itoa(i)}
	}
	return out
}

var maritalLabels = []string{"married", "widowed", "divorced", "separated", "never married"}

func census1990Presets() map[string]Attr {
	return map[string]Attr{
		"age": {Name: "age", Column: "dAge", Values: coded(8), Ordered: true,
			Labels: []string{"0", "1–12", "13–19", "20–29", "30–39", "40–49", "50–64", "65+"}},
		"sex": {Name: "sex", Column: "iSex", Values: coded(2), Labels: []string{"male", "female"}},
		"income": {Name: "income", Column: "dIncome1", Values: coded(5), Ordered: true,
			Labels: []string{"$0", "$1–14,999", "$15,000–29,999", "$30,000–59,999", "$60,000+"}},
		"marital": {Name: "marital", Column: "iMarital", Values: coded(5), Labels: maritalLabels},
	}
}

func adultPresets() map[string]Attr {
	return map[string]Attr{
		"age": {Name: "age", Column: "age", Edges: []float64{17, 20, 30, 40, 50, 65}},
		"sex": {Name: "sex", Column: "sex", Values: [][]string{{"Male"}, {"Female"}}, Labels: []string{"male", "female"}},
		"income": {Name: "income", Column: "income", Values: [][]string{{"<=50K"}, {">50K"}}, Ordered: true,
			Labels: []string{"≤$50K", ">$50K"}},
		"marital": {Name: "marital", Column: "marital-status", Values: [][]string{
			{"Married-civ-spouse", "Married-AF-spouse", "Married-spouse-absent"},
			{"Widowed"}, {"Divorced"}, {"Separated"}, {"Never-married"},
		}, Labels: maritalLabels},
	}
}

// Lookup returns the attribute a user names: a preset of format f (age,
// sex, income, marital), or else a column of the file, matched regardless
// of case, with every distinct value a category. columns are the file's.
func Lookup(f Format, columns []string, name string) (Attr, error) {
	if a, ok := Presets(f)[strings.ToLower(name)]; ok {
		return a, nil
	}
	for _, c := range columns {
		if strings.EqualFold(c, name) {
			return Attr{Name: c, Column: c}, nil
		}
	}
	presets := slices.Sorted(maps.Keys(Presets(f)))
	return Attr{}, fmt.Errorf("census: %s has no attribute %q (presets: %s; columns: %s)",
		f, name, strings.Join(presets, ", "), strings.Join(columns, ", "))
}

// Attributes looks up every comma-separated name of list (see Lookup).
func Attributes(f Format, columns []string, list string) ([]Attr, error) {
	var out []Attr
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		a, err := Lookup(f, columns, name)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	if len(out) == 0 {
		return nil, errors.New("census: no attributes chosen")
	}
	return out, nil
}
