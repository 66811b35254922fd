package core

import (
	"math"
	"testing"
)

func TestCEMPreset(t *testing.T) {
	a := Alphabet{Kind: KindCategorical, Size: 400}
	ms, err := PresetMechanisms("cem", a)
	if err != nil {
		t.Fatal(err)
	}
	s := &Study{Alphabet: a, Mechanisms: ms}
	if err := s.Validate(); err != nil {
		t.Fatalf("preset study invalid: %v", err)
	}
	want := []float64{0.1, 2, math.Log(400), 0}
	sum := 0.0
	for i, m := range ms {
		if m.Epsilon != want[i] {
			t.Errorf("mechanism %s: ε = %v, want %v", m.ID, m.Epsilon, want[i])
		}
		sum += *m.Share
	}
	if math.Abs(sum-1) > 1e-15 || *ms[0].Share != 10.0/22 || *ms[3].Share != 1.0/22 {
		t.Errorf("shares %v, %v sum to %v; want 10/22 … 1/22 summing to 1", *ms[0].Share, *ms[3].Share, sum)
	}
	if _, err := PresetMechanisms("cem", Alphabet{Kind: KindLinear, Size: 2}); err == nil {
		t.Error("cem preset on K = 2: no error")
	}
	if _, err := PresetMechanisms("fw-table-99", a); err == nil {
		t.Error("unknown preset: no error")
	}
}

// TestFWPresets checks every FW preset against the values of FW
// Appendix A on the alphabets of FW §8 and that each makes a valid study.
func TestFWPresets(t *testing.T) {
	linear := Alphabet{Kind: KindLinear, Size: 100}
	grid := Alphabet{Kind: KindGrid, Cols: 24, Rows: 16, CellKm: 0.5}
	cat := Alphabet{Kind: KindCategorical, Size: 400}
	for _, tc := range []struct {
		preset string
		a      Alphabet
		kinds  string // kind of the first and last mechanism
		first  float64
		last   float64
	}{
		{"fw-t4-high", Alphabet{Kind: KindLinear, Size: 20}, "rappor rappor", 0.1, 1.0},
		{"fw-t4-low", Alphabet{Kind: KindLinear, Size: 20}, "rappor rappor", 1, 10},
		{"fw-t5", linear, "krr krr", 3.00, 8.08},
		{"fw-t5", grid, "krr krr", 3.05, 8.20},
		{"fw-t5", cat, "krr krr", 3.00, 8.08},
		{"fw-t6", linear, "geometric geometric", 0.020, 0.869},
		{"fw-t6", grid, "planar-geometric planar-geometric", 0.190, 3.124},
		{"fw-t7", linear, "geometric krr", 0.065, 4.69},
		{"fw-t7", grid, "planar-geometric krr", 0.632, 5.67},
		{"fw-t8", linear, "shokri shokri", 1.0, 28.0},
		{"fw-t8", grid, "shokri shokri", 0.3, 3.0},
	} {
		t.Run(tc.preset+" on "+string(tc.a.Kind), func(t *testing.T) {
			ms, err := PresetMechanisms(tc.preset, tc.a)
			if err != nil {
				t.Errorf("%s on %s: %v", tc.preset, tc.a.Kind, err)
				return
			}
			level := func(m MechanismSpec) float64 { return m.Epsilon + m.QualityLoss }
			f, l := ms[0], ms[len(ms)-1]
			if len(ms) != 10 || string(f.Kind+" "+l.Kind) != tc.kinds || level(f) != tc.first || level(l) != tc.last {
				t.Errorf("%s on %s: %d mechanisms, %s %v … %s %v; want 10, %s %v … %v",
					tc.preset, tc.a.Kind, len(ms), f.Kind, level(f), l.Kind, level(l), tc.kinds, tc.first, tc.last)
			}
			if err := (&Study{Alphabet: tc.a, Mechanisms: ms}).Validate(); err != nil {
				t.Errorf("%s on %s: invalid study: %v", tc.preset, tc.a.Kind, err)
			}
		})
	}
	for _, p := range []string{"fw-t6", "fw-t7", "fw-t8"} {
		if _, err := PresetMechanisms(p, cat); err == nil {
			t.Errorf("%s on a categorical alphabet: no error", p)
		}
	}
}
