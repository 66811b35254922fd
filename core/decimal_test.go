package core

import (
	"errors"
	"math"
	"strconv"
	"testing"
)

// TestParseDecimal checks the plain decimal forms against
// strconv.ParseFloat and refuses Go's other spellings, which ParseFloat
// takes.
func TestParseDecimal(t *testing.T) {
	for _, s := range []string{"0", "1", "-0.5", "+2", ".5", "2.", " 3.25 ", "1e-3", "6.02E+23", "-1.5e300", "0.000001"} {
		got, err := ParseDecimal(s)
		want, werr := strconv.ParseFloat(s, 64)
		if s == " 3.25 " {
			want, werr = 3.25, nil
		}
		if err != nil || werr != nil || got != want {
			t.Errorf("ParseDecimal(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"0_1", "3_7.75", "1_000", "0x1p-2", "0X10", "Inf", "inf", "+Infinity", "-INF", "NaN", "nan", "", ".", "-", "e5", "1e", "1e+", "1.2.3", "1 2", "٣", "1,5"} {
		if v, err := ParseDecimal(s); !errors.Is(err, strconv.ErrSyntax) {
			t.Errorf("ParseDecimal(%q) = %v, %v; want a syntax error", s, v, err)
		}
		if _, err := strconv.ParseFloat(s, 64); err == nil && s != "" {
			t.Logf("ParseFloat takes %q", s) // the forms this function exists to refuse
		}
	}
	if v, err := ParseDecimal("1e999"); !errors.Is(err, strconv.ErrRange) || !math.IsInf(v, 1) {
		t.Errorf("ParseDecimal(1e999) = %v, %v; want +Inf and a range error", v, err)
	}
}
