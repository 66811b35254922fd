package cli

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/privmap/privmap/app/studyfile"
	"github.com/privmap/privmap/core"
)

// studyWith grids a synthetic file and writes a study with mechanisms.
func studyWith(t *testing.T, mechanisms string, gridArgs ...string) (dir, study, truth string) {
	t.Helper()
	in := writeSynth(t, 500)
	dir = t.TempDir()
	truth, study = filepath.Join(dir, "truth.csv"), filepath.Join(dir, "study.json")
	args := append([]string{"grid", "-in", in, "-bbox", "37.7228,-122.5153,37.7946,-122.3789", "-o", truth, "-study-out", study}, gridArgs...)
	if code, _, errs := run(args...); code != 0 {
		t.Fatal(errs)
	}
	if mechanisms != "" {
		b, _ := os.ReadFile(study)
		s := strings.Replace(string(b), `"mechanisms": []`, `"mechanisms": [`+mechanisms+`]`, 1)
		if err := os.WriteFile(study, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, study, truth
}

const mixed = `{"id": "g1", "kind": "planar-geometric", "epsilon": 1.159, "share": 0.5},
	{"id": "k1", "kind": "krr", "epsilon": 3.05, "share": 0.25},
	{"id": "u1", "kind": "urr", "epsilon": 1, "sensitive": [5, 17], "share": 0.15},
	{"id": "r1", "kind": "rappor", "epsilon": 2, "share": 0.1}`

func readCSV(t *testing.T, name string) [][]string {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func TestSimulate(t *testing.T) {
	dir, study, truth := studyWith(t, mixed)
	out := filepath.Join(dir, "reports.csv")
	code, stdout, errs := run("simulate", "-study", study, "-truth", truth, "-n", "1001", "-seed", "9", "-o", out)
	if code != 0 {
		t.Fatal(errs)
	}
	if !strings.Contains(stdout, "g1 501 k1 250 u1 150 r1 100") {
		t.Errorf("assignment not reported by largest remainder: %q", stdout)
	}
	recs := readCSV(t, out)
	if strings.Join(recs[0], ",") != "user,mechanism,report" || len(recs) != 1002 {
		t.Fatalf("header %v and %d rows", recs[0], len(recs))
	}
	f, _ := os.Open(study)
	s, err := core.ReadStudy(f, studyfile.ApplicationMembers...)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	tally := map[string]int{}
	for i, r := range recs[1:] {
		if r[0] != strconv.Itoa(i) {
			t.Fatalf("row %d is user %s", i, r[0])
		}
		spec, ok := s.Find(r[1])
		if !ok {
			t.Fatalf("unknown mechanism %q", r[1])
		}
		m, _ := core.NewMechanism(spec, s.Alphabet)
		rep, err := core.ParseReport(m, r[2])
		if err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
		tally[r[1]+","+rep.String()]++
	}
	// The same seed gives the same file; the aggregated form holds the
	// same tallies.
	out2, agg := filepath.Join(dir, "again.csv"), filepath.Join(dir, "agg.csv")
	run("simulate", "-study", study, "-truth", truth, "-n", "1001", "-seed", "9", "-o", out2)
	a, _ := os.ReadFile(out)
	b, _ := os.ReadFile(out2)
	if string(a) != string(b) {
		t.Error("the same seed gave different reports")
	}
	if code, _, errs := run("simulate", "-study", study, "-truth", truth, "-n", "1001", "-seed", "9", "-aggregate", "-o", agg); code != 0 {
		t.Fatal(errs)
	}
	arecs := readCSV(t, agg)
	if strings.Join(arecs[0], ",") != "mechanism,report,count" {
		t.Fatalf("aggregate header %v", arecs[0])
	}
	total := 0
	for _, r := range arecs[1:] {
		c, _ := strconv.Atoi(r[2])
		total += c
		if tally[r[0]+","+r[1]] != c {
			t.Errorf("aggregate %v, per-user tally %d", r, tally[r[0]+","+r[1]])
		}
	}
	if total != 1001 || len(arecs)-1 != len(tally) {
		t.Errorf("aggregate holds %d users in %d groups, want 1001 in %d", total, len(arecs)-1, len(tally))
	}
	run("simulate", "-study", study, "-truth", truth, "-n", "1001", "-seed", "10", "-o", out2)
	if b, _ = os.ReadFile(out2); string(a) == string(b) {
		t.Error("another seed gave the same reports")
	}
}

func TestChannel(t *testing.T) {
	dir, study, _ := studyWith(t, mixed)
	out := filepath.Join(dir, "k1.csv")
	code, stdout, errs := run("channel", "-study", study, "-mechanism", "k1", "-o", out)
	if code != 0 {
		t.Fatal(errs)
	}
	if !strings.Contains(stdout, "worst-case ε-LDP over every output: 3.05\n") || !strings.Contains(stdout, "per km") {
		t.Errorf("audit:\n%s", stdout)
	}
	recs := readCSV(t, out)
	if len(recs) != 385 || len(recs[0]) != 385 || recs[0][0] != "x" || recs[0][384] != "z383" {
		t.Fatalf("matrix is %d×%d with header %v…", len(recs), len(recs[0]), recs[0][:3])
	}
	for _, r := range recs[1:] {
		sum := 0.0
		for _, v := range r[1:] {
			p, _ := strconv.ParseFloat(v, 64)
			sum += p
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Errorf("row %s sums to %v", r[0], sum)
		}
	}
	_, stdout, _ = run("channel", "-study", study, "-mechanism", "u1")
	if !strings.Contains(stdout, "over protected outputs: 1\n") || !strings.Contains(stdout, "exactly one possible input") {
		t.Errorf("uRR audit:\n%s", stdout)
	}
}

// TestChannelLargeEpsilon audits k-RR and RAPPOR where 1 − p cancels
// (ε = 45, 300: the audit must still read the nominal level) and the
// geometric mechanism where e^{−ε(K−1)} underflows (it must say so).
func TestChannelLargeEpsilon(t *testing.T) {
	study := filepath.Join(t.TempDir(), "s.json")
	os.WriteFile(study, []byte(`{"alphabet": {"kind": "linear", "size": 12}, "mechanisms": [
		{"id": "k", "kind": "krr", "epsilon": 45}, {"id": "r", "kind": "rappor", "epsilon": 300},
		{"id": "g", "kind": "geometric", "epsilon": 80}]}`), 0o644)
	for id, want := range map[string]string{
		"k": "over every output: 45\n",
		"r": "over every output: 300\n",
		"g": "over every output: ∞ (underflows at ε = 80: ",
	} {
		code, stdout, errs := run("channel", "-study", study, "-mechanism", id)
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("channel %s: status %d, %s\n%s, want %q", id, code, errs, stdout, want)
		}
	}
}

func TestSimulateChannelErrors(t *testing.T) {
	dir, bare, truth := studyWith(t, "")
	_, study, _ := studyWith(t, mixed)
	_, pum, _ := studyWith(t, `{"id": "p", "kind": "pum", "epsilon": 1, "tags": ["home"]}`)
	_, pumHome, _ := studyWith(t, `{"id": "p", "kind": "pum", "epsilon": 1, "tags": ["home", "work"]}`, "-home")
	badTruth := filepath.Join(dir, "bad.csv")
	os.WriteFile(badTruth, []byte("cell,probability\n384,1\n"), 0o644)
	badStudy := filepath.Join(dir, "bad.json")
	os.WriteFile(badStudy, []byte(`{"alphabet": {"kind": "linear", "size": 5}, "mechanisms": [{"id": "a", "kind": "krr", "epsilon": -1}]}`), 0o644)
	out := filepath.Join(dir, "out.csv")
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no mechanisms", []string{"simulate", "-study", bare, "-truth", truth, "-o", out}, 1, "lists no mechanisms"},
		{"truth off the alphabet", []string{"simulate", "-study", study, "-truth", badTruth, "-o", out}, 1, "bad.csv: core: distribution: line 2: cell \"384\""},
		{"bad study", []string{"simulate", "-study", badStudy, "-truth", truth, "-o", out}, 1, "bad.json: core: mechanism 1 (\"a\"): epsilon must be positive"},
		{"bad n", []string{"simulate", "-study", study, "-truth", truth, "-n", "0", "-o", out}, 2, "-n must be between 1 and 4294967296"},
		{"missing truth", []string{"simulate", "-study", study, "-o", out}, 2, "-truth is required"},
		{"unknown id", []string{"channel", "-study", study, "-mechanism", "zz"}, 1, `no mechanism with id "zz"`},
		{"matrix of rappor", []string{"channel", "-study", study, "-mechanism", "r1", "-o", out}, 1, "bit-vector outputs; no matrix"},
		{"pum without personal cells", []string{"simulate", "-study", pum, "-truth", truth, "-o", out}, 1, `no personal data for tag "home" (privmap grid -home`},
		{"pum on draws", []string{"simulate", "-study", pumHome, "-truth", truth, "-n", "10", "-o", out}, 1, "users drawn from a distribution lack"},
		{"pum tag missing", []string{"simulate", "-study", pumHome, "-truth", truth, "-o", out}, 1, `no personal data for tag "work"`},
		{"home without study", []string{"grid", "-in", truth, "-o", out, "-home"}, 2, "-home writes into the study"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errs := run(tc.args...)
			if code != tc.code || !strings.Contains(errs, tc.msg) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
				t.Errorf("exit %d, stderr %q; want exit %d and one line with %q", code, errs, tc.code, tc.msg)
			}
		})
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Error("a failed run wrote its output")
	}
}

