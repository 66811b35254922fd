package core

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

const gridAlphabet = `{"kind": "grid", "cols": 24, "rows": 16, "cell_km": 0.5, "south": 37.7228, "west": -122.5153}`

func TestReadStudy(t *testing.T) {
	in := `{"alphabet": ` + gridAlphabet + `,
	 "mechanisms": [
	   {"id": "g1", "kind": "planar-geometric", "epsilon": 0.19, "share": 0.5},
	   {"id": "k1", "kind": "krr", "epsilon": 3.05, "share": 0.3},
	   {"id": "u1", "kind": "urr", "epsilon": 1.0, "sensitive": [5, 17], "share": 0.2}]}`
	s, err := ReadStudy(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	shares, _ := s.Shares()
	if len(s.Mechanisms) != 3 || shares[0] != 0.5 || shares[2] != 0.2 {
		t.Fatalf("read %+v with shares %v", s.Mechanisms, shares)
	}
	for _, spec := range s.Mechanisms {
		m, err := NewMechanism(spec, s.Alphabet)
		if err != nil {
			t.Fatal(err)
		}
		if m.Inputs() != 384 {
			t.Errorf("%s has %d inputs", spec.ID, m.Inputs())
		}
	}
	// Equal shares when none is given.
	s, err = ReadStudy(strings.NewReader(`{"alphabet": {"kind": "linear", "size": 10}, "mechanisms": [
		{"id": "a", "kind": "geometric", "epsilon": 0.5}, {"id": "b", "kind": "rappor", "epsilon": 1},
		{"id": "c", "kind": "identity"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if sh, _ := s.Shares(); sh[0] != 1.0/3 || sh[2] != 1.0/3 {
		t.Errorf("equal shares = %v", sh)
	}
}

func TestReadStudyErrors(t *testing.T) {
	mech := func(ms string) string { return `{"alphabet": ` + gridAlphabet + `, "mechanisms": [` + ms + `]}` }
	cat := func(ms string) string {
		return `{"alphabet": {"kind": "categorical", "size": 4}, "mechanisms": [` + ms + `]}`
	}
	tests := []struct {
		name, in, want string
	}{
		{"syntax", "{\n\"alphabet\": {\n\"kind\": \"grid\",,\n}}", "line 3"},
		{"type", "{\"alphabet\": {\"kind\": \"grid\",\n \"cols\": \"24\"}}", "line 2"},
		{"unknown field", mech(`{"id": "a", "kind": "krr", "epsilion": 1}`), `unknown field "epsilion"`},
		{"unknown kind", mech(`{"id": "a", "kind": "laplace", "epsilon": 1}`), `unknown kind "laplace"`},
		{"zero epsilon", mech(`{"id": "a", "kind": "krr", "epsilon": 0}`), "epsilon must be positive"},
		{"negative epsilon", mech(`{"id": "a", "kind": "krr", "epsilon": -2}`), "epsilon must be positive"},
		{"duplicate id", mech(`{"id": "a", "kind": "krr", "epsilon": 1}, {"id": "a", "kind": "rappor", "epsilon": 1}`), `"a" is used twice`},
		{"sensitive out of range", mech(`{"id": "u", "kind": "urr", "epsilon": 1, "sensitive": [384]}`), "sensitive symbol 384 out of range"},
		{"sensitive repeated", mech(`{"id": "u", "kind": "urappor", "epsilon": 1, "sensitive": [3, 3]}`), "listed twice"},
		{"sensitive missing", mech(`{"id": "u", "kind": "urr", "epsilon": 1}`), "sensitive set is empty"},
		{"sensitive on krr", mech(`{"id": "k", "kind": "krr", "epsilon": 1, "sensitive": [1]}`), "takes no sensitive set"},
		{"shares sum", mech(`{"id": "a", "kind": "krr", "epsilon": 1, "share": 0.5}, {"id": "b", "kind": "krr", "epsilon": 2, "share": 0.4}`), "shares sum to 0.9"},
		{"shares partly given", mech(`{"id": "a", "kind": "krr", "epsilon": 1, "share": 0.5}, {"id": "b", "kind": "krr", "epsilon": 2}`), "give all or none"},
		{"negative share", mech(`{"id": "a", "kind": "krr", "epsilon": 1, "share": -0.5}`), "share must be in [0, 1]"},
		{"geometric on categorical", cat(`{"id": "g", "kind": "geometric", "epsilon": 1}`), "needs a linear alphabet, not categorical"},
		{"planar on linear", `{"alphabet": {"kind": "linear", "size": 9}, "mechanisms": [{"id": "p", "kind": "planar-geometric", "epsilon": 1}]}`, "needs a grid alphabet"},
		{"shokri without Q", mech(`{"id": "s", "kind": "shokri"}`), "quality_loss must be positive"},
		{"epsilon on identity", mech(`{"id": "i", "kind": "identity", "epsilon": 3}`), "takes no epsilon"},
		{"no id", mech(`{"kind": "krr", "epsilon": 1}`), "no id"},
		{"pum without tags", mech(`{"id": "p", "kind": "pum", "epsilon": 1}`), "needs at least one tag"},
		{"pum tag twice", mech(`{"id": "p", "kind": "pum", "epsilon": 1, "tags": ["home", "home"]}`), `tag "home" listed twice`},
		{"pum empty tag", mech(`{"id": "p", "kind": "pum", "epsilon": 1, "tags": [" "]}`), "tag 1 has no name"},
		{"pum base", mech(`{"id": "p", "kind": "pum", "epsilon": 1, "tags": ["home"], "base": "krr"}`), `base "krr": want urr or urappor`},
		{"pum sensitive", mech(`{"id": "p", "kind": "pum", "epsilon": 1, "tags": ["home"], "sensitive": [400]}`), "sensitive symbol 400 out of range"},
		{"tags on urr", mech(`{"id": "u", "kind": "urr", "epsilon": 1, "sensitive": [1], "tags": ["home"]}`), "takes no base or tags"},
		{"personal length", `{"alphabet": {"kind": "linear", "size": 3}, "data": [0, 1], "personal": {"home": [0]}}`, `tag "home" gives 1 cells for 2 data`},
		{"personal range", `{"alphabet": {"kind": "linear", "size": 3}, "data": [0, 1], "personal": {"home": [0, 3]}}`, "datum 2 has cell 3, outside −1..2"},
		{"bad alphabet", `{"alphabet": {"kind": "grid", "cols": 0, "rows": 3, "cell_km": 1}}`, "cols and rows"},
		{"trailing data", `{"alphabet": {"kind": "linear", "size": 3}} {}`, "after the JSON object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadStudy(strings.NewReader(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestParseReport(t *testing.T) {
	k, _ := NewKRR(5, 1)
	r, _ := NewRAPPOR(4, 1)
	if rep, err := ParseReport(k, "3"); err != nil || rep != SymbolReport(3) {
		t.Errorf("ParseReport(krr, 3) = %v, %v", rep, err)
	}
	if rep, err := ParseReport(r, "0110"); err != nil || rep.Bits.String() != "0110" {
		t.Errorf("ParseReport(rappor, 0110) = %v, %v", rep, err)
	}
	for _, c := range []struct {
		m Mechanism
		s string
	}{{k, "5"}, {k, "-1"}, {k, "1.5"}, {k, "x"}, {k, " 1"}, {r, "011"}, {r, "01101"}, {r, "01a0"}} {
		t.Run(fmt.Sprintf("%T %q", c.m, c.s), func(t *testing.T) {
			if _, err := ParseReport(c.m, c.s); err == nil {
				t.Errorf("ParseReport(%T, %q) succeeded", c.m, c.s)
			}
		})
	}
}

// TestAuditMechanism checks the audit of k-RR K=5 ε=1 on a linear
// alphabet against closed forms: with o = 1/(4+e), the expected distance
// from input x is o·Σ_z |x−z|, 10o at the ends and 6o in the middle.
func TestAuditMechanism(t *testing.T) {
	a := Alphabet{Kind: KindLinear, Size: 5}
	m, _ := NewKRR(5, 1)
	au := mustAudit(t, m, a)
	o := 1 / (4 + math.E)
	if math.Abs(au.LDP-1) > 1e-9 || math.Abs(au.GeoInd-1) > 1e-9 || au.GeoUnit != "step" {
		t.Errorf("audit %+v, want ε-LDP 1 and 1 per step", au)
	}
	if math.Abs(au.QualityWorst-10*o) > 1e-12 || math.Abs(au.QualityMean-8*o) > 1e-12 {
		t.Errorf("quality loss mean %v worst %v, want %v and %v", au.QualityMean, au.QualityWorst, 8*o, 10*o)
	}
	u, _ := NewURAP(6, 2, []int{1, 4})
	if au := mustAudit(t, u, Alphabet{Kind: KindCategorical, Size: 6}); !au.Protected || math.Abs(au.LDP-2) > 1e-9 || !math.IsNaN(au.GeoInd) {
		t.Errorf("uRAP audit %+v", au)
	}
	g := Alphabet{Kind: KindGrid, Cols: 7, Rows: 5, CellKm: 0.5}
	p, _ := NewPlanarGeometric(7, 5, 0.5, 0.835)
	if au := mustAudit(t, p, g); math.Abs(au.GeoInd-0.835) > 1e-9 || au.GeoUnit != "km" {
		t.Errorf("planar audit %+v", au)
	}
}
