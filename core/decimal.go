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
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for ; i < len(s) && isDigit(s[i]); i++ {
		digits++
	}
	if i < len(s) && s[i] == '.' {
		for i++; i < len(s) && isDigit(s[i]); i++ {
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := 0
		for ; i < len(s) && isDigit(s[i]); i++ {
			exp++
		}
		if exp == 0 {
			return false
		}
	}
	return i == len(s)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
