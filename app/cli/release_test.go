package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/privmap/privmap/app/ledger"
	"github.com/privmap/privmap/app/release"
	"github.com/privmap/privmap/app/studyfile"
	"github.com/privmap/privmap/core"
	"github.com/privmap/privmap/core/central"
)

// releaseTruth grids the project's default check-ins: a truth with counts.
func releaseTruth(t *testing.T) (dir, truth string) {
	t.Helper()
	dir = t.TempDir()
	truth = filepath.Join(dir, "t.csv")
	if code, _, errs := run("grid", "-in", "../../assets/default_checkins.snap.txt", "-o", truth); code != 0 {
		t.Fatal(errs)
	}
	return dir, truth
}

// readRelease reads a released file: its header, and each cell's
// probability, count and raw count.
func readRelease(t *testing.T, name string) (head []string, p, count, raw []float64) {
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
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		return v
	}
	for _, r := range recs[1:] {
		p, count, raw = append(p, num(r[1])), append(count, num(r[2])), append(raw, num(r[3]))
	}
	return recs[0], p, count, raw
}

// TestRelease releases the default data with each mechanism: the file
// has a released count per cell, clipped at 0, whole, with the raw one
// beside it and the grid's columns; its probabilities are the clipped
// counts normalised; the JSON line carries the noise's closed forms and
// the errors measured on the file; a seed repeats a preview.
func TestRelease(t *testing.T) {
	dir, truth := releaseTruth(t)
	f, _ := os.Open(truth)
	tab, err := core.ReadCountTable(f, 0)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args  []string
		c     float64
		noise func() (absMean, worst, budget float64)
	}{
		{[]string{"-mechanism", "geometric", "-eps", "0.5"}, 0, func() (float64, float64, float64) {
			g, _ := central.NewGeometricNoise(0.5, 1)
			return g.AbsMean(), 0.5, 0.5
		}},
		{[]string{"-mechanism", "laplace", "-eps", "0.5", "-break", "2"}, 2, func() (float64, float64, float64) {
			l, _ := central.NewLaplaceNoise(0.5, 1)
			return 2, central.Rounded{LaplaceMixture: l}.WorstEpsilon(1), central.Rounded{LaplaceMixture: l}.Budget(1)
		}},
		{[]string{"-mechanism", "pm-geometric", "-eps-in", "0.25", "-eps-out", "2.5", "-break", "6"}, 6, func() (float64, float64, float64) {
			g, _ := central.NewGeometricMixture(0.25, 2.5, 6, 1)
			return g.AbsMean(), 2.5, g.Budget(1)
		}},
		{[]string{"-mechanism", "pm-laplace", "-eps-in", "0.2", "-eps-out", "1", "-break", "5", "-sensitivity", "2"}, 5, func() (float64, float64, float64) {
			l, _ := central.NewLaplaceMixture(0.2, 1, 5, 2)
			return l.AbsMean(), central.Rounded{LaplaceMixture: l}.WorstEpsilon(2), central.Rounded{LaplaceMixture: l}.Budget(2)
		}},
	} {
		out := filepath.Join(dir, "r.csv")
		code, stdout, errs := run(append([]string{"release", "-truth", truth, "-o", out}, tc.args...)...)
		if code != 0 || !strings.Contains(errs, "a preview") {
			t.Fatalf("%v: exit %d, %s", tc.args, code, errs)
		}
		var line map[string]any
		if err := json.Unmarshal([]byte(stdout), &line); err != nil {
			t.Fatalf("%v: %q: %v", tc.args, stdout, err)
		}
		for _, key := range []string{"mechanism", "worst_eps", "budget", "abs_mean", "variance", "entropy", "mae", "mre", "p_within"} {
			if _, ok := line[key]; !ok {
				t.Errorf("%v: no %s in %s", tc.args, key, stdout)
			}
		}
		absMean, worst, budget := tc.noise()
		for key, want := range map[string]float64{"abs_mean": absMean, "worst_eps": worst, "budget": budget} {
			if got := line[key].(float64); math.Abs(got-want) > 1e-12*want {
				t.Errorf("%v: %s = %v, want %v", tc.args, key, got, want)
			}
		}
		head, p, count, raw := readRelease(t, out)
		if strings.Join(head, ",") != "cell,probability,count,raw_count,row,col,lat,lon" || len(count) != len(tab.Counts) {
			t.Fatalf("%v: header %v, %d cells", tc.args, head, len(count))
		}
		sum := 0.0
		for x := range count {
			if count[x] != math.Max(raw[x], 0) || raw[x] != math.Trunc(raw[x]) {
				t.Fatalf("%v: cell %d: count %v, raw %v", tc.args, x, count[x], raw[x])
			}
			sum += count[x]
		}
		for x := range p {
			if math.Abs(p[x]-count[x]/sum) > 1e-15 {
				t.Fatalf("%v: cell %d: probability %v, count %v of %v", tc.args, x, p[x], count[x], sum)
			}
		}
		mae, mre, within := release.Errors(tab.Counts, count, tc.c)
		for key, want := range map[string]float64{"mae": mae, "mre": mre, "p_within": within} {
			if got := line[key].(float64); got != want {
				t.Errorf("%v: %s = %v, measured %v", tc.args, key, got, want)
			}
		}
		// The same seed, the same release; another seed, another.
		again := filepath.Join(dir, "again.csv")
		run(append([]string{"release", "-truth", truth, "-o", again}, tc.args...)...)
		other := filepath.Join(dir, "other.csv")
		run(append([]string{"release", "-truth", truth, "-seed", "2", "-o", other}, tc.args...)...)
		a, _ := os.ReadFile(out)
		b, _ := os.ReadFile(again)
		c, _ := os.ReadFile(other)
		if string(a) != string(b) || string(a) == string(c) {
			t.Errorf("%v: a seed does not repeat its release, or another seed repeats it", tc.args)
		}
	}
}

