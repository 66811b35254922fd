package core

import (
	"slices"
	"strings"
	"testing"
)

func TestParseSymbols(t *testing.T) {
	xs, err := ParseSymbols("5, 17 20-22;30", 31)
	if err != nil || !slices.Equal(xs, []int{5, 17, 20, 21, 22, 30}) {
		t.Fatalf("got %v, %v", xs, err)
	}
	if s := FormatSymbols(xs); s != "5, 17, 20-22, 30" {
		t.Errorf("formatted %q", s)
	}
	if s := FormatSymbols([]int{1, 2}); s != "1, 2" {
		t.Errorf("formatted %q", s)
	}
	for bad, want := range map[string]string{
		"a":                       `symbol "a" is not a whole number`,
		"5-3":                     `range "5-3" is not lo-hi`,
		"2-x":                     `range "2-x" is not lo-hi`,
		"-1":                      `symbol "-1" is not a whole number`,
		"31":                      "31 is outside the alphabet of 31 symbols (0-30)",
		"0-9223372036854775807":   "outside the alphabet of 31 symbols",
		"3, 3":                    "symbol 3 is listed twice",
		"0-30, 0-30":              "more than the 31 symbols of the alphabet",
		"99999999999999999999999": "not a whole number",
	} {
		if _, err := ParseSymbols(bad, 31); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseSymbols(%q): %v, want %q", bad, err, want)
		}
	}
}

func TestReadSymbols(t *testing.T) {
	got, err := ReadSymbols(strings.NewReader("1, 2\n5-7\n\n 9\n"), 10)
	if err != nil || !slices.Equal(got, []int{1, 2, 5, 6, 7, 9}) {
		t.Errorf("list: %v, %v", got, err)
	}
	got, err = ReadSymbols(strings.NewReader("cell,probability,label\n0,0.5,a\n1,0,b\n3,0.5,c\n"), 4)
	if err != nil || !slices.Equal(got, []int{0, 3}) {
		t.Errorf("distribution: %v, %v", got, err)
	}
	for in, want := range map[string]string{
		"1, 12":                   "12 is outside the alphabet of 10 symbols",
		"cells,x\n1,2\n":          `no "cell" column`,
		"cell\nx\n":               `line 2: cell "x" is not a whole number`,
		"cell\n3\n10\n":           "line 3: cell 10 is outside the alphabet of 10 cells",
		"cell\n3\n3\n":            "symbol 3 is listed twice",
		"cell,probability\n3\n":   "line 2: 1 fields, the header has 2",
		"cell,probability\n\"0\n": "extraneous or missing \" in quoted-field",
		"1, a":                    `symbol "a" is not a whole number`,
	} {
		if _, err := ReadSymbols(strings.NewReader(in), 10); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadSymbols(%q): %v, want %q", in, err, want)
		}
	}
}

// FuzzSymbols reads arbitrary text as a typed list and as a file of
// symbols: it may fail, never panic, and what it returns is distinct
// symbols of the alphabet that format and parse back unchanged.
func FuzzSymbols(f *testing.F) {
	for _, s := range []string{"5, 17 20-22;30", "0-9", "cell,probability\n0,0.5\n3,0\n", "cell\n\"0", "1-3\n4", "cell\n9\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		const k = 40
		for _, read := range []func() ([]int, error){
			func() ([]int, error) { return ParseSymbols(in, k) },
			func() ([]int, error) { return ReadSymbols(strings.NewReader(in), k) },
		} {
			xs, err := read()
			if err != nil {
				continue
			}
			if len(xs) > k || distinctSymbols(xs) != nil {
				t.Fatalf("%q gave %v", in, xs)
			}
			for _, x := range xs {
				if x < 0 || x >= k {
					t.Fatalf("%q gave symbol %d", in, x)
				}
			}
			sorted := slices.Sorted(slices.Values(xs))
			back, err := ParseSymbols(FormatSymbols(sorted), k)
			if err != nil || !slices.Equal(back, sorted) {
				t.Fatalf("%v formats as %q, reads back %v, %v", sorted, FormatSymbols(sorted), back, err)
			}
		}
	})
}
