package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/privmap/privmap/app/studyfile"
	"github.com/privmap/privmap/geo"
	"github.com/xuri/excelize/v2"
)

// writeSynth writes a synthetic SNAP file of n users and returns its path.
func writeSynth(t *testing.T, users int) string {
	t.Helper()
	opt := geo.SFSynth
	opt.Users = users
	cs := geo.Synthesize(rand.New(rand.NewPCG(3, 3)), geo.SanFrancisco, opt)
	name := filepath.Join(t.TempDir(), "checkins.txt")
	var buf bytes.Buffer
	if err := geo.WriteSNAP(&buf, cs); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

func run(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = Run(context.Background(), args, &o, &e)
	return code, o.String(), e.String()
}

func TestGrid(t *testing.T) {
	in := writeSynth(t, 319)
	dir := t.TempDir()
	truth, study := filepath.Join(dir, "truth.csv"), filepath.Join(dir, "study.json")
	code, out, errs := run("grid", "-in", in, "-bbox", "37.7228,-122.5153,37.7946,-122.3789", "-cell", "0.5",
		"-per-user", "first", "-o", truth, "-study-out", study)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "319 users") || !strings.Contains(out, "24×16 = 384 cells") {
		t.Errorf("summary does not report 319 users and 384 cells:\n%s", out)
	}
	recs := readCSV(t, truth)
	if got := strings.Join(recs[0], ","); got != "cell,probability,count,row,col,lat,lon" {
		t.Errorf("header %q", got)
	}
	if len(recs) != 385 {
		t.Fatalf("%d rows, want 384 cells and a header", len(recs))
	}
	sum, n := 0.0, 0
	for i, r := range recs[1:] {
		if r[0] != strconv.Itoa(i) {
			t.Fatalf("row %d has cell %s", i, r[0])
		}
		p, _ := strconv.ParseFloat(r[1], 64)
		c, _ := strconv.Atoi(r[2])
		sum += p
		n += c
		if want := float64(c) / 319; p != want {
			t.Errorf("cell %d probability %v, want %v", i, p, want)
		}
	}
	if math.Abs(sum-1) > 1e-12 || n != 319 {
		t.Errorf("probabilities sum to %v with %d data; want 1±1e-12 and 319", sum, n)
	}
	b, err := os.ReadFile(study)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Alphabet struct {
			Kind        string
			Cols, Rows  int
			CellKm      float64 `json:"cell_km"`
			South, West float64
			North, East float64
		}
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	a := s.Alphabet
	if a.Kind != "grid" || a.Cols != 24 || a.Rows != 16 || a.CellKm != 0.5 || a.South != 37.7228 || a.West != -122.5153 || a.North != 37.7946 || a.East != -122.3789 {
		t.Errorf("study alphabet %+v", a)
	}
}

func TestGridErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.txt")
	content := "0\t2010-08-19T20:51:29Z\t37.76\t-122.42\t28\n1\t2010-08-19T20:51:29Z\t37.76\t-999\t28\n"
	if err := os.WriteFile(bad, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "truth.csv")
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no input", []string{"grid", "-o", out}, 2, "flag -in is required"},
		{"no output", []string{"grid", "-in", bad}, 2, "flag -o is required"},
		{"bad bbox", []string{"grid", "-in", bad, "-o", out, "-bbox", "1,2,3"}, 2, "south,west,north,east"},
		{"bad per-user", []string{"grid", "-in", bad, "-o", out, "-per-user", "last"}, 2, "want first, all or a whole number K"},
		{"bad format", []string{"grid", "-in", bad, "-o", out, "-format", "kml"}, 2, "unknown format"},
		{"bad line", []string{"grid", "-in", bad, "-o", out}, 1, "bad.txt: line 2, field 4: \"-999\": invalid longitude"},
		{"missing file", []string{"grid", "-in", filepath.Join(dir, "none"), "-o", out}, 1, "no such file"},
		{"bad cell", []string{"grid", "-in", bad, "-o", out, "-cell", "-1"}, 2, "-cell must be a positive number of km"},
		{"one datum, no box", []string{"grid", "-in", bad, "-o", out, "-skip-bad"}, 1, "span no area"},
		{"unknown command", []string{"grdi"}, 2, "unknown command"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errs := run(tc.args...)
			if code != tc.code || !strings.Contains(errs, tc.msg) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errs, tc.code, tc.msg)
			}
			if strings.Count(strings.TrimSpace(errs), "\n") > 0 && tc.code == 1 {
				t.Errorf("error is not one line: %q", errs)
			}
		})
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("failed runs left %s behind", out)
	}
	// Skipping the bad line works, and says so.
	code, stdout, errs := run("grid", "-in", bad, "-o", out, "-skip-bad", "-bbox", "37.7228,-122.5153,37.7946,-122.3789")
	if code != 0 || !strings.Contains(stdout, "1 bad lines skipped") || !strings.Contains(stdout, "line 2, field 4") {
		t.Errorf("-skip-bad: exit %d, stdout %q, stderr %q", code, stdout, errs)
	}
	// No temporary files are left in the folder.
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