// TestReleaseSecure checks a release for publication: geometric noise
// from crypto/rand (two releases differ), never Laplace, never a seed.
func TestReleaseSecure(t *testing.T) {
	dir, truth := releaseTruth(t)
	a, b := filepath.Join(dir, "a.csv"), filepath.Join(dir, "b.csv")
	for _, out := range []string{a, b} {
		code, stdout, errs := run("release", "-truth", truth, "-mechanism", "pm-geometric", "-eps-in", "0.5", "-eps-out", "1", "-break", "3", "-secure", "-o", out)
		if code != 0 || !strings.Contains(stdout, `"secure":true`) || strings.Contains(errs, "preview") {
			t.Fatalf("exit %d, %s%s", code, stdout, errs)
		}
	}
	x, _ := os.ReadFile(a)
	y, _ := os.ReadFile(b)
	if string(x) == string(y) {
		t.Error("two secure releases are the same")
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-mechanism", "laplace", "-eps", "1", "-secure"}, "Laplace mechanisms are preview-only"},
		{[]string{"-mechanism", "pm-laplace", "-eps-in", "1", "-eps-out", "2", "-break", "2", "-secure"}, "Laplace mechanisms are preview-only"},
		{[]string{"-mechanism", "geometric", "-eps", "1", "-secure", "-seed", "3"}, "-seed: a secure release draws from crypto/rand"},
	} {
		code, _, errs := run(append([]string{"release", "-truth", truth, "-o", a}, tc.args...)...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, errs, tc.want)
		}
	}
}

