package core

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// ParseSymbols reads a list of distinct symbols of an alphabet of k, such
// as "5, 17, 20-25": whole numbers and lo-hi ranges separated by commas,
// spaces, semicolons or lines, as a study's sensitive symbols are typed.
// Every symbol must lie in 0..k−1 and be listed once; a range is checked
// before it is expanded, so that no list makes more than k symbols.
func ParseSymbols(s string, k int) ([]int, error) {
	var out []int
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == ';' || r == '\t' || r == '\n' || r == '\r' }) {
		lo, hi, isRange := strings.Cut(f, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, fmt.Errorf("symbol %q is not a whole number", f)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("range %q is not lo-hi", f)
			}
		}
		if a < 0 || b >= k {
			return nil, fmt.Errorf("%s is outside the alphabet of %d symbols (0-%d)", f, k, k-1)
		}
		if len(out)+b-a >= k {
			return nil, fmt.Errorf("the list names more than the %d symbols of the alphabet: some are listed twice", k)
		}
		for x := a; x <= b; x++ {
			out = append(out, x)
		}
	}
	return out, distinctSymbols(out)
}

// distinctSymbols returns an error naming a symbol listed twice.
func distinctSymbols(xs []int) error {
	s := slices.Clone(xs)
	slices.Sort(s)
	for i := 1; i < len(s); i++ {
		if s[i] == s[i-1] {
			return fmt.Errorf("symbol %d is listed twice", s[i])
		}
	}
	return nil
}

// FormatSymbols writes symbols as ParseSymbols reads them, with runs of
// three or more as ranges.
func FormatSymbols(xs []int) string {
	var parts []string
	for i := 0; i < len(xs); {
		j := i
		for j+1 < len(xs) && xs[j+1] == xs[j]+1 {
			j++
		}
		if j > i+1 {
			parts = append(parts, fmt.Sprintf("%d-%d", xs[i], xs[j]))
		} else {
			for k := i; k <= j; k++ {
				parts = append(parts, strconv.Itoa(xs[k]))
			}
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// ReadSymbols reads a list of symbols of an alphabet of k from a file: a
// CSV whose header has a cell column (a distribution file, say; rows of
// probability 0 are left out), read as the distribution and reports files
// are (readRecords), or what ParseSymbols reads, over lines.
func ReadSymbols(r io.Reader, k int) ([]int, error) {
	br := bufio.NewReader(r)
	head, _ := br.Peek(512)
	first, _, _ := strings.Cut(string(head), "\n")
	if !strings.Contains(strings.ToLower(first), "cell") {
		b, err := ReadAllLimited(br, maxSymbolListBytes, "a list of symbols")
		if err != nil {
			return nil, err
		}
		return ParseSymbols(string(b), k)
	}
	var cells []int
	fields, col, pcol := 0, -1, -1
	err := readRecords(br, "sensitive cells", func(h []string) error {
		fields, col, pcol = len(h), slices.Index(h, "cell"), slices.Index(h, "probability")
		if col < 0 {
			return errors.New(`the header has no "cell" column`)
		}
		return nil
	}, func(rec []string) error {
		switch {
		case len(rec) != fields:
			return fmt.Errorf("%d fields, the header has %d", len(rec), fields)
		case pcol >= 0 && strings.TrimSpace(rec[pcol]) == "0":
			return nil
		}
		c, err := strconv.Atoi(strings.TrimSpace(rec[col]))
		switch {
		case err != nil:
			return fmt.Errorf("cell %q is not a whole number", rec[col])
		case c < 0 || c >= k:
			return fmt.Errorf("cell %d is outside the alphabet of %d cells", c, k)
		case len(cells) >= k:
			return fmt.Errorf("the list names more than the %d cells of the alphabet: some are listed twice", k)
		}
		cells = append(cells, c)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return cells, distinctSymbols(cells)
}

// maxSymbolListBytes bounds a list of symbols read as text: 2²⁴ symbols
// of eight digits.
const maxSymbolListBytes = 9 << 24