// TestSafely checks that a panic in a command becomes an error.
func TestSafely(t *testing.T) {
	var xs []int
	err := safely(func() error { _ = xs[len(xs)+2]; return nil })
	if err == nil || !strings.Contains(err.Error(), "internal error: runtime error: index out of range [2] with length 0; please report it") {
		t.Errorf("got %v", err)
	}
}

// TestOutputsNoWiderThanInput checks that outputs derived from a private
// check-in file are private too.
func TestOutputsNoWiderThanInput(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile("../../assets/default_checkins.snap.txt")
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "private.txt")
	os.WriteFile(in, b, 0o600)
	truth, study := filepath.Join(dir, "t.csv"), filepath.Join(dir, "s.json")
	if code, _, errs := run("grid", "-in", in, "-o", truth, "-study-out", study); code != 0 {
		t.Fatal(errs)
	}
	for _, name := range []string{truth, study} {
		if fi, err := os.Stat(name); err != nil || fi.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s: mode %v, %v: readable beyond its private input", name, fi.Mode().Perm(), err)
		}
	}
}

// TestGridStudySource checks that the study grid writes records its data
// file and binning as the window's own studies do, so that privmap gui
// study.json reopens the data; a census study binned with -bins records
// none, as the window could not rebuild its categories.
func TestGridStudySource(t *testing.T) {
	dir := t.TempDir()
	study := filepath.Join(dir, "s.json")
	in := "../../assets/default_checkins.snap.txt"
	if code, _, errs := run("grid", "-in", in, "-cell", "0.4", "-per-user", "all", "-o", filepath.Join(dir, "t.csv"), "-study-out", study); code != 0 {
		t.Fatal(errs)
	}
	s, err := studyfile.Open(study)
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(in)
	src := s.Source
	if src == nil || src.Path != abs || src.Format != "snap" || src.CellKm != 0.4 || src.PerUser != "all" || len(src.BBox) != 4 ||
		src.BBox[0] != s.Alphabet.South || src.BBox[3] != s.Alphabet.East {
		t.Errorf("source %+v (alphabet %+v)", src, s.Alphabet)
	}
	if code, _, errs := run("grid", "-format", "adult", "-in", adultSample, "-attrs", "age,sex", "-o", filepath.Join(dir, "a.csv"), "-study-out", study); code != 0 {
		t.Fatal(errs)
	}
	if s, err = studyfile.Open(study); err != nil || s.Source == nil || s.Source.Format != "adult" || s.Source.Attrs != "age,sex" || s.Source.Missing != "drop" {
		t.Errorf("census source %+v, %v", s.Source, err)
	}
	if code, _, errs := run("grid", "-format", "adult", "-in", adultSample, "-attrs", "age,sex", "-bins", "age=0,40", "-o", filepath.Join(dir, "a.csv"), "-study-out", study); code != 0 {
		t.Fatal(errs)
	}
	if s, err = studyfile.Open(study); err != nil || s.Source != nil {
		t.Errorf("binned census source %+v, %v", s.Source, err)
	}
}

