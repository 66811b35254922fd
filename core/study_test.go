package core

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

func TestAlphabetValidate(t *testing.T) {
	good := []Alphabet{
		{Kind: KindGrid, Cols: 24, Rows: 16, CellKm: 0.5},
		{Kind: KindLinear, Size: 100},
		{Kind: KindCategorical, Size: 2, Labels: []string{"no", "yes"}},
	}
	for _, a := range good {
		if err := a.Validate(); err != nil {
			t.Errorf("Validate(%+v) = %v", a, err)
		}
	}
	if n := good[0].Len(); n != 384 {
		t.Errorf("grid Len = %d, want 384", n)
	}
	bad := []Alphabet{
		{},
		{Kind: "hexagons", Size: 3},
		{Kind: KindGrid, Cols: 0, Rows: 16, CellKm: 0.5},
		{Kind: KindGrid, Cols: 24, Rows: 16, CellKm: math.NaN()},
		{Kind: KindGrid, Cols: 24, Rows: 16, CellKm: math.Inf(1)},
		{Kind: KindLinear},
		{Kind: KindCategorical, Size: 3, Labels: []string{"a"}},
	}
	for _, a := range bad {
		if err := a.Validate(); err == nil {
			t.Errorf("Validate(%+v) = nil, want an error", a)
		}
	}
}

func TestWriteStudy(t *testing.T) {
	var buf bytes.Buffer
	s := &Study{Alphabet: Alphabet{Kind: KindGrid, Cols: 24, Rows: 16, CellKm: 0.5, South: 37.7228, West: -122.5153}}
	if err := WriteStudy(&buf, s); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	a := got["alphabet"].(map[string]any)
	if a["kind"] != "grid" || a["cols"] != 24.0 || a["rows"] != 16.0 || a["cell_km"] != 0.5 || a["south"] != 37.7228 || a["west"] != -122.5153 {
		t.Errorf("alphabet = %v", a)
	}
	if m, ok := got["mechanisms"].([]any); !ok || len(m) != 0 {
		t.Errorf("mechanisms = %v, want []", got["mechanisms"])
	}
}