// TestReleaseErrors checks bad command lines and files are refused with
// what is wrong.
func TestReleaseErrors(t *testing.T) {
	dir, truth := releaseTruth(t)
	out := filepath.Join(dir, "r.csv")
	noCount := filepath.Join(dir, "p.csv")
	os.WriteFile(noCount, []byte("cell,probability\n0,0.5\n1,0.5\n"), 0o644)
	half := filepath.Join(dir, "h.csv")
	os.WriteFile(half, []byte("cell,count\n0,2.5\n"), 0o644)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-truth", truth, "-mechanism", "gauss", "-eps", "1", "-o", out}, 2, `-mechanism "gauss"`},
		{[]string{"-truth", truth, "-mechanism", "geometric", "-o", out}, 2, "geometric needs -eps"},
		{[]string{"-truth", truth, "-mechanism", "pm-geometric", "-eps", "1", "-o", out}, 2, "pm-geometric takes -eps-in, -eps-out and -break"},
		{[]string{"-truth", truth, "-mechanism", "pm-laplace", "-eps-in", "1", "-eps-out", "2", "-o", out}, 2, "needs -eps-in, -eps-out and -break"},
		{[]string{"-truth", truth, "-mechanism", "geometric", "-eps-in", "1", "-o", out}, 2, "-eps-in, -eps-out: for pm-laplace and pm-geometric"},
		{[]string{"-truth", truth, "-mechanism", "pm-geometric", "-eps-in", "1", "-eps-out", "2", "-break", "2.5", "-o", out}, 2, "a whole number"},
		{[]string{"-truth", truth, "-mechanism", "laplace", "-eps", "0", "-o", out}, 2, "epsilon must be positive"},
		{[]string{"-truth", truth, "-mechanism", "laplace", "-eps", "1", "-sensitivity", "0", "-o", out}, 2, "sensitivity 0"},
		{[]string{"-truth", truth, "-mechanism", "laplace", "-eps", "1", "-break", "-1", "-o", out}, 2, "-break -1"},
		{[]string{"-truth", truth, "-mechanism", "laplace", "-eps", "1", "-o", truth}, 2, "-o"},
		{[]string{"-truth", noCount, "-mechanism", "laplace", "-eps", "1", "-o", out}, 1, "lacks cell and count columns"},
		{[]string{"-truth", half, "-mechanism", "laplace", "-eps", "1", "-o", out}, 1, `line 2: count "2.5" is not a whole number`},
	} {
		code, _, errs := run(append([]string{"release"}, tc.args...)...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", tc.args, code, errs, tc.code, tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: wrote %s", tc.args, out)
			os.Remove(out)
		}
	}
}

