package cli

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// mixedReports returns a study of one planar geometric and one k-RR
// mechanism in equal shares on studyWith's grid, its truth, and the
// reports simulate draws from it, in a test folder.
func mixedReports(t *testing.T) (dir, study, truth, reports string) {
	t.Helper()
	dir, study, truth = studyWith(t, `{"id": "g1", "kind": "planar-geometric", "epsilon": 1.159, "share": 0.5},
	{"id": "k1", "kind": "krr", "epsilon": 5, "share": 0.5}`)
	reports = filepath.Join(dir, "r.csv")
	if code, _, errs := run("simulate", "-study", study, "-truth", truth, "-aggregate", "-o", reports); code != 0 {
		t.Fatal(errs)
	}
	return dir, study, truth, reports
}

// TestEstimateMetrics runs grid → simulate → estimate → metrics end to end
// on a mixture of planar geometric and k-RR users, with every method that
// fits it.
func TestEstimateMetrics(t *testing.T) {
	dir, study, truth, reports := mixedReports(t)
	var gibuLL float64
	for _, m := range []string{"gibu", "em", "ibu-m", "ibu-r", "inv-m", "inv-r", "cem"} {
		out := filepath.Join(dir, m+".csv")
		code, stdout, errs := run("estimate", "-study", study, "-reports", reports, "-method", m, "-o", out)
		if code != 0 {
			t.Fatalf("%s: %s", m, errs)
		}
		var res map[string]any
		if err := json.Unmarshal([]byte(stdout), &res); err != nil || res["method"] != m || strings.Count(stdout, "\n") != 1 {
			t.Fatalf("%s: stdout %q (%v)", m, stdout, err)
		}
		if _, ok := res["alpha"]; ok != (m == "cem") {
			t.Errorf("%s: alpha present %v", m, ok)
		}
		ll, _ := res["loglik"].(float64)
		if m == "gibu" {
			gibuLL = ll
		} else if ll > gibuLL+1e-12 {
			t.Errorf("%s: log-likelihood %v above GIBU's %v", m, ll, gibuLL)
		}
		recs := readCSV(t, out)
		sum := 0.0
		for _, r := range recs[1:] {
			v, _ := strconv.ParseFloat(r[1], 64)
			sum += v
		}
		if strings.Join(recs[0], ",") != "cell,probability,row,col,lat,lon" || len(recs) != 385 || math.Abs(sum-1) > 1e-12 {
			t.Errorf("%s: estimate file %v…, %d rows, sum %v", m, recs[0], len(recs), sum)
		}
		code, stdout, errs = run("metrics", "-truth", truth, "-estimate", out, "-study", study)
		if code != 0 {
			t.Fatal(errs)
		}
		var met struct {
			EMD     *float64 `json:"emd"`
			Unit    string   `json:"emd_unit"`
			MSE     float64
			JSD, TV float64
		}
		if err := json.Unmarshal([]byte(stdout), &met); err != nil || met.EMD == nil || met.Unit != "km" || !(*met.EMD > 0) || !(met.TV > 0 && met.TV < 1) {
			t.Errorf("%s: metrics %q", m, stdout)
		}
	}
	// Without a study: no ground distance.
	code, stdout, _ := run("metrics", "-truth", truth, "-estimate", filepath.Join(dir, "gibu.csv"))
	if code != 0 || !strings.HasPrefix(stdout, `{"emd":null,"mse":`) {
		t.Errorf("metrics without a study: %q", stdout)
	}
}

func TestEstimateErrors(t *testing.T) {
	dir, study, truth := studyWith(t, `{"id": "k1", "kind": "krr", "epsilon": 2}, {"id": "r1", "kind": "rappor", "epsilon": 2}`)
	reports := filepath.Join(dir, "r.csv")
	if code, _, errs := run("simulate", "-study", study, "-truth", truth, "-n", "200", "-o", reports); code != 0 {
		t.Fatal(errs)
	}
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("mechanism,report\nk1,7\nzz,1\n"), 0o644)
	out := filepath.Join(dir, "e.csv")
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"-method", "magic"}, 1, `unknown method "magic"`},
		{[]string{"-method", "inv"}, 1, "privmap estimate: inv: core: inv is for the users of one mechanism"},
		{[]string{"-method", "inv-m"}, 1, `inv-m needs mechanisms with symbol outputs; mechanism "r1" (rappor) reports bit vectors`},
		{[]string{"-method", "inv-r"}, 1, `inv-r needs mechanisms with symbol outputs; mechanism "r1" (rappor) reports bit vectors`},
		{[]string{"-method", "rap-m"}, 1, `rap needs RAPPOR users; mechanism "k1"`},
		{[]string{"-method", "uldp"}, 1, "the uldp estimator is for urr, urappor and pum"},
		{[]string{"-post", "odd", "-method", "inv-r"}, 1, `post-processing "odd"`},
		{[]string{"-tol", "-1"}, 2, "must be ≥ 0"},
	}
	for _, tc := range tests {
		args := append([]string{"estimate", "-study", study, "-reports", reports, "-o", out}, tc.args...)
		code, _, errs := run(args...)
		if code != tc.code || !strings.Contains(errs, tc.msg) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, errs, tc.code, tc.msg)
		}
	}
	code, _, errs := run("estimate", "-study", study, "-reports", bad, "-o", out)
	if code != 1 || !strings.Contains(errs, `bad.csv: core: reports: line 3: no mechanism "zz"`) {
		t.Errorf("bad reports: %d %q", code, errs)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Error("a failed estimate wrote its output")
	}
}

