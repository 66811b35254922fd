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