// TestChannelShokri audits Shokri's mechanism on a linear alphabet: its
// expected quality loss meets Q (the bound binds for Q = 3 on 20 symbols).
func TestChannelShokri(t *testing.T) {
	dir := t.TempDir()
	study := filepath.Join(dir, "s.json")
	os.WriteFile(study, []byte(`{"alphabet": {"kind": "linear", "size": 20},
	  "mechanisms": [{"id": "s3", "kind": "shokri", "quality_loss": 3}]}`), 0o644)
	code, stdout, errs := run("channel", "-study", study, "-mechanism", "s3", "-o", filepath.Join(dir, "m.csv"))
	if code != 0 {
		t.Fatal(errs)
	}
	if !strings.Contains(stdout, "expected quality loss: 3") || !strings.Contains(stdout, "per step") {
		t.Errorf("audit:\n%s", stdout)
	}
}

// TestSimulateStudyData checks that without -n the users are the study's
// own data: with identity mechanisms each report is the user's cell.
func TestSimulateStudyData(t *testing.T) {
	dir, study, truth := studyWith(t, `{"id": "i1", "kind": "identity", "share": 0.7}, {"id": "i2", "kind": "identity", "share": 0.3}`)
	out := filepath.Join(dir, "r.csv")
	code, stdout, errs := run("simulate", "-study", study, "-truth", truth, "-o", out)
	if code != 0 {
		t.Fatal(errs)
	}
	if !strings.Contains(stdout, "simulated 500 users of the study's data") || !strings.Contains(stdout, "i1 350 i2 150") {
		t.Errorf("summary %q", stdout)
	}
	f, _ := os.Open(study)
	s, err := core.ReadStudy(f, studyfile.ApplicationMembers...)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	recs := readCSV(t, out)
	if len(recs) != 501 || len(s.Data) != 500 {
		t.Fatalf("%d rows for %d data", len(recs)-1, len(s.Data))
	}
	firstI2 := -1
	for i, r := range recs[1:] {
		if r[2] != strconv.Itoa(s.Data[i]) {
			t.Fatalf("user %d reported %s, datum %d", i, r[2], s.Data[i])
		}
		if r[1] == "i2" && firstI2 < 0 {
			firstI2 = i
		}
	}
	// The users of i2 are spread by the permutation, not the last 150.
	if firstI2 >= 350 {
		t.Errorf("mechanism i2 starts at user %d: assignment follows file order", firstI2)
	}
}

