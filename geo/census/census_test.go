package census

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/privmap/privmap/geo"
)

func open(t *testing.T, name string, f Format) *Reader {
	t.Helper()
	fh, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fh.Close() })
	r, err := NewReader(fh, f)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func readAll(t *testing.T, r *Reader) [][]string {
	t.Helper()
	var out [][]string
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, slices.Clone(rec))
	}
}

func TestReadAdultQuirks(t *testing.T) {
	for _, tc := range []struct {
		file         string
		records      int
		lines        int
		firstAge     string
		firstClass   string
		lastMarital  string
		missingCount int
	}{
		{"adult_sample.data", 13, 14, "39", "<=50K", "Separated", 4},
		// The cross-validator line and the full stops of adult.test.
		{"adult_test_sample.txt", 6, 7, "25", "<=50K", "Never-married", 2},
	} {
		t.Run(tc.file, func(t *testing.T) {
			t.Run(tc.file, func(t *testing.T) {
				r := open(t, tc.file, Adult)
				recs := readAll(t, r)
				if len(recs) != tc.records || r.Line() != tc.lines {
					t.Fatalf("read %d records in %d lines, want %d in %d", len(recs), r.Line(), tc.records, tc.lines)
				}
				if got := recs[0][0]; got != tc.firstAge {
					t.Errorf("first age = %q, want %q", got, tc.firstAge)
				}
				if got := recs[0][14]; got != tc.firstClass {
					t.Errorf("first class = %q, want %q", got, tc.firstClass)
				}
				if got := recs[len(recs)-1][5]; got != tc.lastMarital {
					t.Errorf("last marital status = %q, want %q", got, tc.lastMarital)
				}
				missing := 0
				for _, rec := range recs {
					for _, v := range rec {
						if v == "?" {
							missing++
						}
						if strings.HasSuffix(v, ".") || v != strings.TrimSpace(v) {
							t.Errorf("field %q not cleaned", v)
						}
					}
				}
				if missing != tc.missingCount {
					t.Errorf("%d missing values, want %d", missing, tc.missingCount)
				}
			})
		})
	}
}

func TestReadCensus1990Header(t *testing.T) {
	r := open(t, "census1990_head3.txt", Census1990)
	if n := len(r.Columns()); n != 69 {
		t.Fatalf("%d columns, want caseid + 68", n)
	}
	recs := readAll(t, r)
	if len(recs) != 3 {
		t.Fatalf("%d records, want 3", len(recs))
	}
	col := slices.Index(r.Columns(), "dAge")
	if got := []string{recs[0][col], recs[1][col], recs[2][col]}; !slices.Equal(got, []string{"5", "6", "3"}) {
		t.Errorf("dAge of the first three = %v, want [5 6 3]", got)
	}
}