// TestInterrupted runs each command that reads a study with its context
// already cancelled, as Ctrl+C does: it exits with status 130, says so,
// and leaves no output file, not even a temporary one.
func TestInterrupted(t *testing.T) {
	dir, study, truth := studyWith(t, `{"id": "g1", "kind": "planar-geometric", "epsilon": 1.159}`)
	reports := filepath.Join(dir, "r.csv")
	if code, _, errs := run("simulate", "-study", study, "-truth", truth, "-o", reports); code != 0 {
		t.Fatal(errs)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := filepath.Join(dir, "out.csv")
	for _, args := range [][]string{
		{"simulate", "-study", study, "-truth", truth, "-o", out},
		{"estimate", "-study", study, "-reports", reports, "-o", out},
		{"metrics", "-study", study, "-truth", truth, "-estimate", truth},
		{"channel", "-study", study, "-mechanism", "g1", "-o", out},
	} {
		t.Run(args[0], func(t *testing.T) {
			var o, e strings.Builder
			if code := Run(ctx, args, &o, &e); code != 130 || !strings.Contains(e.String(), "interrupted") {
				t.Errorf("exit %d, stderr %q; want 130 and interrupted", code, e.String())
			}
			files, _ := filepath.Glob(filepath.Join(dir, "*out.csv*"))
			if len(files) > 0 {
				t.Errorf("left %v behind", files)
			}
		})
	}
}

// TestOutputsDistinct checks that no command lets an output replace an
// input it reads or another output: the same name, or a symbolic link to
// it, is refused as a usage error (status 2) before any work, and the
// files are untouched.
func TestOutputsDistinct(t *testing.T) {
	dir, study, truth := studyWith(t, `{"id": "k1", "kind": "krr", "epsilon": 2}`)
	reports := filepath.Join(dir, "r.csv")
	if code, _, errs := run("simulate", "-study", study, "-truth", truth, "-n", "50", "-o", reports); code != 0 {
		t.Fatal(errs)
	}
	link := filepath.Join(dir, "link.csv")
	if err := os.Symlink("r.csv", link); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(reports)
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"estimate", "-study", study, "-reports", reports, "-o", reports}, "-o and -reports name the same file"},
		{[]string{"estimate", "-study", study, "-reports", reports, "-o", link}, "-o would replace the input"},
		{[]string{"simulate", "-study", study, "-truth", truth, "-o", truth}, "-o and -truth name the same file"},
		{[]string{"channel", "-study", study, "-mechanism", "k1", "-o", study}, "-o and -study name the same file"},
		{[]string{"grid", "-in", reports, "-o", filepath.Join(dir, "a.csv"), "-study-out", filepath.Join(dir, "a.csv")}, "-o and -study-out name the same file"},
	} {
		code, _, errs := run(tc.args...)
		if code != 2 || !strings.Contains(errs, tc.msg) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, errs, tc.msg)
		}
	}
	if after, _ := os.ReadFile(reports); string(after) != string(before) {
		t.Error("the reports were changed")
	}
	if _, err := os.Stat(filepath.Join(dir, "a.csv")); !os.IsNotExist(err) {
		t.Error("grid wrote an output")
	}
}

