package core

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
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
		// By mechanism, then report.
		if g.List[0].Report.Symbol != 0 || g.List[1].Report.Symbol != 2 || g.List[1].Count != 2 || g.List[2].Mech != 1 {
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

// TestReportsPerUserEqualCounts reads the same users' reports per user,
// shuffled, and as counts: the groups are equal, so every estimate is
// bit-identical.
func TestReportsPerUserEqualCounts(t *testing.T) {
	s := &Study{Alphabet: Alphabet{Kind: KindLinear, Size: 4}, Mechanisms: []MechanismSpec{
		{ID: "k", Kind: KindKRR, Epsilon: 1}, {ID: "r", Kind: KindRAPPOR, Epsilon: 2}}}
	k, _ := NewKRR(4, 1)
	r, _ := NewRAPPOR(4, 2)
	mechs := []Mechanism{k, r}
	rng := rand.New(rand.NewPCG(3, 3))
	var rows []string
	counts := map[string]int{}
	for user := range 500 {
		j := user % 2
		rep := Draw(mechs[j], rng, rng.IntN(4))
		row := s.Mechanisms[j].ID + "," + rep.String()
		rows = append(rows, row)
		counts[row]++
	}
	rng.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	perUser := "mechanism,report\n" + strings.Join(rows, "\n") + "\n"
	var agg strings.Builder
	agg.WriteString("mechanism,report,count\n")
	for _, row := range slices.Sorted(maps.Keys(counts)) {
		fmt.Fprintf(&agg, "%s,%d\n", row, counts[row])
	}
	a, err := ReadReports(strings.NewReader(perUser), s, mechs)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ReadReports(strings.NewReader(agg.String()), s, mechs)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("per-user groups %v differ from counted %v", a.List, b.List)
	}
	ea, err := GIBU(context.Background(), mechs, a, s, EMOptions{})
	if err != nil {
		t.Fatal(err)
	}
	eb, _ := GIBU(context.Background(), mechs, b, s, EMOptions{})
	if !slices.Equal(ea.Theta, eb.Theta) {
		t.Errorf("GIBU per user %v, from counts %v", ea.Theta, eb.Theta)
	}
}