// TestCEMTable2Census1990 checks CEM Table 2's mapping on the 99 records
// of the head of USCensus1990.data.txt. The marginal counts were tallied
// from the fixture with awk, independently of this package.
func TestCEMTable2Census1990(t *testing.T) {
	tab, err := Tabulate(open(t, "../../../assets/census1990_head.csv", Census1990), CEMTable2(Census1990), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if tab.Len() != 400 || len(tab.Data) != 99 || tab.Records != 99 || tab.Dropped != 0 {
		t.Fatalf("K = %d, %d data of %d records (%d dropped), want 400, 99 of 99", tab.Len(), len(tab.Data), tab.Records, tab.Dropped)
	}
	// caseid 10000: dAge 5, iSex 1, dIncome1 2, iMarital 1 → ((5·2+1)·5+2)·5+1.
	if tab.Data[0] != 286 {
		t.Errorf("first symbol = %d, want 286", tab.Data[0])
	}
	if got, want := tab.Labels()[286], "40–49, female, $15,000–29,999, widowed"; got != want {
		t.Errorf("label of 286 = %q, want %q", got, want)
	}
	a, err := tab.Alphabet(false)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float64{
		{0, 20, 4, 16, 21, 12, 13, 13},
		{45, 54},
		{45, 25, 16, 13, 0},
		{48, 6, 7, 2, 36},
	}
	counts := make([]float64, tab.Len())
	for i, c := range tab.Counts() {
		counts[i] = float64(c)
	}
	for j, w := range want {
		m, err := a.Marginal(counts, j)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(m, w) {
			t.Errorf("marginal of %s = %v, want %v", a.Attributes[j].Name, m, w)
		}
	}
}

// TestCEMFixtureMatchesSharedFile checks the fixture against the source
// file when the shared data are present.
func TestCEMFixtureMatchesSharedFile(t *testing.T) {
	src := filepath.Join("..", "..", "..", "shared", "data", "census", "USCensus1990.head.data.txt")
	fh, err := os.Open(src)
	if err != nil {
		t.Skip("shared data absent:", err)
	}
	defer fh.Close()
	full, err := NewReader(fh, Census1990)
	if err != nil {
		t.Fatal(err)
	}
	fix := open(t, "../../../assets/census1990_head.csv", Census1990)
	cols := make([]int, len(fix.Columns()))
	for i, c := range fix.Columns() {
		cols[i] = slices.Index(full.Columns(), c)
	}
	want := readAll(t, fix)
	got := readAll(t, full)
	if len(got) != len(want) {
		t.Fatalf("source has %d records, fixture %d", len(got), len(want))
	}
	for i := range got {
		for j, c := range cols {
			if got[i][c] != want[i][j] {
				t.Fatalf("record %d column %s: source %q, fixture %q", i+1, fix.Columns()[j], got[i][c], want[i][j])
			}
		}
	}
}

func TestCEMTable2Adult(t *testing.T) {
	tab, err := Tabulate(open(t, "adult_sample.data", Adult), CEMTable2(Adult), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if tab.Len() != 120 || len(tab.Data) != 13 {
		t.Fatalf("K = %d with %d data, want 120 and 13", tab.Len(), len(tab.Data))
	}
	// Symbols worked by hand: ((age·2 + sex)·2 + income)·5 + marital.
	for _, tc := range []struct {
		i     int
		sym   int
		label string
	}{
		{0, 44, "30–39, male, ≤$50K, never married"}, // 39 Male <=50K Never-married
		{1, 80, "50–64, male, ≤$50K, married"},       // 50 Male <=50K Married-civ-spouse
		{6, 65, "40–49, male, >$50K, married"},       // 40 Male >50K Married-civ-spouse
		{9, 10, "17–19, female, ≤$50K, married"},     // 19 Female Married-AF-spouse
		{10, 70, "40–49, female, ≤$50K, married"},    // 49 Female Married-spouse-absent
		{11, 51, "30–39, female, ≤$50K, widowed"},    // 36 Female Widowed
		{12, 93, "50–64, female, ≤$50K, separated"},  // 54 Female Separated
	} {
		t.Run(tc.label, func(t *testing.T) {
			if got := tab.Data[tc.i]; got != tc.sym {
				t.Errorf("record %d: symbol %d, want %d", tc.i+1, got, tc.sym)
			}
			if got := tab.Labels()[tc.sym]; got != tc.label {
				t.Errorf("label %d = %q, want %q", tc.sym, got, tc.label)
			}
		})
	}
	test, err := Tabulate(open(t, "adult_test_sample.txt", Adult), CEMTable2(Adult)[2:3], Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := test.Counts(); !slices.Equal(got, []int{4, 2}) {
		t.Errorf("income classes of adult.test's lines = %v, want [4 2] (labels end in '.')", got)
	}
}

func TestMissingPolicy(t *testing.T) {
	workclass := Attr{Name: "workclass", Column: "workclass"}
	drop, err := Tabulate(open(t, "adult_sample.data", Adult), []Attr{workclass}, Options{Missing: Drop})
	if err != nil {
		t.Fatal(err)
	}
	if drop.Records != 13 || drop.Dropped != 1 || len(drop.Data) != 12 || drop.Axes[0].Missing != 1 {
		t.Errorf("drop: %d records, %d dropped, %d kept, %d missing; want 13, 1, 12, 1", drop.Records, drop.Dropped, len(drop.Data), drop.Axes[0].Missing)
	}
	if want := []string{"Private", "Self-emp-not-inc", "State-gov"}; !slices.Equal(drop.Axes[0].Labels, want) {
		t.Errorf("drop labels = %v, want %v", drop.Axes[0].Labels, want)
	}
	cat, err := Tabulate(open(t, "adult_sample.data", Adult), []Attr{workclass}, Options{Missing: Category})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"Private", "Self-emp-not-inc", "State-gov", MissingLabel}; !slices.Equal(cat.Axes[0].Labels, want) {
		t.Errorf("category labels = %v, want %v", cat.Axes[0].Labels, want)
	}
	if got := cat.Counts(); !slices.Equal(got, []int{10, 1, 1, 1}) || cat.Dropped != 0 {
		t.Errorf("category counts = %v (%d dropped), want [10 1 1 1]", got, cat.Dropped)
	}
}

func TestOpenAttributeSortsNumbers(t *testing.T) {
	edu := Attr{Name: "education-num", Column: "education-num"}
	tab, err := Tabulate(open(t, "adult_sample.data", Adult), []Attr{edu}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"5", "7", "9", "10", "11", "13", "14"}; !slices.Equal(tab.Axes[0].Labels, want) {
		t.Errorf("labels = %v, want numeric order %v", tab.Axes[0].Labels, want)
	}
	a, err := tab.Alphabet(true)
	if err != nil || a.Kind != "linear" || a.Size != 7 {
		t.Errorf("ordinal alphabet = %+v, %v; want linear of 7", a, err)
	}
	merged := Attr{Name: "marital", Column: "marital-status", Merge: map[string]string{
		"Married-civ-spouse": "married", "Married-AF-spouse": "married", "Married-spouse-absent": "married"}}
	tab, err = Tabulate(open(t, "adult_sample.data", Adult), []Attr{merged}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"Divorced", "Never-married", "Separated", "Widowed", "married"}; !slices.Equal(tab.Axes[0].Labels, want) {
		t.Errorf("merged labels = %v, want %v", tab.Axes[0].Labels, want)
	}
	if _, err := tab.Alphabet(true); !errors.Is(err, ErrNotOrdinal) {
		t.Errorf("ordinal alphabet of marital status: err = %v, want ErrNotOrdinal", err)
	}
}

func TestOrdinalAge(t *testing.T) {
	tab, err := Tabulate(open(t, "../../../assets/census1990_head.csv", Census1990), CEMTable2(Census1990)[:1], Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := tab.Alphabet(true)
	if err != nil {
		t.Fatal(err)
	}
	if a.Kind != "linear" || a.Size != 8 || a.Labels[7] != "65+" {
		t.Errorf("alphabet = %+v, want linear of 8 age bins", a)
	}
	if d, unit, ok := a.Distance(1, 4); !ok || d != 3 || unit != "step" {
		t.Errorf("distance between age bins 1 and 4 = %v %s, want 3 steps", d, unit)
	}
}

func TestErrors(t *testing.T) {
	ages := CEMTable2(Adult)[:1]
	for _, tc := range []struct {
		name   string
		format Format
		text   string
		attrs  []Attr
		line   int
		column int
		want   error
	}{
		{"field count", Adult, "39, State-gov, 77516\n", ages, 1, 0, geo.ErrFieldCount},
		{"below edges", Adult, adultLine("16", "Male") + "\n", ages, 1, 1, ErrBelowEdges},
		{"not a number", Adult, "\n" + adultLine("forty", "Male") + "\n", ages, 2, 1, ErrNotNumber},
		{"unknown value", Adult, adultLine("40", "Male") + "\n" + adultLine("40", "Other") + "\n", CEMTable2(Adult)[1:2], 2, 10, ErrUnknownVal},
		{"census code", Census1990, "caseid,dAge,iSex,dIncome1,iMarital\n1,8,0,0,0\n", CEMTable2(Census1990), 2, 2, ErrUnknownVal},
		{"no header", Census1990, "1,2,0,0,0\n", nil, 1, 1, ErrNoHeader},
		{"duplicate column", Census1990, "caseid,dAge,DAGE\n", nil, 1, 3, ErrDupColumn},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tabulateText(tc.text, tc.format, tc.attrs, Options{})
			var pe *geo.ParseError
			if !errors.As(err, &pe) || !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want a *geo.ParseError wrapping %v", err, tc.want)
			}
			if pe.Line != tc.line || pe.Column != tc.column {
				t.Errorf("error at line %d field %d, want line %d field %d", pe.Line, pe.Column, tc.line, tc.column)
			}
		})
	}
}

