package core

import (
	"bytes"
	"math"
	"slices"
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

// TestReadDistributionOn reads a distribution written on one grid back
// on it and on grids of as many cells placed otherwise — transposed,
// over another box — and a labelled one on other labels: only the first
// is accepted.
func TestReadDistributionOn(t *testing.T) {
	g := Alphabet{Kind: KindGrid, Cols: 3, Rows: 2, CellKm: 1, South: 40, West: -74, North: 40.02, East: -73.97}
	p := []float64{0.1, 0.2, 0.3, 0.1, 0.2, 0.1}
	var buf bytes.Buffer
	if err := WriteDistribution(&buf, p, g); err != nil {
		t.Fatal(err)
	}
	written := buf.String()
	if got, err := ReadDistributionOn(strings.NewReader(written), g); err != nil || !slices.Equal(got, p) {
		t.Fatalf("on its own grid: %v, %v", got, err)
	}
	transposed := g
	transposed.Cols, transposed.Rows = 2, 3
	moved := g
	moved.South, moved.North = 41, 41.02
	noBox := Alphabet{Kind: KindGrid, Cols: 2, Rows: 3, CellKm: 1}
	for name, tc := range map[string]struct {
		a    Alphabet
		want string
	}{
		"transposed":        {transposed, "line 3: cell 1's centre is at 40.003333, -73.977500 on the study's grid, but the file puts it at 40.005000, -73.985000"},
		"transposed no box": {noBox, "line 4: cell 2 is at row 1, col 0 of the study's 2×3 grid (cols × rows), but the file puts it at row 0, col 2"},
		"other box":         {moved, "line 2: cell 0's centre is at 41.005000, -73.995000 on the study's grid"},
	} {
		if _, err := ReadDistributionOn(strings.NewReader(written), tc.a); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
	cat := Alphabet{Kind: KindCategorical, Size: 2, Labels: []string{"a", "b"}}
	buf.Reset()
	if err := WriteDistribution(&buf, []float64{0.5, 0.5}, cat); err != nil {
		t.Fatal(err)
	}
	other := Alphabet{Kind: KindCategorical, Size: 2, Labels: []string{"b", "a"}}
	if _, err := ReadDistributionOn(strings.NewReader(buf.String()), other); err == nil || !strings.Contains(err.Error(), `cell 0 is "b" in the study, but the file labels it "a"`) {
		t.Errorf("other labels: %v", err)
	}
	if _, err := ReadDistributionOn(strings.NewReader(buf.String()), cat); err != nil {
		t.Errorf("own labels: %v", err)
	}
}

// TestEstimateIntervalsRoundTrip writes an estimate with its intervals
// and reads them back; a file without the columns reads with none, and
// a bound that is not a probability, or a missing column, is an error.
func TestEstimateIntervalsRoundTrip(t *testing.T) {
	a := Alphabet{Kind: KindGrid, Cols: 2, Rows: 1, CellKm: 1, South: 10, North: 11, West: 20, East: 22}
	p := []float64{0.25, 0.75}
	iv := &Intervals{Lo: []float64{0.1, 0.6}, Hi: []float64{0.4, 0.9}, BandLo: []float64{0, 0.5}, BandHi: []float64{0.5, 1}}
	var b strings.Builder
	if err := WriteEstimate(&b, p, a, iv); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "cell,probability,row,col,lat,lon,lo,hi,band_lo,band_hi\n0,0.25,0,0,") {
		t.Fatalf("file %q", b.String())
	}
	got, giv, err := ReadEstimateOn(strings.NewReader(b.String()), a)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, p) || giv == nil || !slices.Equal(giv.Lo, iv.Lo) || !slices.Equal(giv.Hi, iv.Hi) ||
		!slices.Equal(giv.BandLo, iv.BandLo) || !slices.Equal(giv.BandHi, iv.BandHi) {
		t.Errorf("read back %v, %+v", got, giv)
	}
	if _, none, err := ReadEstimateOn(strings.NewReader("cell,probability\n0,0.25\n1,0.75\n"), a); err != nil || none != nil {
		t.Errorf("without intervals: %+v, %v", none, err)
	}
	for _, bad := range []string{
		"cell,probability,lo,hi\n0,0.25,0,0.5\n1,0.75,0.5,1\n",
		"cell,probability,lo,hi,band_lo,band_hi\n0,0.25,0,1.5,0,1\n1,0.75,0.5,1,0,1\n",
	} {
		if _, _, err := ReadEstimateOn(strings.NewReader(bad), a); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
