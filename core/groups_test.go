package core

import (
	"strings"
	"testing"
)

func TestReadReports(t *testing.T) {
	s := &Study{Alphabet: Alphabet{Kind: KindCategorical, Size: 4}, Mechanisms: []MechanismSpec{
		{ID: "k", Kind: KindKRR, Epsilon: 1},
		{ID: "u", Kind: KindURAP, Epsilon: 1, Sensitive: []int{0}},
	}}
	mechs := make([]Mechanism, 2)
	for j, spec := range s.Mechanisms {
		mechs[j], _ = NewMechanism(spec, s.Alphabet)
	}
	per := "user,mechanism,report\n1,k,2\n2,u,0100\n3,k,2\n4,k,0\n"
	agg := "\ufeffmechanism,report,count\r\nk,2,2\r\nu,0100,1\r\nk,0,1\r\nk,3,0\r\n"
	for name, in := range map[string]string{"per user": per, "aggregated": agg} {
		g, err := ReadReports(strings.NewReader(in), s, mechs)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if g.N() != 4 || g.Users[0] != 3 || g.Users[1] != 1 || len(g.List) != 3 {
			t.Errorf("%s: %+v", name, g)
		}
		if g.List[0].Report.Symbol != 2 || g.List[0].Count != 2 || g.List[2].Mech != 1 {
			t.Errorf("%s: groups %+v", name, g.List)
		}
	}
	bad := []struct{ in, want string }{
		{"", "empty"},
		{"user,report\n1,2\n", "lacks mechanism and report"},
		{"mechanism,report\nz,1\n", `line 2: no mechanism "z"`},
		{"mechanism,report\nk,1\nk,9\n", "line 3: mechanism \"k\": report 9 out of range"},
		{"mechanism,report\nu,01\n", "has 2 bits, want 4"},
		{"mechanism,report,count\nk,1,-3\n", "count \"-3\""},
		{"mechanism,report\nk,1,5\n", "3 fields, want 2"},
		{"mechanism,report\n", "no reports"},
	}
	for _, tc := range bad {
		if _, err := ReadReports(strings.NewReader(tc.in), s, mechs); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.in, err, tc.want)
		}
	}
	// Two non-sensitive bits set: impossible under every input.
	g, err := ReadReports(strings.NewReader("mechanism,report\nu,0110\n"), s, mechs)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := GIBU(bg, mechs, g, s, EMOptions{}); err == nil || !strings.Contains(err.Error(), `mechanism "u": report 0110 is impossible`) {
		t.Errorf("impossible report: %v", err)
	}
}
