package gui

import (
	"strconv"
	"strings"
)

// A shownNumber is a number an entry shows rounded for reading
// (ε 5.951, not 5.950642552587727) while its exact value is kept: text
// the user has not changed reads back as the exact value, so that a
// study opened and saved again is the same study.
type shownNumber struct {
	text  string
	value float64
}

// showNumber returns v shown to digits significant digits; "" for 0
// when blankZero.
func showNumber(v float64, digits int, blankZero bool) shownNumber {
	if v == 0 && blankZero {
		return shownNumber{}
	}
	return shownNumber{text: roundText(v, digits), value: v}
}

// roundText writes v to digits significant digits in the shortest form:
// 5.951, 0.4545, 40.9175, 1e-09.
func roundText(v float64, digits int) string {
	return strconv.FormatFloat(v, 'g', digits, 64)
}

// read returns the entry's number: the exact value while text is still
// what was shown, else text parsed.
func (n shownNumber) read(text string) (float64, error) {
	text = strings.TrimSpace(text)
	if text == n.text && n.text != "" {
		return n.value, nil
	}
	return strconv.ParseFloat(text, 64)
}