// TestSimulatePUM grids with -home, sanitises the study's data with a PUM
// and checks that users at home report ⊥home far more often than the
// others, and that the audit and the matrix cover the extended alphabet.
func TestSimulatePUM(t *testing.T) {
	dir, study, truth := studyWith(t, `{"id": "p", "kind": "pum", "epsilon": 2, "sensitive": [0], "tags": ["home"]}`, "-home")
	f, _ := os.Open(study)
	s, err := core.ReadStudy(f, studyfile.ApplicationMembers...)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	homes := s.Personal["home"]
	if len(homes) != len(s.Data) {
		t.Fatalf("%d homes for %d data", len(homes), len(s.Data))
	}
	out := filepath.Join(dir, "r.csv")
	if code, _, errs := run("simulate", "-study", study, "-truth", truth, "-o", out); code != 0 {
		t.Fatal(errs)
	}
	// With ε = 2 and X_S ∪ Z = {0, ⊥}, D = 2 + e² − 1: a user at home
	// reports ⊥ with probability e²/D ≈ 0.88, another with 1/D ≈ 0.12.
	var at, atBot, away, awayBot int
	for i, r := range readCSV(t, out)[1:] {
		bot := r[2] == "384"
		if s.Data[i] == homes[i] && s.Data[i] != 0 {
			at++
			if bot {
				atBot++
			}
		} else if s.Data[i] != 0 {
			away++
			if bot {
				awayBot++
			}
		}
	}
	if at < 50 || away < 50 || float64(atBot)/float64(at) < 0.7 || float64(awayBot)/float64(away) > 0.3 {
		t.Errorf("⊥home from %d/%d users at home and %d/%d away", atBot, at, awayBot, away)
	}
	m := filepath.Join(dir, "m.csv")
	code, stdout, errs := run("channel", "-study", study, "-mechanism", "p", "-o", m)
	if code != 0 {
		t.Fatal(errs)
	}
	if !strings.Contains(stdout, "384 is tag ⊥home") || !strings.Contains(stdout, "over protected outputs: 2\n") {
		t.Errorf("audit:\n%s", stdout)
	}
	if recs := readCSV(t, m); len(recs) != 386 || len(recs[0]) != 386 || recs[0][385] != "z384" {
		t.Errorf("matrix %d×%d", len(recs), len(recs[0]))
	}
}