// TestEstimateCI runs estimate -ci: the JSON line's ci_ members, the
// columns lo,hi,band_lo,band_hi (each a probability, the band about the
// estimate), the same file from the same seed, a file that metrics still
// reads, and the refusals.
func TestEstimateCI(t *testing.T) {
	dir, study, truth, reports := mixedReports(t)
	out, again := filepath.Join(dir, "ci.csv"), filepath.Join(dir, "ci2.csv")
	args := []string{"estimate", "-study", study, "-reports", reports, "-ci", "0.9", "-boot", "40", "-seed", "3"}
	code, stdout, errs := run(append(args, "-o", out)...)
	if code != 0 {
		t.Fatal(errs)
	}
	var res struct {
		Level      float64  `json:"ci_level"`
		Method     string   `json:"ci_method"`
		Replicates int      `json:"ci_replicates"`
		Critical   float64  `json:"ci_critical"`
		TV         *float64 `json:"ci_tv"`
		MaxError   *float64 `json:"ci_max_error"`
		EMD        *float64 `json:"ci_emd"`
		Unit       string   `json:"ci_emd_unit"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || res.Level != 0.9 || res.Method != "bootstrap" || res.Replicates != 40 ||
		!(res.Critical > 1.6) || res.TV == nil || !(*res.TV > 0 && *res.TV < 1) || res.MaxError == nil || res.EMD == nil || !(*res.EMD > 0) || res.Unit != "km" {
		t.Fatalf("JSON line %q (%v)", stdout, err)
	}
	if !strings.Contains(errs, "With 90% confidence (a parametric bootstrap of 40 replicates, approximate; at the 247 cells the estimate puts at 0, upper ends that hold the profile likelihood's), each of the 384 cells") {
		t.Errorf("stderr %q lacks the sentence", errs)
	}
	recs := readCSV(t, out)
	if got := strings.Join(recs[0], ","); got != "cell,probability,row,col,lat,lon,lo,hi,band_lo,band_hi" {
		t.Fatalf("header %s", got)
	}
	for _, r := range recs[1:] {
		var v [5]float64
		for i, f := range append([]string{r[1]}, r[6:]...) {
			v[i], _ = strconv.ParseFloat(f, 64)
		}
		p, lo, hi, blo, bhi := v[0], v[1], v[2], v[3], v[4]
		if !(0 <= lo && lo <= hi && hi <= 1 && 0 <= blo && blo <= p && p <= bhi && bhi <= 1) {
			t.Fatalf("cell %s: p %v, interval %v–%v, band %v–%v", r[0], p, lo, hi, blo, bhi)
		}
	}
	if code, _, errs := run(append(args, "-o", again)...); code != 0 || string(mustRead(t, out)) != string(mustRead(t, again)) {
		t.Errorf("the same seed gave another file (%s)", errs)
	}
	if code, _, errs := run("metrics", "-truth", truth, "-estimate", out, "-study", study); code != 0 {
		t.Errorf("metrics on an estimate with intervals: %s", errs)
	}
	// Fisher: 500 users on 384 cells put the MLE on the boundary.
	fisher := filepath.Join(dir, "fisher.csv")
	code, _, errs = run("estimate", "-study", study, "-reports", reports, "-ci", "0.95", "-ci-method", "fisher", "-o", fisher)
	if _, err := os.Stat(fisher); code != 1 || !strings.Contains(errs, "inside the simplex") || err == nil {
		t.Errorf("fisher on the boundary: status %d, %q, file written: %v", code, errs, err == nil)
	}
	// Profile: the same boundary estimate, each interval holding θ̂ and
	// the band each interval; no error figures.
	profile := filepath.Join(dir, "profile.csv")
	code, stdout, errs = run("estimate", "-study", study, "-reports", reports, "-ci", "0.95", "-ci-method", "profile", "-o", profile)
	if code != 0 {
		t.Fatalf("profile: status %d, %s", code, errs)
	}
	var pres struct {
		Method string   `json:"ci_method"`
		TV     *float64 `json:"ci_tv"`
	}
	if err := json.Unmarshal([]byte(stdout), &pres); err != nil || pres.Method != "profile" || pres.TV != nil {
		t.Errorf("profile JSON line %q (%v)", stdout, err)
	}
	if !strings.Contains(errs, "(the profile likelihood: the values each cell can take whose best likelihood is within χ²₁'s 95% quantile of the most likely map's, approximate)") {
		t.Errorf("profile: stderr %q lacks the sentence", errs)
	}
	atZero := 0
	for _, r := range readCSV(t, profile)[1:] {
		var v [5]float64
		for i, f := range append([]string{r[1]}, r[6:]...) {
			v[i], _ = strconv.ParseFloat(f, 64)
		}
		p, lo, hi, blo, bhi := v[0], v[1], v[2], v[3], v[4]
		if !(0 <= blo && blo <= lo && lo <= p && p <= hi && hi <= bhi && bhi <= 1) {
			t.Fatalf("profile, cell %s: p %v, interval %v–%v, band %v–%v", r[0], p, lo, hi, blo, bhi)
		}
		if p == 0 && hi > 0 {
			atZero++
		}
	}
	if atZero == 0 {
		t.Error("profile: no cell at 0 has an interval above it")
	}
	// -boot 0 is refused, not read as the default 200 (issue 46).
	for _, bad := range [][]string{{"-boot", "40"}, {"-ci", "1"}, {"-ci", "0.99", "-boot", "40"}, {"-ci", "0.9", "-ci-method", "jackknife"}, {"-ci", "0.9", "-boot", "0"}} {
		code, _, errs := run(append([]string{"estimate", "-study", study, "-reports", reports, "-o", fisher}, bad...)...)
		if code != 2 {
			t.Errorf("%v: status %d (%s), want 2", bad, code, errs)
		}
		if bad[len(bad)-1] == "0" && !strings.Contains(errs, "0 bootstrap replicates: want 20 to") {
			t.Errorf("%v: %s", bad, errs)
		}
	}
}

// TestEstimateFisherRefusedFirst is issue 45's third point in part:
// Fisher intervals beyond core.MaxFisherSymbols were refused only after
// the estimate (32 s on New York); they are refused before anything is
// built or read — here the reports file does not even exist.
func TestEstimateFisherRefusedFirst(t *testing.T) {
	dir := t.TempDir()
	study := filepath.Join(dir, "s.json")
	if code, _, errs := run("grid", "-in", "../../assets/default_checkins.snap.txt", "-cell", "0.1", "-preset", "fw-t6", "-o", filepath.Join(dir, "t.csv"), "-study-out", study); code != 0 {
		t.Fatal(errs)
	}
	code, _, errs := run("estimate", "-study", study, "-reports", filepath.Join(dir, "none.csv"), "-method", "gibu", "-ci", "0.95", "-ci-method", "fisher", "-o", filepath.Join(dir, "e.csv"))
	if code != 2 || !strings.Contains(errs, "-ci: fisher intervals form the") || !strings.Contains(errs, "beyond the 4096 symbols they take: use the bootstrap") {
		t.Errorf("exit %d: %s", code, errs)
	}
}

// TestEstimateCEMChoice runs corrected EM's choice of α both ways: the
// JSON line carries the simulations' mean losses with the chosen α and
// without any (α = 0 is in the grid, so the first is never
// above the second), stderr says what the choice found, the estimate
// with α = 0 is EM's own, and bad choices are refused.
func TestEstimateCEMChoice(t *testing.T) {
	dir, study, _, reports := mixedReports(t)
	gibu := filepath.Join(dir, "gibu.csv")
	if code, _, errs := run("estimate", "-study", study, "-reports", reports, "-o", gibu); code != 0 {
		t.Fatal(errs)
	}
	for _, from := range []string{"estimate", "reports"} {
		out := filepath.Join(dir, from+".csv")
		code, stdout, errs := run("estimate", "-study", study, "-reports", reports, "-method", "cem", "-alpha-from", from, "-alpha-sims", "2", "-o", out)
		if code != 0 {
			t.Fatalf("%s: %s", from, errs)
		}
		var all map[string]any
		if err := json.Unmarshal([]byte(stdout), &all); err != nil {
			t.Fatal(err)
		}
		num := func(k string) *float64 {
			if v, ok := all[k].(float64); ok {
				return &v
			}
			return nil
		}
		var res struct{ Alpha, AlphaLoss, EMLoss *float64 }
		res.Alpha, res.AlphaLoss, res.EMLoss = num("alpha"), num("alpha_loss"), num("em_loss")
		if res.Alpha == nil || res.AlphaLoss == nil || res.EMLoss == nil || !(*res.EMLoss > 0) || *res.AlphaLoss > *res.EMLoss {
			t.Fatalf("%s: JSON line %s", from, stdout)
		}
		if !strings.Contains(errs, "simulated data sets drawn from") {
			t.Errorf("%s: stderr %q says nothing of α's choice", from, errs)
		}
		if *res.Alpha == 0 {
			if !strings.Contains(errs, "left EM's estimate uncorrected (α = 0)") || string(mustRead(t, out)) != string(mustRead(t, gibu)) {
				t.Errorf("%s: α = 0, but the estimate is not EM's or stderr %q does not say so", from, errs)
			}
		}
	}
	for _, bad := range [][]string{{"-alpha-from", "truth"}, {"-alpha-sims", "0"}, {"-alpha-sims", "101"}} {
		code, _, errs := run(append([]string{"estimate", "-study", study, "-reports", reports, "-method", "cem", "-o", filepath.Join(dir, "bad.csv")}, bad...)...)
		if code != 2 {
			t.Errorf("%v: status %d (%s), want 2", bad, code, errs)
		}
	}
}
