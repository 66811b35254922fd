package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paulmach/orb"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/privmap/privmap/app/basemap/basemaptest"
	"github.com/privmap/privmap/app/ledger"
	"github.com/privmap/privmap/app/report"
	"github.com/privmap/privmap/app/studyfile"
	"github.com/privmap/privmap/internal/testtool"
)

// reportFixture runs the README's pipeline on the embedded check-ins —
// grid, simulate, estimate with intervals and its record, a release
// with its record — and returns a function naming files in its folder.
func reportFixture(t *testing.T) func(string) string {
	t.Helper()
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	for _, args := range [][]string{
		{"grid", "-in", "../../assets/default_checkins.snap.txt", "-o", p("truth.csv"), "-study-out", p("study.json"), "-preset", "fw-t6",
			"-record", p("grid.record.json")},
		{"simulate", "-study", p("study.json"), "-truth", p("truth.csv"), "-n", "3000", "-aggregate", "-o", p("reports.csv"),
			"-record", p("simulate.record.json")},
		{"estimate", "-study", p("study.json"), "-reports", p("reports.csv"), "-method", "ibu-m", "-ci", "0.9", "-boot", "20", "-seed", "7",
			"-o", p("ibu.csv"), "-record", p("ibu.record.json")},
		{"release", "-truth", p("truth.csv"), "-study", p("study.json"), "-mechanism", "geometric", "-eps", "1", "-ci", "0.95",
			"-o", p("released.csv"), "-record", p("released.record.json")},
	} {
		if code, _, errs := run(args...); code != 0 {
			t.Fatalf("%v: %s", args, errs)
		}
	}
	return p
}

// pdfTool returns the path of one of Poppler's programs (testtool.Need).
func pdfTool(t *testing.T, name string) string { return testtool.Need(t, name, "poppler-utils") }

// reportOf runs privmap report with args, whose last two are -o and the
// PDF, and returns the JSON it wrote beside the PDF, read and raw.
func reportOf(t *testing.T, args ...string) (report.Report, []byte) {
	t.Helper()
	defer func(q time.Duration) { reportQuiet = q }(reportQuiet)
	reportQuiet = 0 // as a report of minutes does after its first 5 s
	code, _, errs := run(append([]string{"report"}, args...)...)
	if code != 0 {
		t.Fatal(errs)
	}
	// Its stages on stderr as they start, where nothing was said for
	// minutes.
	if !strings.HasPrefix(errs, "privmap report: reading the study, the estimates and the records, 0s\n") || !strings.Contains(errs, "privmap report: writing the PDF and its JSON, ") {
		t.Errorf("stderr:\n%s", errs)
	}
	raw, err := os.ReadFile(strings.TrimSuffix(args[len(args)-1], ".pdf") + ".json")
	if err != nil {
		t.Fatal(err)
	}
	var r report.Report
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	return r, raw
}

