package cli

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/privmap/privmap/app/studyfile"
	"github.com/privmap/privmap/core"
)

const adultSample = "../../geo/census/testdata/adult_sample.data"

// TestGridCensusEndToEnd runs grid, simulate, estimate (gibu and cem) and
// metrics on real Adult lines with CEM Table 2's mapping and CEM's four ε.
func TestGridCensusEndToEnd(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	code, out, errs := run("grid", "-format", "adult", "-in", adultSample, "-attrs", "age,sex,income,marital",
		"-o", p("truth.csv"), "-study-out", p("study.json"), "-preset", "cem")
	if code != 0 {
		t.Fatalf("grid: exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "= 120 categories") || !strings.Contains(out, "data: 13 people") {
		t.Errorf("summary:\n%s", out)
	}
	recs := readCSV(t, p("truth.csv"))
	if got := strings.Join(recs[0], ","); got != "cell,probability,count,label,age,sex,income,marital" {
		t.Errorf("header %q", got)
	}
	if len(recs) != 121 {
		t.Fatalf("%d rows, want 120 and a header", len(recs))
	}
	// Record 1 of the sample: 39, Male, <=50K, Never-married → symbol 44.
	if r := recs[45]; r[0] != "44" || r[2] != "1" || r[3] != "30–39, male, ≤$50K, never married" || r[4] != "30–39" || r[7] != "never married" {
		t.Errorf("row of symbol 44 = %v", r)
	}
	fh, err := os.Open(p("study.json"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := core.ReadStudy(fh, studyfile.ApplicationMembers...)
	fh.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Alphabet.Attributes) != 4 || len(s.Data) != 13 || len(s.Mechanisms) != 4 || s.Mechanisms[2].Epsilon != math.Log(120) {
		t.Errorf("study: %d attributes, %d data, mechanisms %+v", len(s.Alphabet.Attributes), len(s.Data), s.Mechanisms)
	}
	if code, _, errs := run("simulate", "-study", p("study.json"), "-truth", p("truth.csv"), "-seed", "7", "-o", p("reports.csv")); code != 0 {
		t.Fatalf("simulate: exit %d: %s", code, errs)
	}
	for _, method := range []string{"gibu", "cem"} {
		est := p(method + ".csv")
		code, out, errs := run("estimate", "-study", p("study.json"), "-reports", p("reports.csv"), "-method", method, "-o", est)
		if code != 0 {
			t.Fatalf("estimate %s: exit %d: %s", method, code, errs)
		}
		var res struct {
			Method    string
			Converged bool
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil || res.Method != method || !res.Converged {
			t.Errorf("estimate %s printed %q (%v)", method, out, err)
		}
		sum := 0.0
		rows := readCSV(t, est)
		for _, r := range rows[1:] {
			v, _ := strconv.ParseFloat(r[1], 64)
			sum += v
		}
		if len(rows) != 121 || math.Abs(sum-1) > 1e-9 || rows[0][2] != "label" {
			t.Errorf("%s estimate: %d rows summing to %v, header %v", method, len(rows), sum, rows[0])
		}
		code, out, errs = run("metrics", "-truth", p("truth.csv"), "-estimate", est, "-study", p("study.json"))
		if code != 0 || !strings.Contains(out, `"emd":null`) || !strings.Contains(out, `"tv":`) {
			t.Errorf("metrics %s: exit %d: %s %s", method, code, out, errs)
		}
	}
}

func TestGridCensusOptions(t *testing.T) {
	dir := t.TempDir()
	truth := filepath.Join(dir, "t.csv")
	code, out, errs := run("grid", "-format", "adult", "-in", adultSample, "-attrs", "age,workclass",
		"-bins", "age=17,30,50", "-merge", "workclass=self-employed:Self-emp-not-inc|Self-emp-inc", "-missing", "category", "-o", truth)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// 3 age bins × {Private, State-gov, self-employed, missing}.
	if !strings.Contains(out, "= 12 categories") || !strings.Contains(out, "missing: workclass in 1 records (category)") {
		t.Errorf("summary:\n%s", out)
	}
	recs := readCSV(t, truth)
	if got := recs[1][3]; got != "17–29, Private" {
		t.Errorf("first label %q, want \"17–29, Private\"", got)
	}
	if got := recs[4][3]; got != "17–29, missing" {
		t.Errorf("fourth label %q", got)
	}
	study := filepath.Join(dir, "s.json")
	code, _, errs = run("grid", "-format", "adult", "-in", adultSample, "-attrs", "age", "-ordinal", "-o", truth, "-study-out", study)
	if code != 0 {
		t.Fatalf("ordinal: exit %d: %s", code, errs)
	}
	b, _ := os.ReadFile(study)
	if !strings.Contains(string(b), `"kind": "linear"`) || !strings.Contains(string(b), `"65+"`) {
		t.Errorf("ordinal study:\n%s", b)
	}
}

func TestGridCensusErrors(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "t.csv")
	bad := filepath.Join(dir, "bad.data")
	if err := os.WriteFile(bad, []byte("39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, Male, 2174, 0, 40, United-States, <=50K\n40, Private\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"bbox on census", []string{"-format", "adult", "-in", adultSample, "-bbox", "1,2,3,4"}, 2, "-bbox: for check-in files only"},
		{"attrs on check-ins", []string{"-format", "gowalla", "-in", adultSample, "-attrs", "age"}, 2, "-attrs: for census files"},
		{"unknown attribute", []string{"-format", "adult", "-in", adultSample, "-attrs", "height"}, 2, `no attribute "height"`},
		{"bad edges", []string{"-format", "adult", "-in", adultSample, "-attrs", "age", "-bins", "age=30,x"}, 2, `edge "x"`},
		{"bins not chosen", []string{"-format", "adult", "-in", adultSample, "-attrs", "age", "-bins", "fnlwgt=0,1"}, 2, `"fnlwgt", which is not in -attrs`},
		{"merge syntax", []string{"-format", "adult", "-in", adultSample, "-attrs", "race", "-merge", "race=White"}, 2, "want LABEL:V1|V2"},
		{"not ordinal", []string{"-format", "adult", "-in", adultSample, "-attrs", "sex", "-ordinal"}, 2, "ordinal alphabet needs one ordered attribute"},
		{"missing policy", []string{"-format", "adult", "-in", adultSample, "-missing", "impute"}, 2, `policy "impute"`},
		{"malformed line", []string{"-format", "adult", "-in", bad}, 1, "bad.data: line 2: 2 fields, want 15"},
		{"preset without study", []string{"-format", "adult", "-in", adultSample, "-preset", "cem"}, 2, "give -study-out"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errs := run(append([]string{"grid", "-o", out}, tc.args...)...)
			if code != tc.code || !strings.Contains(errs, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d with %q", code, errs, tc.code, tc.want)
			}
		})
	}
	// -skip-bad reads on.
	code, stdout, errs := run("grid", "-format", "adult", "-in", bad, "-skip-bad", "-o", out)
	if code != 0 || !strings.Contains(stdout, "1 bad lines skipped") {
		t.Errorf("skip-bad: exit %d, %s %s", code, stdout, errs)
	}
}