func TestSkipBad(t *testing.T) {
	text := adultLine("40", "Male") + "\n" + adultLine("abc", "Male") + "\n39, x\n" + adultLine("70", "Female") + "\n"
	tab, err := tabulateText(text, Adult, CEMTable2(Adult)[:2], Options{SkipBad: true})
	if err != nil {
		t.Fatal(err)
	}
	if tab.Skipped != 2 || len(tab.Errors) != 2 || tab.Records != 2 || !slices.Equal(tab.Data, []int{6, 11}) {
		t.Errorf("skipped %d (%v), %d records, data %v; want 2 skipped, 2 records, [6 11]", tab.Skipped, tab.Errors, tab.Records, tab.Data)
	}
	if tab.Errors[0].Line != 2 || tab.Errors[1].Line != 3 {
		t.Errorf("skipped lines %d and %d, want 2 and 3", tab.Errors[0].Line, tab.Errors[1].Line)
	}
}

func TestEmptyAndSetupErrors(t *testing.T) {
	if _, err := tabulateText("\n\n", Adult, CEMTable2(Adult), Options{}); !errors.Is(err, geo.ErrEmpty) {
		t.Errorf("empty file: err = %v, want geo.ErrEmpty", err)
	}
	if _, err := NewReader(strings.NewReader(""), Census1990); !errors.Is(err, geo.ErrEmpty) {
		t.Errorf("empty census file: err = %v, want geo.ErrEmpty", err)
	}
	if _, err := tabulateText(adultLine("40", "Male"), Adult, nil, Options{}); err == nil {
		t.Error("no attributes: no error")
	}
	twice := []Attr{CEMTable2(Adult)[0], CEMTable2(Adult)[0]}
	if _, err := tabulateText(adultLine("40", "Male"), Adult, twice, Options{}); err == nil {
		t.Error("attribute chosen twice: no error")
	}
	if _, err := tabulateText("caseid,dAge\n1,2\n", Census1990, CEMTable2(Census1990), Options{}); err == nil || !strings.Contains(err.Error(), "iSex") {
		t.Errorf("missing column: err = %v, want it named", err)
	}
	bad := Attr{Name: "x", Column: "age", Edges: []float64{10, 5}}
	if _, err := tabulateText(adultLine("40", "Male"), Adult, []Attr{bad}, Options{}); err == nil {
		t.Error("decreasing edges: no error")
	}
}

