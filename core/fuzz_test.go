package core

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// FuzzStudy reads a study, builds its mechanisms, simulates a few users
// and parses their reports back: whatever the file says, the result is
// an error or a valid simulation, never a panic. Alphabets are kept
// small (at most maxFuzzSymbols symbols) so that each input runs fast;
// resource bounds for large ones are a separate matter.
func FuzzStudy(f *testing.F) {
	for _, s := range []string{
		`{"alphabet": {"kind": "linear", "size": 5}, "mechanisms": [{"id": "g", "kind": "geometric", "epsilon": 1}]}`,
		`{"alphabet": {"kind": "grid", "cols": 3, "rows": 2, "cell_km": 0.5, "south": 37.7, "west": -122.5},
		  "mechanisms": [{"id": "p", "kind": "planar-geometric", "epsilon": 2, "share": 0.5},
		                 {"id": "s", "kind": "shokri", "quality_loss": 0.4, "share": 0.5}]}`,
		`{"alphabet": {"kind": "categorical", "size": 4, "labels": ["a", "b", "c", "d"]},
		  "mechanisms": [{"id": "r", "kind": "rappor", "epsilon": 1}, {"id": "u", "kind": "urappor", "epsilon": 1, "sensitive": [0]},
		                 {"id": "k", "kind": "krr", "epsilon": 1}, {"id": "i", "kind": "identity"}]}`,
		`{"alphabet": {"kind": "linear", "size": 3}, "mechanisms": [{"id": "m", "kind": "pum", "epsilon": 1, "tags": ["home"], "base": "urappor"}],
		  "data": [0, 1, 2], "personal": {"home": [1, -1, 2]}}`,
		`{"alphabet": {"kind": "linear", "size": 3}, "mechanisms": [{"id": "u", "kind": "urr", "epsilon": 1, "sensitive": [2]}], "data": [0, 2]}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := ReadStudy(strings.NewReader(in))
		if err != nil || s.Alphabet.Len() > maxFuzzSymbols {
			return
		}
		mechs := make([]Mechanism, len(s.Mechanisms))
		for i, spec := range s.Mechanisms {
			if mechs[i], err = NewMechanism(spec, s.Alphabet); err != nil {
				return
			}
		}
		if len(mechs) == 0 {
			return
		}
		shares, err := s.Shares()
		if err != nil {
			t.Fatalf("a valid study has no shares: %v", err)
		}
		rng := rand.New(rand.NewPCG(1, 1))
		check := func(_, j int, r Report) error {
			if _, err := ParseReport(mechs[j], r.String()); err != nil {
				t.Fatalf("report %q of mechanism %d does not parse: %v", r, j, err)
			}
			return nil
		}
		if len(s.Data) > 0 {
			_ = SimulateData(context.Background(), rng, mechs, Assign(shares, len(s.Data)), s.Data, s.Personal, check, nil)
			return
		}
		truth := fill(nil, s.Alphabet.Len(), 1/float64(s.Alphabet.Len()))
		_ = Simulate(context.Background(), rng, mechs, Assign(shares, 5), truth, check, nil)
	})
}

// maxFuzzSymbols bounds the alphabets FuzzStudy builds mechanisms on.
const maxFuzzSymbols = 24

// fuzzStudy is the study of FuzzReports: a k-RR, a RAPPOR and a planar
// geometric mechanism on a 3×2 grid.
const fuzzStudy = `{"alphabet": {"kind": "grid", "cols": 3, "rows": 2, "cell_km": 0.5, "south": 37.7, "west": -122.5},
  "mechanisms": [{"id": "k", "kind": "krr", "epsilon": 1}, {"id": "r", "kind": "rappor", "epsilon": 2},
                 {"id": "p", "kind": "planar-geometric", "epsilon": 1.5}]}`

// FuzzReports reads a reports CSV, per-user or counts, against a fixed
// study: whatever the file says, the result is an error or groups whose
// reports the mechanisms can explain, never a panic.
func FuzzReports(f *testing.F) {
	for _, s := range []string{
		"mechanism,report\nk,3\nr,101010\np,5\n",
		"mechanism,report,count\nk,0,7\np,5,2\nr,000001,1\n",
		"mechanism,report\n\"k\",\"1\"\n",
		"mechanism,report\n\"0",
		"mechanism,report\n0\"0,1\n",
		"mechanism,report,count\nk,1,9223372036854775807\n",
	} {
		f.Add(s)
	}
	s, err := ReadStudy(strings.NewReader(fuzzStudy))
	if err != nil {
		f.Fatal(err)
	}
	mechs := make([]Mechanism, len(s.Mechanisms))
	for i, spec := range s.Mechanisms {
		if mechs[i], err = NewMechanism(spec, s.Alphabet); err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, in string) {
		g, err := ReadReports(strings.NewReader(in), s, mechs)
		if err != nil {
			return
		}
		for _, gr := range g.List {
			if gr.Count <= 0 || gr.Mech < 0 || gr.Mech >= len(mechs) {
				t.Fatalf("group %+v", gr)
			}
			if _, err := ParseReport(mechs[gr.Mech], gr.Report.String()); err != nil {
				t.Fatalf("report %q read but does not parse: %v", gr.Report, err)
			}
		}
	})
}

// FuzzDistribution reads a distribution CSV over six symbols: an error,
// or six finite non-negative probabilities summing to 1, never a panic.
func FuzzDistribution(f *testing.F) {
	for _, s := range []string{
		"symbol,probability\n0,0.5\n5,0.5\n",
		"cell,lat,lon,probability\n0,37.7,-122.5,1\n",
		"symbol,probability\n\"0",
		"symbol,probability\n0\"0,1\n",
		"symbol,probability\n0,1e308\n1,1e308\n",
		"symbol,probability\n0,NaN\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		p, err := ReadDistribution(strings.NewReader(in), 6)
		if err != nil {
			return
		}
		if len(p) != 6 {
			t.Fatalf("%d probabilities for 6 symbols", len(p))
		}
		sum := 0.0
		for _, v := range p {
			if !(v >= 0) || math.IsInf(v, 0) {
				t.Fatalf("probability %v", v)
			}
			sum += v
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Fatalf("probabilities sum to %v", sum)
		}
	})
}

// FuzzCountTable reads arbitrary count files: an error, or whole counts
// from 0 to 2⁵³ over cells 0…K−1, each with the file's descriptive
// columns, that a release writes back with one row a cell.
func FuzzCountTable(f *testing.F) {
	for _, s := range []string{
		"cell,probability,count,row,col,lat,lon\n0,0.5,3,0,0,37.7,-122.5\n3,0.5,3,0,3,37.7,-122.4\n",
		"cell,count,label\n0,1,\"a, b\"\n1,0,c\n",
		"cell,count\n0,2.5\n",
		"cell,count\n16777216,1\n",
		"count,cell\n1e16,0\n",
		"cell,count\n\"0",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		tab, err := ReadCountTable(strings.NewReader(in), 0)
		if err != nil {
			return
		}
		if len(tab.Counts) == 0 || len(tab.Counts) > MaxSymbols || len(tab.Values) > len(tab.Counts) {
			t.Fatalf("%d counts, %d rows of values", len(tab.Counts), len(tab.Values))
		}
		for _, v := range tab.Counts {
			if !(v >= 0) || v > maxCount || v != math.Trunc(v) {
				t.Fatalf("count %v", v)
			}
		}
	})
}
