package census

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fuzzCensus reads arbitrary text as a census file of format f and
// tabulates it on attrs (a list as -attrs takes it, resolved against the
// file's columns), with every missing-value policy and with and without
// skipping bad records. Reading may fail, never panic; a table it
// returns must be consistent: every symbol inside the alphabet, the
// counts summing to the records kept, no more records than lines.
func fuzzCensus(f *testing.F, format Format, attrs string) {
	files, _ := filepath.Glob("testdata/*")
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(string(b))
		}
	}
	f.Add("")
	f.Add("\uFEFF|comment\n\n39, State-gov, 77516\n")
	f.Add("caseid,dAge\n1,5\n2,\"6\n")
	f.Fuzz(func(t *testing.T, in string) {
		for _, missing := range []Missing{Drop, Category} {
			for _, skip := range []bool{false, true} {
				r, err := NewReader(strings.NewReader(in), format)
				if err != nil {
					continue
				}
				list, err := Attributes(format, r.Columns(), attrs)
				if err != nil {
					continue
				}
				tab, err := Tabulate(r, list, Options{Missing: missing, SkipBad: skip})
				if err != nil {
					continue
				}
				checkTable(t, tab, in)
			}
		}
	})
}

func checkTable(t *testing.T, tab *Table, in string) {
	t.Helper()
	k := tab.Len()
	total := 0
	for _, c := range tab.Counts() {
		total += c
	}
	if total != len(tab.Data) {
		t.Fatalf("counts sum to %d, %d records kept", total, len(tab.Data))
	}
	for _, x := range tab.Data {
		if x < 0 || x >= k {
			t.Fatalf("symbol %d outside 0..%d", x, k-1)
		}
	}
	if lines := strings.Count(in, "\n") + 1; len(tab.Data) > lines || tab.Lines > lines {
		t.Fatalf("%d records from %d lines (%d counted)", len(tab.Data), lines, tab.Lines)
	}
}

func FuzzCensusAdult(f *testing.F) { fuzzCensus(f, Adult, "age,sex,education,income") }
func FuzzCensus1990(f *testing.F)  { fuzzCensus(f, Census1990, "dage,isex,iclass") }