// TestGridSpreadsheetCSV grids the files spreadsheets export: a BOM,
// semicolons and decimal commas under a header of "User ID" and units,
// whose people are counted; and a header without a person column, which
// says on stderr that every row is taken as a person.
func TestGridSpreadsheetCSV(t *testing.T) {
	dir := t.TempDir()
	semi := filepath.Join(dir, "export.csv")
	if err := os.WriteFile(semi, []byte("\xEF\xBB\xBFUser ID;Latitude (WGS84);Longitude (WGS84)\r\nann;37,77;-122,41\r\nann;37,78;-122,42\r\nbob;37,76;-122,40\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run("grid", "-in", semi, "-cell", "0.5", "-o", filepath.Join(dir, "a.csv"))
	if code != 0 || !strings.Contains(out, "(semicolon-separated), 4 lines, 3 records, 2 users") || strings.Contains(errs, "no person column") {
		t.Errorf("semicolon export: exit %d\n%s%s", code, out, errs)
	}
	ids := filepath.Join(dir, "ids.csv")
	if err := os.WriteFile(ids, []byte("id,lat,long\n1,37.77,-122.41\n2,37.78,-122.42\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs = run("grid", "-in", ids, "-cell", "0.5", "-o", filepath.Join(dir, "b.csv"))
	if code != 0 || !strings.Contains(errs, "no person column: every row is treated as a person") || !strings.Contains(out, "2 users") {
		t.Errorf("no person column: exit %d\n%s%s", code, out, errs)
	}
}

// TestGridColumnMapping grids a headerless file by -cols, -delim and
// -time-format, and refuses a malformed mapping as a usage error.
func TestGridColumnMapping(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "points.txt")
	if err := os.WriteFile(in, []byte("ann:x:37.77:-122.41:1333476009\nann:y:37.78:-122.42:1333476010\nbob:z:37.76:-122.40:1333476011\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run("grid", "-in", in, "-cols", "user=1,loc=2,lat=3,lon=4,time=5", "-delim", ":", "-header", "no", "-time-format", "unix", "-cell", "0.5", "-o", filepath.Join(dir, "a.csv"))
	if code != 0 || !strings.Contains(out, "3 records, 2 users") {
		t.Errorf("exit %d\n%s%s", code, out, errs)
	}
	code, _, errs = run("grid", "-in", in, "-cols", "height=3", "-o", filepath.Join(dir, "b.csv"))
	if code != 2 || !strings.Contains(errs, `unknown kind "height"`) {
		t.Errorf("a bad -cols: exit %d, %s", code, errs)
	}
	code, _, errs = run("grid", "-in", in, "-format", "adult", "-cols", "lat=3", "-o", filepath.Join(dir, "c.csv"))
	if code != 2 || !strings.Contains(errs, "-cols: for check-in files only") {
		t.Errorf("-cols with a census file: exit %d, %s", code, errs)
	}
}

// TestGridPresets grids the public data sets' layouts, each in a file the
// test writes: Foursquare's global-scale check-ins joined with their
// venues, Yelp's businesses and reviews, a GeoLife folder; the study
// records the places files; misplaced flags are refused.
func TestGridPresets(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	venues := write("pois.txt", "3fd66200f964a52000e71ee3\t37.7735\t-122.4194\tJazz Club\tUS\n4a43c0aef964a520c6a61fe3\t37.7715\t-122.4214\tCafé\tUS\n")
	checkins := write("checkins.txt", "50756\t4a43c0aef964a520c6a61fe3\tTue Apr 03 18:00:06 +0000 2012\t-420\n"+
		"190571\t3fd66200f964a52000e71ee3\tTue Apr 03 18:00:07 +0000 2012\t-420\n190571\t4a43c0aef964a520c6a61fe3\tTue Apr 03 19:00:07 +0000 2012\t-420\n")
	study := filepath.Join(dir, "fsq.json")
	code, out, errs := run("grid", "-format", "foursquare-global", "-in", checkins, "-venues", venues, "-cell", "0.5", "-o", filepath.Join(dir, "fsq.csv"), "-study-out", study)
	if code != 0 || !strings.Contains(out, "foursquare-global format") || !strings.Contains(out, "3 records, 2 users") {
		t.Errorf("foursquare-global: exit %d\n%s%s", code, out, errs)
	}
	if b, err := os.ReadFile(study); err != nil {
		t.Error(err)
	} else if s, err := studyfile.Read(bytes.NewReader(b)); err != nil || s.Source.Format != "foursquare-global" || s.Source.Venues != venues {
		t.Errorf("the study's source: %v, %+v", err, s.Source)
	}
	code, _, errs = run("grid", "-format", "foursquare-global", "-in", checkins, "-o", filepath.Join(dir, "x.csv"))
	if code != 2 || !strings.Contains(errs, "give the venues file with -venues") {
		t.Errorf("no -venues: exit %d, %s", code, errs)
	}

	business := write("business.json", `{"business_id":"a","latitude":37.7735,"longitude":-122.4194}`+"\n"+`{"business_id":"b","latitude":37.7715,"longitude":-122.4214}`+"\n")
	reviews := write("review.json", `{"user_id":"u1","business_id":"a","date":"2018-07-07 22:09:11"}`+"\n"+`{"user_id":"u1","business_id":"b","date":"2018-07-08 22:09:11"}`+"\n"+`{"user_id":"u2","business_id":"b","date":"2019-01-01 10:00:00"}`+"\n")
	code, out, errs = run("grid", "-format", "yelp", "-in", business, "-cell", "0.5", "-o", filepath.Join(dir, "yb.csv"))
	if code != 0 || !strings.Contains(out, "2 records, 2 users") || !strings.Contains(errs, "no person column") {
		t.Errorf("yelp businesses: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = run("grid", "-format", "yelp", "-in", business, "-reviews", reviews, "-cell", "0.5", "-o", filepath.Join(dir, "yr.csv"))
	if code != 0 || !strings.Contains(out, "yelp-reviews format") || !strings.Contains(out, "3 records, 2 users") || errs != "" {
		t.Errorf("yelp reviews: exit %d\n%s%s", code, out, errs)
	}
	// An error in the reviews names the reviews file (it named the
	// businesses').
	badReviews := write("bad-review.json", `{"user_id":"u1","business_id":"zz","date":"2018-07-07 22:09:11"}`+"\n")
	code, _, errs = run("grid", "-format", "yelp", "-in", business, "-reviews", badReviews, "-cell", "0.5", "-o", filepath.Join(dir, "yz.csv"))
	if code != 1 || !strings.HasPrefix(errs, "privmap grid: "+badReviews+": line 1: business \"zz\": not in the places file") {
		t.Errorf("a review at no business: exit %d, %s", code, errs)
	}
	code, _, errs = run("grid", "-in", checkins, "-reviews", reviews, "-o", filepath.Join(dir, "y.csv"))
	if code != 2 || !strings.Contains(errs, "-reviews: for -format yelp only") {
		t.Errorf("-reviews without yelp: exit %d, %s", code, errs)
	}

	header := "Geolife trajectory\nWGS 84\nAltitude is in Feet\nReserved 3\n0,2,255,My Track,0,0,2,8421376\n0\n"
	write("Data/000/Trajectory/20081023025304.plt", header+"37.7735,-122.4194,0,492,39744.12,2008-10-23,02:53:04\n37.7736,-122.4195,0,492,39744.13,2008-10-23,02:53:10\n")
	write("Data/001/Trajectory/20081023055305.plt", header+"37.7715,-122.4214,0,492,39744.24,2008-10-23,05:53:05\n")
	code, out, errs = run("grid", "-format", "geolife", "-in", filepath.Join(dir, "Data"), "-cell", "0.5", "-per-user", "all", "-o", filepath.Join(dir, "gl.csv"))
	if code != 0 || !strings.Contains(out, "geolife format") || !strings.Contains(out, "3 records, 2 users") {
		t.Errorf("geolife: exit %d\n%s%s", code, out, errs)
	}
	code, _, errs = run("grid", "-format", "geolife", "-in", filepath.Join(dir, "Data"), "-o", filepath.Join(dir, "g2.csv"), "-record", filepath.Join(dir, "r.json"))
	if code != 2 || !strings.Contains(errs, "a GeoLife folder is not one") {
		t.Errorf("-record of a folder: exit %d, %s", code, errs)
	}
}

// TestGridWorkbook grids an Excel workbook's named sheet, its columns
// mapped by header names, and refuses a sheet it lacks.
func TestGridWorkbook(t *testing.T) {
	dir := t.TempDir()
	wb := excelize.NewFile()
	if _, err := wb.NewSheet("Visits"); err != nil {
		t.Fatal(err)
	}
	for i, r := range [][]any{{"Wer", "Breite", "Länge", "Wann"}, {"ann", 37.77, -122.41, time.Date(2024, 1, 2, 10, 0, 0, 0, time.UTC)}, {"ann", 37.78, -122.42, time.Date(2024, 1, 1, 10, 0, 0, 0, time.UTC)}, {"bob", 37.76, -122.40, time.Date(2024, 1, 3, 9, 0, 0, 0, time.UTC)}} {
		cell, _ := excelize.CoordinatesToCellName(1, i+1)
		if err := wb.SetSheetRow("Visits", cell, &r); err != nil {
			t.Fatal(err)
		}
	}
	in := filepath.Join(dir, "visits.xlsx")
	if err := wb.SaveAs(in); err != nil {
		t.Fatal(err)
	}
	study := filepath.Join(dir, "s.json")
	code, out, errs := run("grid", "-in", in, "-sheet", "Visits", "-cols", "user=Wer,lat=Breite,lon=Länge,time=Wann", "-cell", "0.5", "-o", filepath.Join(dir, "a.csv"), "-study-out", study)
	if code != 0 || !strings.Contains(out, `xlsx format (sheet "Visits"), 4 rows, 3 records, 2 users`) {
		t.Errorf("exit %d\n%s%s", code, out, errs)
	}
	b, err := os.ReadFile(study)
	if err != nil {
		t.Fatal(err)
	}
	if s, err := studyfile.Read(bytes.NewReader(b)); err != nil || s.Source.Sheet != "Visits" || s.Source.Columns != "user=Wer,lat=Breite,lon=Länge,time=Wann" {
		t.Errorf("the study's source: %v, %+v", err, s.Source)
	}
	code, _, errs = run("grid", "-in", in, "-sheet", "Stops", "-o", filepath.Join(dir, "b.csv"))
	if code != 1 || !strings.Contains(errs, `no sheet "Stops" (its sheets: Sheet1 · Visits)`) {
		t.Errorf("an unknown sheet: exit %d, %s", code, errs)
	}
}

// TestGridPeopleAndBox is issue 44's ninth and tenth findings: gridded in
// a box that drops every check-in of some users, one per person, the
// study numbers its people 0…P−1, so that release -study and the study's
// own reader take it (they refused "datum … has person …, outside …");
// and the box fitted to the data is the same under every per-person
// rule, so that grids of one file line up cell for cell.
func TestGridPeopleAndBox(t *testing.T) {
	in := writeSynth(t, 400)
	dir := t.TempDir()
	truth, study := filepath.Join(dir, "t.csv"), filepath.Join(dir, "s.json")
	if code, _, errs := run("grid", "-in", in, "-bbox", "37.75,-122.45,37.78,-122.40", "-cell", "0.5", "-per-user", "first", "-o", truth, "-study-out", study); code != 0 {
		t.Fatal(errs)
	}
	s, err := studyfile.Open(study)
	if err != nil {
		t.Fatalf("privmap cannot read its own study: %v", err)
	}
	if len(s.Data) >= 400 || len(s.Data) == 0 {
		t.Fatalf("%d data of 400 users: the box drops none or all", len(s.Data))
	}
	if code, _, errs := run("release", "-truth", truth, "-study", study, "-mechanism", "geometric", "-eps", "1", "-o", filepath.Join(dir, "r.csv")); code != 0 {
		t.Errorf("release -study refuses grid's study: %s", errs)
	}
	var box []string
	for _, rule := range []string{"first", "20", "all"} {
		st := filepath.Join(dir, "s"+rule+".json")
		if code, _, errs := run("grid", "-in", in, "-cell", "0.5", "-per-user", rule, "-o", filepath.Join(dir, "t"+rule+".csv"), "-study-out", st); code != 0 {
			t.Fatal(errs)
		}
		b, err := os.ReadFile(st)
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			Alphabet json.RawMessage `json:"alphabet"`
		}
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		box = append(box, string(m.Alphabet))
	}
	if box[0] != box[1] || box[1] != box[2] {
		t.Errorf("the fitted grid depends on the per-person rule:\nfirst %s\n20    %s\nall   %s", box[0], box[1], box[2])
	}
}

// TestGridPersonIDs is issue 44's third finding: blank person ids
// silently became one person each, and ids that differ only in case
// were different people without a word. Blank ids are refused with their
// lines named unless -blank-person says own or skip, and ids alike but
// for case or Unicode normal form are counted and warned of, or folded
// into one person with -person-key fold; the study records both.
func TestGridPersonIDs(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "c.csv")
	rows := "user,lat,lon\nAlice,37.76,-122.41\nalice,37.77,-122.42\n,37.75,-122.43\nbob,37.74,-122.40\n  ,37.76,-122.44\nCafe\u0301,37.76,-122.45\nCaf\u00e9,37.77,-122.45\n"
	if err := os.WriteFile(in, []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	truth, study := filepath.Join(dir, "t.csv"), filepath.Join(dir, "s.json")
	code, _, errs := run("grid", "-in", in, "-cell", "1", "-per-user", "all", "-o", truth, "-study-out", study)
	if code != 1 || !strings.Contains(errs, "blank person ids: 2 records name no person (lines 4, 6), in a file that names people") ||
		!strings.Contains(errs, "-blank-person own") {
		t.Errorf("blank ids: exit %d: %s", code, errs)
	}
	if _, err := os.Stat(truth); err == nil {
		t.Error("a refused file left a truth")
	}
	for _, tc := range []struct {
		blank, key   string
		data, people int
		warn         string
	}{
		{"own", "exact", 7, 7, "2 person ids differ from another only in case or Unicode normal form (such as \"Alice\" and \"alice\"): counted as different people; -person-key fold counts them as one"},
		{"skip", "exact", 5, 5, "2 records named no person: left out (-blank-person skip)"},
		{"skip", "fold", 5, 3, "counted as one person each (-person-key fold)"},
	} {
		code, stdout, errs := run("grid", "-in", in, "-cell", "1", "-per-user", "all", "-blank-person", tc.blank, "-person-key", tc.key, "-o", truth, "-study-out", study)
		if code != 0 {
			t.Fatalf("%+v: %s", tc, errs)
		}
		if !strings.Contains(errs, tc.warn) {
			t.Errorf("%+v: no warning %q: %s", tc, tc.warn, errs)
		}
		s, err := studyfile.Open(study)
		if err != nil {
			t.Fatal(err)
		}
		if people, _ := s.Contributions(); len(s.Data) != tc.data || people != tc.people {
			t.Errorf("%+v: %d data of %d people, want %d of %d\n%s", tc, len(s.Data), people, tc.data, tc.people, stdout)
		}
		if s.Source.BlankPerson != tc.blank || (tc.key == "fold") != (s.Source.PersonKey == "fold") {
			t.Errorf("%+v: source %+v", tc, s.Source)
		}
	}
	if code, _, errs := run("grid", "-in", in, "-o", truth, "-blank-person", "maybe"); code != 2 || !strings.Contains(errs, "want own") {
		t.Errorf("-blank-person maybe: exit %d: %s", code, errs)
	}
}
