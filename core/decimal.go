package core

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseDecimal parses a number as data files write it: surrounding
// spaces, an optional sign, decimal digits with at most one decimal
// point and at least one digit, and an optional exponent (1, -0.5, .5,
// 2., 1e-3, 6.02E+23).
//
// strconv.ParseFloat also takes Go's own spellings — digits separated
// by underscores (0_1 is 1, 3_7.75 is 37.75), hexadecimal (0x1p-2), and
// Inf, Infinity and NaN in any case — which in a CSV cell mean a damaged
// or foreign file, not a number: ParseDecimal refuses them with
// strconv.ErrSyntax. The value may still overflow to ±Inf (1e999), with
// strconv.ErrRange, as ParseFloat reports it.
func ParseDecimal(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if !plainDecimal(s) {
		return 0, fmt.Errorf("%q is not a plain decimal number: %w", s, strconv.ErrSyntax)
	}
	return strconv.ParseFloat(s, 64)
}

// plainDecimal reports whether s is [+-]? (d+ (. d*)? | . d+) ([eE] [+-]? d+)?.
func plainDecimal(s string) bool {
	n, i := digitsAt(s, signAt(s, 0))
	if i < len(s) && s[i] == '.' {
		var m int
		m, i = digitsAt(s, i+1)
		n += m
	}
	if n == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		var m int
		if m, i = digitsAt(s, signAt(s, i+1)); m == 0 {
			return false
		}
	}
	return i == len(s)
}

// signAt returns i past an optional sign at s[i].
func signAt(s string, i int) int {
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		return i + 1
	}
	return i
}

// digitsAt returns the number of decimal digits from s[i] and the index
// past them.
func digitsAt(s string, i int) (n, j int) {
	for j = i; j < len(s) && isDigit(s[j]); j++ {
	}
	return j - i, j
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