// TestReleasePerPerson releases a small synthetic file in which one
// person, "a", has 5 check-ins and four others one each: gridded with
// every check-in, the study says Δ = 5 and the release uses it; with
// -sensitivity 1 it is refused naming the 5 records; with -clip "a"
// keeps one record, 4 are dropped and the released file has 5 data; with
// -per-user 2 the bound is Δ = 2.
func TestReleasePerPerson(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "c.txt")
	var b strings.Builder
	for i, u := range []string{"a", "a", "a", "a", "a", "b", "c", "d", "e"} {
		rec := u + "\t2010-10-%02dT10:00:00Z\t37.76\t-122.4%d\t%d\n"
		b.WriteString(fmt.Sprintf(rec, 1+i, i%3, i))
	}
	if err := os.WriteFile(in, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	grid := func(perUser string) (truth, study string) {
		truth, study = filepath.Join(dir, "t"+perUser+".csv"), filepath.Join(dir, "s"+perUser+".json")
		if code, _, errs := run("grid", "-in", in, "-bbox", "37.7,-122.5,37.8,-122.3", "-cell", "1", "-per-user", perUser, "-o", truth, "-study-out", study); code != 0 {
			t.Fatal(errs)
		}
		return truth, study
	}
	line := func(out string) map[string]any {
		var m map[string]any
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatalf("%q: %v", out, err)
		}
		return m
	}
	truth, study := grid("all")
	out := filepath.Join(dir, "r.csv")
	code, stdout, errs := run("release", "-truth", truth, "-study", study, "-mechanism", "geometric", "-eps", "1", "-o", out)
	if code != 0 {
		t.Fatal(errs)
	}
	m := line(stdout)
	if m["sensitivity"] != 5.0 || m["max_contributions_per_person"] != 5.0 || m["records_dropped"] != 0.0 {
		t.Errorf("Δ from the study: %s", stdout)
	}
	if !strings.Contains(errs, "a preview only: Δ = 5 is the largest contribution read off the data — the bound was read from the data, so this is not a differential-privacy guarantee") ||
		m["bound_in_advance"] != false {
		t.Errorf("no word that Δ was read off the data: %s %s", stdout, errs)
	}
	// Issue 44's fifth finding: a bound read off the data is no
	// guarantee, so a publication with it is refused, naming the two
	// ways out; a Δ given and clipped to is fixed in advance.
	code, _, errs = run("release", "-truth", truth, "-study", study, "-mechanism", "geometric", "-eps", "1", "-secure", "-o", out)
	if code != 1 || !strings.Contains(errs, "-secure: Δ = 5 is the largest contribution, the bound was read from the data") ||
		!strings.Contains(errs, "-per-user K") || !strings.Contains(errs, "-sensitivity Δ -clip") {
		t.Errorf("-secure with Δ read off the data: exit %d: %s", code, errs)
	}
	code, stdout, errs = run("release", "-truth", truth, "-study", study, "-mechanism", "geometric", "-eps", "1", "-secure", "-sensitivity", "5", "-clip", "-o", out)
	if m := line(stdout); code != 0 || m["bound_in_advance"] != true || strings.Contains(errs, "preview only") {
		t.Errorf("-secure -sensitivity 5 -clip: exit %d: %s %s", code, stdout, errs)
	}
	code, _, errs = run("release", "-truth", truth, "-study", study, "-mechanism", "geometric", "-eps", "1", "-sensitivity", "1", "-o", out)
	if code != 1 || !strings.Contains(errs, "sensitivity 1 is below the 5 records one person contributes") {
		t.Errorf("exit %d: %s", code, errs)
	}
	code, stdout, errs = run("release", "-truth", truth, "-study", study, "-mechanism", "geometric", "-eps", "1", "-sensitivity", "1", "-clip", "-o", out)
	if code != 0 {
		t.Fatal(errs)
	}
	if m := line(stdout); m["sensitivity"] != 1.0 || m["records_dropped"] != 4.0 || m["max_contributions_per_person"] != 5.0 ||
		m["neighbours"] != "add or remove one person with her one record" {
		t.Errorf("clipped: %s", stdout)
	}
	// The interval is of the clipped counts, and says so (issue 44's
	// sixth finding): a preview says where records were dropped.
	code, stdout, errs = run("release", "-truth", truth, "-study", study, "-mechanism", "geometric", "-eps", "1", "-sensitivity", "1", "-clip", "-ci", "0.95", "-o", out)
	if m := line(stdout); code != 0 || !strings.Contains(m["accuracy"].(string), "of its count after clipping") ||
		!strings.Contains(m["accuracy"].(string), "dropped 4 records") || !strings.Contains(m["accuracy"].(string), "(this preview dropped records in 3 cells, at most 2 from one)") ||
		!strings.Contains(errs, "of its count after clipping") {
		t.Errorf("clipped with -ci: exit %d: %s %s", code, stdout, errs)
	}
	if b, _ := os.ReadFile(out); !strings.HasPrefix(string(b), "# records_dropped: 4 (each person kept at most 1 record, a seeded draw") {
		t.Errorf("the clipped release does not begin with its records dropped: %.80q", b)
	}
	if _, err := core.ReadCountTable(bytes.NewReader(mustRead(t, out)), 0); err != nil {
		t.Errorf("privmap cannot read its own clipped release: %v", err)
	}
	if code, _, errs := run("release", "-truth", truth, "-mechanism", "geometric", "-eps", "1", "-clip", "-o", out); code != 2 || !strings.Contains(errs, "give -study too") {
		t.Errorf("-clip without a study: exit %d: %s", code, errs)
	}
	truth, study = grid("2")
	code, stdout, errs = run("release", "-truth", truth, "-study", study, "-mechanism", "geometric", "-eps", "1", "-o", out)
	if m := line(stdout); code != 0 || m["sensitivity"] != 2.0 || m["max_contributions_per_person"] != 2.0 || m["bound_in_advance"] != true {
		t.Errorf("-per-user 2: exit %d, %s %s", code, stdout, errs)
	}
}

