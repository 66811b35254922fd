package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttackCLI attacks the mixed population of the synthetic grid:
// one JSON line a mechanism with the one-report and home figures, a
// sentence each on stderr, the CSV; the same seed writes the same CSV.
func TestAttackCLI(t *testing.T) {
	dir, study, truth := studyWith(t, mixed, "-per-user", "all")
	out := filepath.Join(dir, "attack.csv")
	args := []string{"attack", "-study", study, "-truth", truth, "-per-person", "-seed", "3", "-o", out}
	code, stdout, errs := run(args...)
	if code != 0 {
		t.Fatal(errs)
	}
	var lines []map[string]any
	sc := bufio.NewScanner(strings.NewReader(stdout))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		lines = append(lines, m)
	}
	if len(lines) != 4 {
		t.Fatalf("%d JSON lines, want 4: %s", len(lines), stdout)
	}
	for _, m := range lines {
		for _, key := range []string{"mechanism", "kind", "level", "bayes_success", "prior_success", "home_exact", "home_people"} {
			if _, ok := m[key]; !ok {
				t.Errorf("%v lacks %s", m["mechanism"], key)
			}
		}
		s, p := m["bayes_success"].(float64), m["prior_success"].(float64)
		if !(s >= p*(1-1e-12) && s <= 1) {
			t.Errorf("%v: success %g against %g without a report", m["mechanism"], s, p)
		}
	}
	for _, key := range []string{"expected_error_km", "within_1km", "home_within_1km", "home_median_km"} {
		if _, ok := lines[0][key]; !ok {
			t.Errorf("planar line lacks %s: %v", key, lines[0])
		}
	}
	if _, ok := lines[3]["no_distance"]; !ok {
		t.Errorf("rappor line says nothing of the distance: %v", lines[3])
	}
	if strings.Count(errs, "Seeing one report, an attacker who knows the data's map") != 4 || !strings.Contains(errs, "every person") {
		t.Errorf("stderr %q", errs)
	}
	recs := readCSV(t, out)
	if strings.Join(recs[0], ",") != "mechanism,kind,level,reports,people,bayes_success,prior_success,expected_error,prior_error,unit,within_0.5km,within_1km,within_2km,home_exact,home_within_1,home_median" ||
		len(recs) != 1+4+4*5+5 {
		t.Errorf("CSV: %d rows, header %v", len(recs), recs[0])
	}
	again := filepath.Join(dir, "again.csv")
	if code, _, errs := run(append(args[:len(args)-1], again)...); code != 0 || string(mustRead(t, out)) != string(mustRead(t, again)) {
		t.Errorf("the same seed gave another CSV (%s)", errs)
	}
}

// TestAttackSweepCLI draws k-RR's trade-off as SVG and CSV, and
// refuses flags that do not go together, writing nothing.
func TestAttackSweepCLI(t *testing.T) {
	dir, study, truth := studyWith(t, `{"id": "k1", "kind": "krr", "epsilon": 3}`)
	fig, out := filepath.Join(dir, "sweep.svg"), filepath.Join(dir, "sweep.csv")
	code, stdout, errs := run("attack", "-study", study, "-truth", truth, "-sweep", "krr", "-eps", "1:8:3", "-runs", "2", "-users", "300", "-figure", fig, "-o", out)
	if code != 0 {
		t.Fatal(errs)
	}
	// 1:8:3 is 1, 2.83 and 8; the study's ε 3 takes 2.83's place.
	if n := strings.Count(stdout, "\n"); n != 3 || !strings.Contains(stdout, `"eps":3,`) || !strings.Contains(stdout, `"current":true`) {
		t.Errorf("stdout %q", stdout)
	}
	if b := mustRead(t, fig); !strings.Contains(string(b), "<svg") || !strings.Contains(string(b), "written by privmap") {
		t.Errorf("figure is not privmap's SVG")
	}
	if recs := readCSV(t, out); len(recs) != 4 || recs[0][1] != "eps" {
		t.Errorf("sweep CSV %v", recs)
	}
	if !strings.Contains(errs, "For krr alone from ε 1 to 8") {
		t.Errorf("stderr %q", errs)
	}
	bad := filepath.Join(dir, "bad.csv")
	for _, args := range [][]string{
		{"-figure", filepath.Join(dir, "f.png")},
		{"-sweep", "krr", "-eps", "1:8:3", "-per-person"},
		{"-sweep", "krr"},
		{"-sweep", "krr", "-eps", "8:1:3"},
		{"-sweep", "krr", "-eps", "1:8:3", "-figure", filepath.Join(dir, "f.jpg")},
		{"-sweep", "shokri", "-eps", "1:8:3"},
	} {
		code, _, errs := run(append([]string{"attack", "-study", study, "-truth", truth, "-o", bad}, args...)...)
		if code != 2 {
			t.Errorf("%v: exit %d (%s)", args, code, errs)
		}
		if _, err := os.Stat(bad); err == nil {
			t.Errorf("%v wrote %s", args, bad)
		}
	}
}

// TestAttackCancelled checks that a cancelled attack exits as
// interrupted and writes nothing.
func TestAttackCancelled(t *testing.T) {
	dir, study, truth := studyWith(t, mixed, "-per-user", "all")
	out := filepath.Join(dir, "attack.csv")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stderr strings.Builder
	if code := Run(ctx, []string{"attack", "-study", study, "-truth", truth, "-per-person", "-o", out}, io.Discard, &stderr); code != 130 {
		t.Errorf("exit %d (%s), want 130", code, stderr.String())
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a cancelled attack wrote %s", out)
	}
}