func TestLookup(t *testing.T) {
	if a, err := Lookup(Adult, AdultColumns, "Marital"); err != nil || a.Column != "marital-status" || len(a.Values) != 5 {
		t.Errorf("Lookup(marital) = %+v, %v; want the preset", a, err)
	}
	if a, err := Lookup(Adult, AdultColumns, "MARITAL-STATUS"); err != nil || a.Column != "marital-status" || a.Values != nil {
		t.Errorf("Lookup(MARITAL-STATUS) = %+v, %v; want the raw column", a, err)
	}
	_, err := Lookup(Census1990, []string{"caseid", "dAge"}, "height")
	if err == nil || !strings.Contains(err.Error(), "dAge") || !strings.Contains(err.Error(), "marital") {
		t.Errorf("Lookup(height) err = %v, want presets and columns listed", err)
	}
}

func TestBinLabels(t *testing.T) {
	a := Attr{Name: "x", Column: "x", Edges: []float64{0, 1, 13, 20, 2.5e6}}
	want := []string{"0", "1–12", "13–19", "20–2499999", "2500000+"}
	if got := a.labels(); !slices.Equal(got, want) {
		t.Errorf("labels = %v, want %v", got, want)
	}
	b := Attr{Name: "x", Column: "x", Edges: []float64{0, 0.5}}
	if got := b.labels(); !slices.Equal(got, []string{"[0, 0.5)", "0.5+"}) {
		t.Errorf("labels = %v", got)
	}
}

