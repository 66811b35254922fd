package attack

import (
	"bytes"
	"context"
	"encoding/csv"
	"math"
	"strings"
	"testing"

	"github.com/privmap/privmap/app/pipeline"
	"github.com/privmap/privmap/app/plan"
	"github.com/privmap/privmap/core"
)

// testStudy is a 5×4 grid of 0.5 km cells whose people have 1, 3, 12
// and 150 data, each person's most frequent cell unique.
func testStudy(mechs ...core.MechanismSpec) *core.Study {
	s := &core.Study{Alphabet: core.Alphabet{Kind: core.KindGrid, Cols: 5, Rows: 4, CellKm: 0.5}, Mechanisms: mechs}
	add := func(person int, cells ...int) {
		for _, c := range cells {
			s.Data, s.People = append(s.Data, c), append(s.People, person)
		}
	}
	add(0, 3)
	add(1, 7, 7, 12)
	add(2, 1, 1, 1, 1, 1, 1, 1, 2, 2, 9, 9, 19)
	many := make([]int, 150)
	for i := range many {
		many[i] = 14
		if i%3 == 0 {
			many[i] = 15 + i%5
		}
	}
	add(3, many...)
	return s
}

func build(t *testing.T, s *core.Study) []core.Mechanism {
	t.Helper()
	ms, err := pipeline.BuildMechanisms(context.Background(), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// TestAttackPeopleIdentity checks the home attack without noise: every
// home is named (exact 1, median 0), the bins count the people by their
// reports, and the CSV has its rows.
func TestAttackPeopleIdentity(t *testing.T) {
	s := testStudy(core.MechanismSpec{ID: "id", Kind: core.KindIdentity})
	ms := build(t, s)
	p, err := AttackPeople(context.Background(), s, ms, Uniform(s.Alphabet.Len()), 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if g := p.All.All; g.People != 4 || g.Exact != 1 || g.Within1 != 1 || g.Median != 0 {
		t.Errorf("all: %+v", g)
	}
	for i, want := range []int{1, 1, 1, 1} {
		if got := p.All.Bins[i].People; got != want {
			t.Errorf("bin %s: %d people, want %d", Bins[i].Label, got, want)
		}
	}
	if got := PeopleSentence(s.Alphabet, p.All); !strings.Contains(got, "finds the home cell of 100% of the people, within 1 km for 100%; of the 2 people who sent more than 10, 100%") {
		t.Errorf("sentence %q", got)
	}
	exp, err := Expose(context.Background(), s, ms, Uniform(s.Alphabet.Len()), nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteCSV(&buf, exp, p); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	// header, one-report row, the mechanism's all and 4 bins, the population's all and 4 bins
	if len(rows) != 1+1+5+5 || rows[1][3] != "one" || rows[1][5] != "1" || rows[2][3] != "all" || rows[2][13] != "1" || rows[7][0] != "all" {
		t.Errorf("CSV rows %q", rows)
	}
}

// TestAttackPeopleHomeTag checks that the study's "home" tag is the
// home scored, over the most frequent cell of the data.
func TestAttackPeopleHomeTag(t *testing.T) {
	s := testStudy(core.MechanismSpec{ID: "id", Kind: core.KindIdentity})
	home := make([]int, len(s.Data))
	for i := range home {
		home[i] = 0 // nobody's data is at cell 0
	}
	s.Personal = map[string][]int{"home": home}
	p, err := AttackPeople(context.Background(), s, build(t, s), Uniform(s.Alphabet.Len()), 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.All.All.Exact != 0 || !strings.Contains(p.HomeFrom, "all her check-ins") {
		t.Errorf("%+v, home from %q", p.All.All, p.HomeFrom)
	}
}

// TestAttackPeopleSeeded checks that a seed draws the same attack, that
// noise lowers the success below the identity's, and that a cancelled
// context stops it.
func TestAttackPeopleSeeded(t *testing.T) {
	s := testStudy(core.MechanismSpec{ID: "k", Kind: core.KindKRR, Epsilon: 1}, core.MechanismSpec{ID: "p", Kind: core.KindPlanar, Epsilon: 1})
	ms := build(t, s)
	prior := Prior{Name: "the data's map", Masses: make([]float64, s.Alphabet.Len())}
	for _, x := range s.Data {
		prior.Masses[x]++
	}
	a, err := AttackPeople(context.Background(), s, ms, prior, 7, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := AttackPeople(context.Background(), s, ms, prior, 7, nil)
	if a.All.All != b.All.All {
		t.Errorf("seed 7 twice: %+v and %+v", a.All.All, b.All.All)
	}
	if a.Mechs[0].All.People+a.Mechs[1].All.People != 4 {
		t.Errorf("people by mechanism %d + %d", a.Mechs[0].All.People, a.Mechs[1].All.People)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := AttackPeople(ctx, s, ms, prior, 7, nil); err == nil {
		t.Error("cancelled attack returned")
	}
	s.PeopleUnknown, s.People = true, nil
	if _, err := AttackPeople(context.Background(), s, ms, prior, 7, nil); err == nil {
		t.Error("people unknown: attacked")
	}
}

// TestExposeWords checks the sentence and that PUM is said not measured.
func TestExposeWords(t *testing.T) {
	s := testStudy(core.MechanismSpec{ID: "k", Kind: core.KindKRR, Epsilon: 2},
		core.MechanismSpec{ID: "pum", Kind: core.KindPUM, Epsilon: 1, Tags: []string{"home"}})
	s.Personal = map[string][]int{"home": make([]int, len(s.Data))}
	ms := build(t, s)
	out, err := Expose(context.Background(), s, ms, Uniform(s.Alphabet.Len()), nil)
	if err != nil {
		t.Fatal(err)
	}
	k := 20.0
	p := math.Exp(2) / (math.Exp(2) + k - 1)
	if math.Abs(out[0].Success-p) > 1e-12 || out[0].Prior != 1/k {
		t.Errorf("k-RR on a uniform map: success %v, want p = %v; prior %v", out[0].Success, p, out[0].Prior)
	}
	if got := Sentence(s, out[0], Uniform(20)); !strings.HasPrefix(got, "Seeing one report, an attacker who knows nothing of the map names the right 0.5 km cell for 28% of check-ins (5% without the report) and is") {
		t.Errorf("sentence %q", got)
	}
	if out[1].NotMeasured == "" || !strings.Contains(Sentence(s, out[1], Uniform(20)), "is not measured") {
		t.Errorf("pum: %+v", out[1])
	}
	if _, err := AttackPeople(context.Background(), s, ms, Uniform(20), 1, nil); err != nil {
		t.Fatal(err)
	}
}

// TestSweep checks a k-RR sweep: the population's ε among the points
// and marked, the success rising with ε, the errors measured.
func TestSweep(t *testing.T) {
	s := testStudy(core.MechanismSpec{ID: "k", Kind: core.KindKRR, Epsilon: 1.5})
	truth := make([]float64, s.Alphabet.Len())
	for _, x := range s.Data {
		truth[x]++
	}
	req := SweepRequest{Study: s, Truth: truth, Prior: Uniform(20), Kind: core.KindKRR, Eps: []float64{0.5, 1, 4},
		Metric: plan.TV, Method: core.MethodGIBU, Runs: 3, Users: 500, Seed: 3}
	sw, err := MakeSweep(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(sw.Points) != 4 || sw.Points[2].Eps != 1.5 || sw.Current != 1.5 {
		t.Fatalf("points %+v", sw.Points)
	}
	for i, pt := range sw.Points {
		if len(pt.Errors) != 3 || !(pt.Error > 0 && pt.Error < 1) {
			t.Errorf("ε %g: errors %v", pt.Eps, pt.Errors)
		}
		if i > 0 && !(pt.Success > sw.Points[i-1].Success) {
			t.Errorf("success falls from %g to %g", sw.Points[i-1].Success, pt.Success)
		}
	}
	for _, bad := range []core.MechanismKind{core.KindShokri, core.KindURR, core.KindPUM, "nope"} {
		req.Kind = bad
		if err := req.CheckSweep(); err == nil {
			t.Errorf("kind %s swept", bad)
		}
	}
}
