package core

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strings"
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

// TestWriteStudyRoundTrip writes a study with data, personal cells and a
// PUM, reads it back, and checks the compact one-line arrays.
func TestWriteStudyRoundTrip(t *testing.T) {
	share := 1.0
	s := &Study{
		Alphabet:   Alphabet{Kind: KindLinear, Size: 5},
		Mechanisms: []MechanismSpec{{ID: "p", Kind: KindPUM, Epsilon: 1, Share: &share, Sensitive: []int{0}, Base: BaseURAP, Tags: []string{"home", "wörk \"x\""}}},
		Data:       []int{0, 4, 2},
		Personal:   map[string][]int{"wörk \"x\"": {-1, 3, 3}, "home": {1, 4, -1}},
		Extensions: map[string]json.RawMessage{
			"source": json.RawMessage(`{"path":"/data/a b.csv","bbox":[37.7,-122.5]}`),
			"run":    json.RawMessage(`{"methods":["gibu"]}`),
		},
	}
	var buf bytes.Buffer
	if err := WriteStudy(&buf, s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "  ],\n  \"run\": {\n    \"methods\": [\n      \"gibu\"\n    ]\n  },\n  \"source\": {") {
		t.Errorf("extensions not indented in name order:\n%s", buf.String())
	}
	if !strings.Contains(buf.String(), "\"data\": [0,4,2],\n  \"personal\": {\n    \"home\": [1,4,-1],\n    \"wörk \\\"x\\\"\": [-1,3,3]\n  }\n}\n") {
		t.Errorf("written:\n%s", buf.String())
	}
	written := buf.String()
	// Members are read only when asked for; any other unknown member is
	// an error.
	if _, err := ReadStudy(strings.NewReader(written)); err == nil || !strings.Contains(err.Error(), `unknown field "run"`) {
		t.Errorf("ReadStudy without extensions: error %v, want unknown field \"run\"", err)
	}
	other := strings.Replace(written, `"run"`, `"runs"`, 1)
	if _, err := ReadStudy(strings.NewReader(other), "source", "run"); err == nil || !strings.Contains(err.Error(), `unknown field "runs"`) {
		t.Errorf("ReadStudy with an unknown member: error %v, want unknown field \"runs\"", err)
	}
	got, err := ReadStudy(strings.NewReader(written), "source", "run")
	if err != nil {
		t.Fatal(err)
	}
	for name, raw := range got.Extensions { // compact what WriteStudy indented
		var c bytes.Buffer
		if err := json.Compact(&c, raw); err != nil {
			t.Fatal(err)
		}
		got.Extensions[name] = c.Bytes()
	}
	if !reflect.DeepEqual(got, s) {
		t.Errorf("read back %+v, want %+v", got, s)
	}
}
