package core

import (
	"math"
	"strings"
	"testing"
)

func TestReadDistribution(t *testing.T) {
	p, err := ReadDistribution(strings.NewReader("\uFEFFcell,probability,count,row,col,lat,lon\n0,0.25,1,0,0,1,2\n2,0.75,3,0,2,1,2\n"), 4)
	if err != nil {
		t.Fatal(err)
	}
	if p[0] != 0.25 || p[1] != 0 || p[2] != 0.75 || p[3] != 0 {
		t.Errorf("ReadDistribution = %v", p)
	}
	tests := []struct{ name, in, want string }{
		{"empty", "", "empty file"},
		{"no header columns", "a,b\n0,1\n", "lacks cell and probability"},
		{"cell out of range", "cell,probability\n4,1\n", "line 2: cell \"4\" is not in 0..3"},
		{"cell twice", "cell,probability\n1,0.5\n1,0.5\n", "line 3: cell 1 listed twice"},
		{"negative", "cell,probability\n0,1.5\n1,-0.5\n", "line 3: probability \"-0.5\""},
		{"NaN", "cell,probability\n0,NaN\n", "probability \"NaN\""},
		{"short row", "cell,probability\n0\n", "line 2: 1 fields"},
		{"sum", "cell,probability\n0,0.5\n1,0.4\n", "sum to 0.9"},
	}
	for _, tc := range tests {
		if _, err := ReadDistribution(strings.NewReader(tc.in), 4); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestWriteDistributionRefuses checks that a negative, NaN or infinite
// probability is refused, with its cell, and nothing is written.
func TestWriteDistributionRefuses(t *testing.T) {
	a := Alphabet{Kind: KindCategorical, Size: 3}
	for _, p := range [][]float64{{0.5, -0.1, 0.6}, {math.NaN(), 0.5, 0.5}, {0, math.Inf(1), 0}} {
		var b strings.Builder
		err := WriteDistribution(&b, p, a)
		if err == nil || !strings.Contains(err.Error(), "a distribution file holds finite probabilities ≥ 0") || b.Len() != 0 {
			t.Errorf("%v: %v, wrote %q", p, err, b.String())
		}
	}
}