// TestReleaseLedger is issue 44's fourth finding: the budget lived in
// the study file, so re-gridding erased it, -budget raised it silently,
// and two publications at once both spent. In the ledger's database
// (-ledger): one publication at ε 1 of a budget of 1.5 is an entry with
// its file's SHA-256; grid -study-out over the study loses nothing; a
// preview spends nothing; -budget 100 is refused without -raise-budget;
// the second publication is refused, leaving the earlier release
// byte-identical; raised, it spends.
func TestReleaseLedger(t *testing.T) {
	dir := t.TempDir()
	truth, study, db := filepath.Join(dir, "t.csv"), filepath.Join(dir, "s.json"), filepath.Join(dir, "org", "ledger.sqlite")
	grid := func() {
		if code, _, errs := run("grid", "-in", "../../assets/default_checkins.snap.txt", "-o", truth, "-study-out", study); code != 0 {
			t.Fatal(errs)
		}
	}
	grid()
	out := filepath.Join(dir, "r.csv")
	publish := func(extra ...string) (int, string, string) {
		return run(append([]string{"release", "-truth", truth, "-study", study, "-mechanism", "geometric", "-eps", "1", "-ledger", db}, extra...)...)
	}
	code, stdout, errs := publish("-secure", "-budget", "1.5", "-o", out)
	if code != 0 {
		t.Fatal(errs)
	}
	var line struct {
		Spent  float64            `json:"ledger_spent"`
		Budget float64            `json:"ledger_budget"`
		Ledger *release.LedgerRef `json:"ledger"`
	}
	if err := json.Unmarshal([]byte(stdout), &line); err != nil || line.Spent != 1 || line.Budget != 1.5 || line.Ledger == nil ||
		line.Ledger.Dataset != "default_checkins.snap.txt" || line.Ledger.Entry != 2 || len(line.Ledger.Head) != 64 {
		t.Errorf("%s: %v", stdout, err)
	}
	l, err := ledger.Open(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	es, err := l.Entries(t.Context(), "default_checkins.snap.txt")
	l.Close()
	published := mustRead(t, out)
	sum := sha256.Sum256(published)
	if err != nil || len(es) != 2 || es[0].Kind != ledger.KindBudget || es[1].Kind != ledger.KindPublication || es[1].Epsilon != "1" ||
		es[1].OutputSHA256 != hex.EncodeToString(sum[:]) || es[1].Output != "r.csv" || es[1].Sensitivity != 1 || es[1].Who == "" {
		t.Fatalf("ledger after one publication: %+v %v", es, err)
	}
	grid() // grid never touches the ledger
	if code, _, errs := publish("-o", filepath.Join(dir, "p.csv")); code != 0 ||
		!strings.Contains(errs, "not published and not spent") || !strings.Contains(errs, "spent ε = 1 in all (1 published") {
		t.Errorf("a preview after re-gridding: exit %d: %s", code, errs)
	}
	if code, _, errs := publish("-budget", "100", "-o", filepath.Join(dir, "p.csv")); code != 1 || !strings.Contains(errs, "raising it needs -raise-budget") {
		t.Errorf("a silent raise: exit %d: %s", code, errs)
	}
	code, _, errs = publish("-secure", "-o", out)
	if code != 1 || !strings.Contains(errs, "would spend ε = 1 more on these people, 2 in all, beyond the budget of 1.5") {
		t.Errorf("beyond the budget: exit %d: %s", code, errs)
	}
	if !bytes.Equal(published, mustRead(t, out)) {
		t.Error("a refused publication changed the release")
	}
	if code, _, errs := publish("-secure", "-budget", "2", "-raise-budget", "-o", out); code != 0 {
		t.Errorf("raised: exit %d: %s", code, errs)
	}
}

// TestReleaseLedgerRace starts two publications at once, in two
// processes (this test binary running privmap), on one ledger with a
// budget for one: exactly one is published. In the study file both
// spent and the ledger kept one entry.
func TestReleaseLedgerRace(t *testing.T) {
	if os.Getenv("PRIVMAP_CLI_ARGS") != "" {
		return
	}
	dir := t.TempDir()
	truth, study, db := filepath.Join(dir, "t.csv"), filepath.Join(dir, "s.json"), filepath.Join(dir, "shared", "ledger.sqlite")
	if code, _, errs := run("grid", "-in", "../../assets/default_checkins.snap.txt", "-o", truth, "-study-out", study); code != 0 {
		t.Fatal(errs)
	}
	if code, _, errs := run("release", "-truth", truth, "-study", study, "-mechanism", "geometric", "-eps", "1", "-ledger", db, "-budget", "1.5", "-o", filepath.Join(dir, "p.csv")); code != 0 {
		t.Fatal(errs)
	}
	var wg sync.WaitGroup
	codes := make([]int, 2)
	errs := make([]string, 2)
	for i := range 2 {
		wg.Go(func() {
			cmd := exec.Command(os.Args[0], "-test.run=^TestCLIHelper$")
			args := strings.Join([]string{"release", "-truth", truth, "-study", study, "-mechanism", "geometric", "-eps", "1", "-ledger", db, "-secure",
				"-o", filepath.Join(dir, fmt.Sprintf("r%d.csv", i))}, "\n")
			cmd.Env = append(os.Environ(), "PRIVMAP_CLI_ARGS="+args)
			b, err := cmd.CombinedOutput()
			errs[i] = string(b)
			if ee, ok := err.(*exec.ExitError); ok {
				codes[i] = ee.ExitCode()
			}
		})
	}
	wg.Wait()
	if codes[0]+codes[1] != 1 || !strings.Contains(errs[0]+errs[1], "beyond the budget of 1.5") {
		t.Errorf("two publications at once: exits %v\n%s\n%s", codes, errs[0], errs[1])
	}
	l, err := ledger.Open(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if st, err := l.Status(t.Context(), "default_checkins.snap.txt"); err != nil || st.Publications != 1 {
		t.Errorf("%d publications recorded: %v", st.Publications, err)
	}
}

// TestCLIHelper runs privmap with the arguments of PRIVMAP_CLI_ARGS (one
// a line) and exits with its status, for the tests that need processes.
func TestCLIHelper(t *testing.T) {
	args := os.Getenv("PRIVMAP_CLI_ARGS")
	if args == "" {
		t.Skip("run by the tests that start processes")
	}
	os.Exit(Run(t.Context(), strings.Split(args, "\n"), os.Stdout, os.Stderr))
}

// TestReleaseLedgerImport opens a study written before the ledger's
// database, whose member holds a budget of 1 and a publication of 1: it
// is imported once (said on stderr), so the next publication is refused
// by the database, and a second release imports nothing again.
func TestReleaseLedgerImport(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "l.sqlite")
	for i := range 2 {
		code, _, errs := run("release", "-truth", "../../testdata/errors/people-truth.csv", "-study", "../../testdata/errors/ledger-study.json",
			"-mechanism", "geometric", "-eps", "1", "-secure", "-ledger", db, "-o", filepath.Join(dir, "x.csv"))
		imported := strings.Contains(errs, "its ledger (1 publications, budget 1) imported into")
		if code != 1 || imported != (i == 0) || !strings.Contains(errs, `data set "ledger-study.json": this release would spend ε = 1 more`) {
			t.Errorf("release %d: exit %d: %s", i+1, code, errs)
		}
	}
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestReleaseCI releases the default data with -ci 0.95: the JSON line
// carries the level and the half-widths the spec's interval gives, every
// row's columns lo,hi (band_lo,band_hi) are its raw count ∓ ci_each
// (ci_all), clipped at 0, and the sentence is on stderr.
func TestReleaseCI(t *testing.T) {
	dir, truth := releaseTruth(t)
	out := filepath.Join(dir, "r.csv")
	code, stdout, errs := run("release", "-truth", truth, "-mechanism", "geometric", "-eps", "0.5", "-ci", "0.95", "-o", out)
	if code != 0 {
		t.Fatal(errs)
	}
	var line struct {
		Level float64 `json:"ci_level"`
		Each  int     `json:"ci_each"`
		All2  int     `json:"ci_all"`
	}
	if err := json.Unmarshal([]byte(stdout), &line); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(mustRead(t, out))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	cells := len(recs) - 1
	iv, err := release.Spec{Mechanism: release.Geometric, EpsIn: 0.5, EpsOut: 0.5, Sensitivity: 1}.Interval(cells, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if line.Level != 0.95 || line.Each != iv.Each || line.All2 != iv.All || iv.Each != 6 {
		t.Errorf("JSON %s; interval %+v (geometric ε = 0.5: ±6 alone)", stdout, iv)
	}
	if want := fmt.Sprintf("every one of the %d released counts is within ±%d of its true count; each one alone is within ±6", cells, iv.All); !strings.Contains(errs, want) {
		t.Errorf("stderr: %s", errs)
	}
	head := recs[0]
	if n := len(head); n < 4 || !slices.Equal(head[n-4:], []string{"lo", "hi", "band_lo", "band_hi"}) {
		t.Fatalf("header %v", head)
	}
	for _, r := range recs[1:] {
		raw, _ := strconv.ParseFloat(r[3], 64)
		e, a := float64(iv.Each), float64(iv.All)
		want := []float64{math.Max(raw-e, 0), raw + e, math.Max(raw-a, 0), raw + a}
		for i, w := range want {
			if got, _ := strconv.ParseFloat(r[len(r)-4+i], 64); got != w {
				t.Fatalf("row %v: %s = %v, want %v", r, head[len(head)-4+i], got, w)
			}
		}
	}
}

// TestReleasePersonSplit is issue 44's first finding: a person's 3
// records may fall in 3 cells, so pm-geometric at ε_in 2, ε_out 0.5,
// break 1 costs her 3 × 2/3 = 2 (not the 1 of three records in one
// count), said in the JSON line, on stderr and in the ledger; and pm-laplace
// (rounded) 3 × its one-record loss, about 1.302. The plain geometric
// mechanism's ε is printed as given (1, not 0.9999999999999999).
func TestReleasePersonSplit(t *testing.T) {
	dir := t.TempDir()
	truth, study := filepath.Join(dir, "t.csv"), filepath.Join(dir, "s.json")
	if code, _, errs := run("grid", "-in", "../../assets/default_checkins.snap.txt", "-per-user", "3", "-o", truth, "-study-out", study); code != 0 {
		t.Fatal(errs)
	}
	out := filepath.Join(dir, "r.csv")
	code, stdout, errs := run("release", "-truth", truth, "-study", study, "-mechanism", "pm-geometric", "-eps-in", "2", "-eps-out", "0.5", "-break", "1",
		"-secure", "-budget", "5", "-ledger", filepath.Join(dir, "l.sqlite"), "-o", out)
	if code != 0 {
		t.Fatal(errs)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(stdout), &m); err != nil {
		t.Fatal(err)
	}
	if m["sensitivity"] != 3.0 || m["worst_eps"] != 2.0 || m["ledger_spent"] != 2.0 {
		t.Errorf("pm-geometric, Δ = 3: %s", stdout)
	}
	if !strings.Contains(errs, "worst-case ε 2, with her records one in each of 3 cells; all in one cell, ε 1)") {
		t.Errorf("the reading does not say the split: %s", errs)
	}
	l, err := ledger.Open(t.Context(), filepath.Join(dir, "l.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if st, err := l.Status(t.Context(), "default_checkins.snap.txt"); err != nil || st.Publications != 1 || ledger.RatString(st.Spent) != "2" {
		t.Errorf("ledger %+v: want one entry of ε 2", st)
	}
	_, stdout, _ = run("release", "-truth", truth, "-study", study, "-mechanism", "pm-laplace", "-eps-in", "2", "-eps-out", "0.5", "-break", "1", "-o", out)
	if err := json.Unmarshal([]byte(stdout), &m); err != nil {
		t.Fatal(err)
	}
	lm, _ := central.NewLaplaceMixture(2, 0.5, 1, 3)
	if w := m["worst_eps"].(float64); math.Abs(w-3*central.Rounded{LaplaceMixture: lm}.WorstEpsilon(1)) > 1e-12 || w < 1.30 || w > 1.31 {
		t.Errorf("pm-laplace, Δ = 3: worst %v, want about 1.302", w)
	}
	_, stdout, _ = run("release", "-truth", truth, "-study", study, "-mechanism", "geometric", "-eps", "1", "-o", out)
	if !strings.Contains(stdout, `"worst_eps":1,`) {
		t.Errorf("geometric ε 1 at Δ = 3: %s", stdout)
	}
}

// TestReleaseWithoutPeople is issue 44's third finding: a file with no
// person column gave a study with people and a bound of 1, and release
// said "whether one person is in the data". The study now says people
// are unknown, and grid, release (unit "record") and report speak of
// records.
func TestReleaseWithoutPeople(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "points.csv")
	var b strings.Builder
	b.WriteString("lat,lon\n")
	for i := range 60 {
		fmt.Fprintf(&b, "37.7%d,-122.4%d\n", i%10, i%7)
	}
	if err := os.WriteFile(in, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	truth, study := filepath.Join(dir, "t.csv"), filepath.Join(dir, "s.json")
	code, stdout, errs := run("grid", "-in", in, "-cell", "1", "-o", truth, "-study-out", study)
	if code != 0 {
		t.Fatal(errs)
	}
	if !strings.Contains(stdout, "people: unknown (no person column: each of the 60 records is counted alone)") {
		t.Errorf("grid's summary: %s", stdout)
	}
	s, err := studyfile.Open(study)
	if err != nil {
		t.Fatal(err)
	}
	if !s.PeopleUnknown || s.People != nil || s.MaxPerPerson != 0 || s.Unit() != "record" {
		t.Errorf("study: people_unknown %v, people %v, max_per_person %d", s.PeopleUnknown, s.People != nil, s.MaxPerPerson)
	}
	out, rec := filepath.Join(dir, "r.csv"), filepath.Join(dir, "r.json")
	code, stdout, errs = run("release", "-truth", truth, "-study", study, "-mechanism", "geometric", "-eps", "1", "-ci", "0.95", "-o", out, "-record", rec)
	if code != 0 {
		t.Fatal(errs)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(stdout), &m); err != nil {
		t.Fatal(err)
	}
	if m["unit"] != "record" || !strings.Contains(m["neighbours"].(string), "protects records, not people") {
		t.Errorf("release line: %s", stdout)
	}
	if !strings.Contains(errs, "Whether one record is in the data") || strings.Contains(errs, "one person") {
		t.Errorf("release's reading: %s", errs)
	}
	pdf := filepath.Join(dir, "report.pdf")
	if code, _, errs := run("report", "-study", study, "-release", out, "-record", rec, "-o", pdf); code != 0 {
		t.Fatal(errs)
	}
	var rep struct {
		Data struct {
			People    int    `json:"people"`
			Unit      string `json:"unit"`
			PerPerson string `json:"per_person"`
		} `json:"data"`
	}
	if err := json.Unmarshal(mustRead(t, filepath.Join(dir, "report.json")), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Data.Unit != "record" || rep.Data.People != 0 || !strings.Contains(rep.Data.PerPerson, "people unknown") {
		t.Errorf("report's data: %+v", rep.Data)
	}
}

// TestReleaseHelp: release -h says what each member of its JSON line
// means, the ones named after the paper too (mre, p_within, budget_pm
// were unexplained).
func TestReleaseHelp(t *testing.T) {
	code, _, errs := run("release", "-h")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, member := range []string{"worst_eps", "budget", "abs_mean", "mae", "mre", "p_within", "budget_pm", "worst_split", "budget_exact"} {
		if !strings.Contains(errs, "\n  "+member+" ") && !strings.Contains(errs, "\n  "+member+",") {
			t.Errorf("-h does not explain %s:\n%s", member, errs)
		}
	}
}