func sha(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestReport writes the report of the pipeline and reads it with
// Poppler: every required fact is in the text, the pages are A4 (or
// Letter) and none is blank; its JSON validates against the published
// schema and states the files' digests.
func TestReport(t *testing.T) {
	p := reportFixture(t)
	args := []string{"-study", p("study.json"), "-truth", p("truth.csv"), "-estimate", p("ibu.csv"), "-release", p("released.csv"),
		"-record", p("ibu.record.json"), "-record", p("released.record.json"), "-operator", "Ada Officer", "-notes", "Pilot of the check-in map",
		"-date", "2026-11-26T09:30:00Z", "-o", p("report.pdf")}
	r, raw := reportOf(t, args...)
	// The JSON validates against docs/report.schema.json.
	c := jsonschema.NewCompiler()
	sch, err := c.Compile("../../docs/report.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("report.json does not match docs/report.schema.json: %v", err)
	}
	if len(r.Estimates) != 1 || r.Estimates[0].File.SHA256 != sha(t, p("ibu.csv")) || r.Estimates[0].Method != "ibu-m" ||
		r.Estimates[0].Seed == nil || *r.Estimates[0].Seed != 7 || r.Estimates[0].Intervals == nil || r.Estimates[0].Errors == nil {
		t.Errorf("estimate facts %+v", r.Estimates)
	}
	if e := r.Estimates[0]; e.Reports != report.ReportsCollected || !strings.Contains(r.Publishable, "estimate 1 (ibu-m), if its reports were collected from people") {
		t.Errorf("estimate without a simulate record: %q; %q", e.Reports, r.Publishable)
	}
	if r.Release == nil || r.Release.File.SHA256 != sha(t, p("released.csv")) || r.Release.Mechanism != "geometric" || r.Release.Publication ||
		!strings.Contains(r.Release.Accuracy, "With probability 95%") {
		t.Errorf("release facts %+v", r.Release)
	}
	as, err := studyfile.Open(p("study.json"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Data == nil || r.Data.Cells != as.Alphabet.Len() || r.Data.Data != len(as.Data) || r.Data.Read == nil || r.Data.Read.Records < r.Data.Data ||
		len(r.Population) != 10 || r.Created != "2026-11-26T09:30:00Z" {
		t.Errorf("data %+v, %d mechanisms, created %s", r.Data, len(r.Population), r.Created)
	}

	text := pdfText(t, p("report.pdf"))
	for _, want := range []string{
		"Release report", "Ada Officer", "Pilot of the check-in map", "26 November 2026, 09:30 UTC", "privmap " + r.Privmap.Version,
		sha(t, p("ibu.csv")), sha(t, p("released.csv")), sha(t, p("study.json")), sha(t, p("reports.csv")),
		"planar-0.19", "ε 0.19 per km", "ε-LDP", "×", "[IBU]_M", "Errors against the truth", "TV ",
		"With probability 90%", "geometric", "Δ = 1", "With probability 95%", "Raw data", "Manifest",
		"privmap estimate -study study.json -reports reports.csv -method ibu-m",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the PDF's text lacks %q", want)
		}
	}
	info := pdfInfo(t, p("report.pdf"))
	if !strings.Contains(info, "(A4)") {
		t.Errorf("pdfinfo: %s", info)
	}
	// A corrected EM's estimate is the MLE corrected with its weight α,
	// not a method without a rule.
	if code, _, errs := run("estimate", "-study", p("study.json"), "-reports", p("reports.csv"), "-method", "cem", "-alpha", "0.3",
		"-o", p("cem.csv"), "-record", p("cem.record.json")); code != 0 {
		t.Fatal(errs)
	}
	rc, _ := reportOf(t, "-study", p("study.json"), "-estimate", p("cem.csv"), "-record", p("cem.record.json"), "-sections", "estimates", "-o", p("cem-report.pdf"))
	if len(rc.Estimates) != 1 || rc.Estimates[0].Method != "cem" || !strings.Contains(rc.Estimates[0].Certified, "weight α = 0.3 (CEM Alg. 2)") {
		t.Errorf("corrected EM's facts %+v", rc.Estimates)
	}
	pagesNotBlank(t, p("report.pdf"), info)

	// Letter, and a choice of sections: the JSON holds what is printed.
	args = append(args[:len(args)-2], "-paper", "letter", "-sections", "context,estimates,manifest", "-o", p("letter.pdf"))
	l, _ := reportOf(t, args...)
	if info := pdfInfo(t, p("letter.pdf")); !strings.Contains(info, "612 x 792 pts (letter)") {
		t.Errorf("pdfinfo: %s", info)
	}
	if l.Data != nil || l.Release != nil || len(l.Population) != 0 || len(l.Estimates) != 1 || l.Manifest == nil {
		t.Errorf("sections context,estimates,manifest: %+v", l)
	}
	if text := pdfText(t, p("letter.pdf")); strings.Contains(text, "The central release") || strings.Contains(text, "The population") {
		t.Error("the Letter report prints sections it was not asked for")
	}
}

func pdfText(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command(pdfTool(t, "pdftotext"), "-layout", name, "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	// The layout breaks long lines: join the text to find a phrase.
	return strings.Join(strings.Fields(string(out)), " ")
}

func pdfInfo(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command(pdfTool(t, "pdfinfo"), name).Output()
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// pagesNotBlank renders every page with pdftoppm and checks that at
// least 1% of its pixels are not white.
func pagesNotBlank(t *testing.T, name, info string) {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command(pdfTool(t, "pdftoppm"), "-r", "40", "-png", name, filepath.Join(dir, "page")).CombinedOutput(); err != nil {
		t.Fatal(err, string(out))
	}
	pages, _ := filepath.Glob(filepath.Join(dir, "page*.png"))
	if len(pages) < 3 || !strings.Contains(info, "Pages:") {
		t.Fatalf("%d pages rendered", len(pages))
	}
	for _, pg := range pages {
		f, err := os.Open(pg)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if ink := inked(img); ink < 0.01 {
			t.Errorf("%s: %.2f%% of its pixels are not white", filepath.Base(pg), 100*ink)
		}
	}
}

// inked returns the share of an image's pixels that are not white.
func inked(img image.Image) float64 {
	b := img.Bounds()
	n := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if r, g, bl, _ := img.At(x, y).RGBA(); r < 0xf000 || g < 0xf000 || bl < 0xf000 {
				n++
			}
		}
	}
	return float64(n) / float64(b.Dx()*b.Dy())
}

// TestReportReproduces runs the manifest's commands — grid, simulate,
// estimate, found through the records of the files they made — in turn
// in an empty folder holding only the data file: the estimate comes out
// byte for byte.
func TestReportReproduces(t *testing.T) {
	p := reportFixture(t)
	r, _ := reportOf(t, "-study", p("study.json"), "-estimate", p("ibu.csv"), "-record", p("ibu.record.json"),
		"-record", p("grid.record.json"), "-record", p("simulate.record.json"), "-o", p("r.pdf"))
	if r.Manifest == nil || len(r.Manifest.Commands) != 3 || len(r.Manifest.Inputs) != 1 {
		t.Fatalf("manifest %+v: want grid, simulate and estimate from the data file alone", r.Manifest)
	}
	// Issue 44's seventh finding: reports privmap simulated make an
	// estimate a preview, which page 1 does not call publishable.
	if e := r.Estimates[0]; e.Reports != report.ReportsSimulated || !strings.Contains(e.Kind, "a preview of a collection: simulated from the raw data — not for publication") {
		t.Errorf("estimate from simulated reports: %q, %q", e.Reports, e.Kind)
	}
	if !strings.HasPrefix(r.Publishable, "Nothing in this report is a publication. Previews, not for publication: estimate 1 (ibu-m)") {
		t.Errorf("publishable: %q", r.Publishable)
	}
	if text := pdfText(t, p("r.pdf")); !strings.Contains(text, "Nothing in this report is a publication.") || strings.Contains(text, "are what may be published") {
		t.Errorf("page 1 does not say what may be published")
	}
	for i, want := range []string{"privmap grid ", "privmap simulate ", "privmap estimate "} {
		if !strings.HasPrefix(r.Manifest.Commands[i], want) {
			t.Errorf("command %d: %q, want %s…", i+1, r.Manifest.Commands[i], want)
		}
	}
	empty := t.TempDir()
	in := r.Manifest.Inputs[0]
	b, err := os.ReadFile(in.Path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(empty, filepath.Base(in.Path)), b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(empty)
	for _, c := range r.Manifest.Commands {
		words := strings.Fields(c)
		if code, _, errs := run(words[1:]...); code != 0 {
			t.Fatalf("%s: %s", c, errs)
		}
	}
	for _, f := range []string{"ibu.csv", "reports.csv", "truth.csv"} {
		if got, want := sha(t, filepath.Join(empty, f)), sha(t, p(f)); got != want {
			t.Errorf("the manifest's commands made %s of SHA-256 %s, the report's is %s", f, got, want)
		}
	}
}

// TestReportRefusals: a record of another file is not taken for the
// estimate's, a bad flag is a usage error, and a failure leaves the
// earlier report byte-identical.
func TestReportRefusals(t *testing.T) {
	p := reportFixture(t)
	base := []string{"-study", p("study.json"), "-estimate", p("ibu.csv"), "-record", p("released.record.json")}
	r, raw := reportOf(t, append(base, "-o", p("r.pdf"))...)
	if r.Estimates[0].Method != "unknown" || !strings.Contains(r.Estimates[0].Certified, "no record") {
		t.Errorf("an estimate without its record: %+v", r.Estimates)
	}
	before, _ := os.ReadFile(p("r.pdf"))
	beforeJSON := raw
	if err := os.WriteFile(p("bad.csv"), []byte("cell,probability\n0,x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-paper", "a5", "-o", p("r.pdf")}, 2, "want a4 or letter"},
		{[]string{"-sections", "data,maps", "-o", p("r.pdf")}, 2, `"maps" is not a section`},
		{[]string{"-o", p("r.png")}, 2, "want a .pdf file"},
		{[]string{"-date", "yesterday", "-o", p("r.pdf")}, 2, "want RFC 3339"},
		{[]string{"-estimate", p("bad.csv"), "-o", p("r.pdf")}, 1, "bad.csv"},
	} {
		code, _, errs := run(append(append([]string{"report"}, base...), c.args...)...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", c.args, code, errs, c.code, c.want)
		}
	}
	after, _ := os.ReadFile(p("r.pdf"))
	afterJSON, _ := os.ReadFile(p("r.json"))
	if !bytes.Equal(before, after) || !bytes.Equal(beforeJSON, afterJSON) {
		t.Error("a failed report changed the earlier one")
	}
}

// TestReportBasemap draws the report's maps over an MBTiles basemap:
// the captions carry its credit.
func TestReportBasemap(t *testing.T) {
	p := reportFixture(t)
	as, err := studyfile.Open(p("study.json"))
	if err != nil {
		t.Fatal(err)
	}
	a := as.Alphabet
	box := orb.Bound{Min: orb.Point{a.West, a.South}, Max: orb.Point{a.East, a.North}}
	if err := basemaptest.WriteMBTiles(p("sf.mbtiles"), box, 10, 14, "© test tiles"); err != nil {
		t.Fatal(err)
	}
	r, _ := reportOf(t, "-study", p("study.json"), "-estimate", p("ibu.csv"), "-record", p("ibu.record.json"),
		"-basemap", p("sf.mbtiles"), "-opacity", "0.6", "-o", p("r.pdf"))
	if len(r.Figures) == 0 || !strings.Contains(r.Figures[0].Caption, "basemap: © test tiles") {
		t.Errorf("figures %+v: want the basemap's credit", r.Figures)
	}
	if code, _, errs := run("report", "-study", p("study.json"), "-opacity", "2", "-o", p("r.pdf")); code != 2 || !strings.Contains(errs, "-opacity 2") {
		t.Errorf("-opacity 2: exit %d, %q", code, errs)
	}
}

// TestReportPublication is issue 44's fourth finding's last part: the
// manifest listed `release -secure …` among the commands that remake the
// outputs, so running them made a second real publication. A
// publication is listed as its recorded draw — its ledger entry and
// output digest — and its chain head is printed; running every command
// the manifest offers adds no entry to the ledger.
func TestReportPublication(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	db := p("ledger.sqlite")
	for _, args := range [][]string{
		{"grid", "-in", "../../assets/default_checkins.snap.txt", "-per-user", "1", "-o", p("truth.csv"), "-study-out", p("study.json"), "-record", p("grid.record.json")},
		{"release", "-truth", p("truth.csv"), "-study", p("study.json"), "-mechanism", "geometric", "-eps", "1", "-secure", "-ledger", db,
			"-o", p("released.csv"), "-record", p("released.record.json")},
	} {
		if code, _, errs := run(args...); code != 0 {
			t.Fatalf("%v: %s", args, errs)
		}
	}
	r, _ := reportOf(t, "-study", p("study.json"), "-release", p("released.csv"), "-record", p("released.record.json"), "-record", p("grid.record.json"), "-o", p("r.pdf"))
	if r.Release == nil || r.Release.Ledger == nil || r.Release.Ledger.Entry != 1 || len(r.Release.Ledger.Head) != 64 || len(r.Release.Command) != 0 {
		t.Fatalf("release facts %+v", r.Release)
	}
	if len(r.Manifest.Draws) != 1 || !strings.Contains(r.Manifest.Draws[0], "ledger entry 1") || !strings.Contains(r.Manifest.Draws[0], sha(t, p("released.csv"))) {
		t.Errorf("draws %q", r.Manifest.Draws)
	}
	for _, c := range r.Manifest.Commands {
		if strings.Contains(c, "-secure") || strings.HasPrefix(c, "privmap release") {
			t.Errorf("the manifest offers a publication as a command: %s", c)
		}
	}
	if text := pdfText(t, p("r.pdf")); !strings.Contains(text, r.Release.Ledger.Head) || !strings.Contains(text, "recorded draws, not commands") {
		t.Error("the PDF does not print the chain head and the draw")
	}
	l, err := ledger.Open(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	before, _ := l.Entries(t.Context(), "")
	empty := t.TempDir()
	for _, in := range r.Manifest.Inputs {
		if b, err := os.ReadFile(in.Path); err == nil {
			os.WriteFile(filepath.Join(empty, filepath.Base(in.Path)), b, 0o644)
		}
	}
	t.Chdir(empty)
	for _, c := range r.Manifest.Commands {
		words := strings.Fields(c)
		if code, _, errs := run(append(words[1:], "-ledger", db)...); code != 0 && !strings.Contains(errs, "flag provided but not defined: -ledger") {
			t.Fatalf("%s: %s", c, errs)
		}
		if code, _, errs := run(words[1:]...); code != 0 {
			t.Fatalf("%s: %s", c, errs)
		}
	}
	after, _ := l.Entries(t.Context(), "")
	if len(after) != len(before) {
		t.Errorf("the manifest's commands added %d ledger entries", len(after)-len(before))
	}
}
