package cli

import (
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlan plans the users of a k-RR and planar population on the
// 24×16 grid: the JSON line answers with the users at the target, the
// CSV holds every run's error and its point's bound, and the figure is
// a PNG; the same seed writes the same CSV.
func TestPlan(t *testing.T) {
	dir, study, truth := studyWith(t, `{"id": "g1", "kind": "planar-geometric", "epsilon": 1.159, "share": 0.5},
	{"id": "k1", "kind": "krr", "epsilon": 5, "share": 0.5}`)
	out, fig := filepath.Join(dir, "plan.csv"), filepath.Join(dir, "plan.png")
	args := []string{"plan", "-study", study, "-truth", truth, "-target", "0.25", "-runs", "4", "-points", "500,2000,8000", "-seed", "5", "-o", out}
	code, stdout, errs := run(append(args, "-figure", fig)...)
	if code != 0 {
		t.Fatal(errs)
	}
	var res struct {
		Vary   string  `json:"vary"`
		Error  string  `json:"error"`
		Target float64 `json:"target"`
		Runs   int     `json:"runs"`
		Points []struct {
			X, Bound float64
		} `json:"points"`
		Need *float64 `json:"need"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || res.Vary != "users" || res.Error != "tv" || res.Runs != 4 || len(res.Points) != 3 {
		t.Fatalf("JSON line %q (%v)", stdout, err)
	}
	if res.Need == nil || *res.Need < 1 {
		t.Fatalf("no answer: %s", stdout)
	}
	if !strings.Contains(errs, "To keep the TV to the truth at most 0.25") {
		t.Errorf("stderr %q lacks the sentence", errs)
	}
	recs := readCSV(t, out)
	if strings.Join(recs[0], ",") != "x,run,error,bound" || len(recs) != 1+3*4 || recs[1][0] != "500" || recs[12][0] != "8000" {
		t.Fatalf("plan CSV %v", recs)
	}
	f, err := os.Open(fig)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.DecodeConfig(f); err != nil {
		t.Errorf("figure: %v", err)
	}
	again := filepath.Join(dir, "again.csv")
	if code, _, errs := run(append(args[:len(args)-1], again)...); code != 0 || string(mustRead(t, out)) != string(mustRead(t, again)) {
		t.Errorf("the same seed gave another CSV (%s)", errs)
	}
}

// TestPlanRelease plans a central release's ε in closed form from the
// truth's cells, and refuses the local plan's flags with it.
func TestPlanReleaseCLI(t *testing.T) {
	_, _, truth := studyWith(t, `{"id": "k1", "kind": "krr", "epsilon": 5}`)
	code, stdout, errs := run("plan", "-mechanism", "laplace", "-truth", truth, "-target", "10")
	if code != 0 {
		t.Fatal(errs)
	}
	var res struct {
		Cells   int     `json:"cells"`
		EpsAll  float64 `json:"eps_all"`
		EpsEach float64 `json:"eps_each"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || res.Cells != 384 || !(res.EpsAll > res.EpsEach && res.EpsEach > 0) {
		t.Fatalf("JSON line %q (%v)", stdout, err)
	}
	if !strings.Contains(errs, "For every one of the 384 released counts to lie within ±10 of its true count with probability 95%") {
		t.Errorf("stderr %q", errs)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"plan", "-mechanism", "laplace", "-truth", truth, "-target", "10", "-runs", "5"}, "-runs plans the local estimate"},
		{[]string{"plan", "-mechanism", "laplace", "-target", "10"}, "-cells or -truth"},
		{[]string{"plan", "-mechanism", "laplace", "-cells", "10", "-target", "2.5"}, "a whole number"},
		{[]string{"plan", "-study", "x.json", "-truth", truth}, "-target"},
		{[]string{"plan", "-study", "x.json", "-truth", truth, "-target", "0.1", "-figure", "a.svg"}, "want a .png"},
		{[]string{"plan", "-study", "x.json", "-truth", truth, "-target", "0.1", "-points", "1,b"}, `"b" is not a number`},
	} {
		code, _, errs := run(tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q", tc.args, code, errs, tc.want)
		}
	}
}