func TestParseFormatAndMissing(t *testing.T) {
	if f, err := ParseFormat("Census1990"); err != nil || f != Census1990 {
		t.Errorf("ParseFormat(Census1990) = %v, %v", f, err)
	}
	if _, err := ParseFormat("gowalla"); !errors.Is(err, ErrUnknownFormat) || IsFormat("gowalla") {
		t.Errorf("gowalla is not a census format: %v", err)
	}
	if m, err := ParseMissing("category"); err != nil || m != Category || m.String() != "category" {
		t.Errorf("ParseMissing(category) = %v, %v", m, err)
	}
	if _, err := ParseMissing("impute"); err == nil {
		t.Error("ParseMissing(impute): no error")
	}
}

// adultLine returns an Adult line with the given age and sex.
func adultLine(age, sex string) string {
	return age + ", Private, 1, HS-grad, 9, Never-married, Sales, Own-child, White, " + sex + ", 0, 0, 40, United-States, <=50K"
}

func tabulateText(text string, f Format, attrs []Attr, opt Options) (*Table, error) {
	r, err := NewReader(strings.NewReader(text), f)
	if err != nil {
		return nil, err
	}
	return Tabulate(r, attrs, opt)
}

func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		line string
		f    Format
		ok   bool
	}{
		{"caseid,dAge,dAncstry1", Census1990, true},
		{"\ufeffCASEID,dAge", Census1990, true},
		{"|1x3 Cross validator", Adult, true},
		{adultLine("39", "Male"), Adult, true},
		{adultLine("39", "Male") + ".", Adult, true},
		{"user\ttime\tlat\tlon", 0, false},
		{"37.77,-122.41", 0, false},
		{adultLine("x", "Male"), 0, false},
	} {
		t.Run(tc.line, func(t *testing.T) {
			if f, ok := Detect(tc.line); f != tc.f || ok != tc.ok {
				t.Errorf("Detect(%.30q) = %v, %v; want %v, %v", tc.line, f, ok, tc.f, tc.ok)
			}
			// From a reader, before a second line, which stays unread.
			br := bufio.NewReader(strings.NewReader(tc.line + "\ncaseid,next"))
			if f, ok := DetectReader(br); f != tc.f || ok != tc.ok {
				t.Errorf("DetectReader(%.30q) = %v, %v; want %v, %v", tc.line, f, ok, tc.f, tc.ok)
			}
			if all, _ := io.ReadAll(br); string(all) != tc.line+"\ncaseid,next" {
				t.Errorf("DetectReader consumed %q", tc.line)
			}
		})
	}
}

// TestTooManyCategories checks that three unbinned numeric attributes of
// 200 distinct values each (8 million categories, past geo.MaxCells) are
// refused after reading, naming each attribute's count, before anything
// of that size is allocated, while 2.8 million categories are accepted.
func TestTooManyCategories(t *testing.T) {
	var b strings.Builder
	for i := range 200 {
		fmt.Fprintf(&b, "%d, Private, %d, HS-grad, 9, Never-married, Sales, Own-child, White, Male, 0, 0, %d, United-States, <=50K\n", 17+i%70, 1000+i, 1+i)
	}
	attrs := []Attr{{Name: "age", Column: "age"}, {Name: "fnlwgt", Column: "fnlwgt"}, {Name: "hours", Column: "hours-per-week"}}
	// 70 × 200 × 200 = 2.8 million categories fit.
	if _, err := tabulateText(b.String(), Adult, attrs, Options{}); err != nil {
		t.Fatalf("2.8 million categories: %v", err)
	}
	attrs[0] = Attr{Name: "capital", Column: "capital-gain"}
	b.Reset()
	for i := range 200 {
		fmt.Fprintf(&b, "%d, Private, %d, HS-grad, 9, Never-married, Sales, Own-child, White, Male, %d, 0, %d, United-States, <=50K\n", 30, 1000+i, i, 1+i)
	}
	_, err := tabulateText(b.String(), Adult, attrs, Options{})
	if err == nil || !strings.Contains(err.Error(), "capital (200) × fnlwgt (200) × hours (200) make 8e+06 categories, more than the 4194304") {
		t.Errorf("8 million categories: %v", err)
	}
}
