package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/privmap/privmap/geo"
	"github.com/privmap/privmap/geo/census"
)

// FuzzCensusFlags resolves arbitrary -attrs, -bins and -merge values
// (each of the latter two split at ";" into repeated flags) against
// Adult's columns and tabulates Adult lines with them: bad values are
// errors, never panics, and the table's records stay inside its
// alphabet.
func FuzzCensusFlags(f *testing.F) {
	f.Add("age,sex", "age=0,30,60", "sex=all:Male|Female")
	f.Add("age,workclass", "age=60,30", "workclass=x:?")
	f.Add("age", "age=NaN", "")
	f.Add("fnlwgt,capital-gain", "", "")
	f.Add("age", "age=", "age=:|")
	f.Fuzz(func(t *testing.T, attrs, bins, merges string) {
		c := &censusOpts{attrs: &attrs}
		if bins != "" {
			c.bins = strings.Split(bins, ";")
		}
		if merges != "" {
			c.merges = strings.Split(merges, ";")
		}
		fh, err := os.Open(adultSample)
		if err != nil {
			t.Fatal(err)
		}
		defer fh.Close()
		r, err := census.NewReader(fh, census.Adult)
		if err != nil {
			t.Fatal(err)
		}
		list, err := c.attributes(census.Adult, r.Columns())
		if err != nil {
			return
		}
		tab, err := census.Tabulate(r, list, census.Options{Missing: census.Category})
		if err != nil {
			return
		}
		for _, x := range tab.Data {
			if x < 0 || x >= tab.Len() {
				t.Fatalf("symbol %d outside 0..%d", x, tab.Len()-1)
			}
		}
	})
}

// FuzzBBox parses arbitrary -bbox values: an error, or a box inside the
// world with south below north and west of east.
func FuzzBBox(f *testing.F) {
	for _, s := range []string{"40.5,-74.3,41,-73.6", "0,0,0,0", "-90,-180,90,180", "1,2,3", "NaN,0,1,1", "1e309,0,1,1", " 1, 2 ,3,4"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := geo.ParseBBox(s)
		if err != nil {
			return
		}
		if !(b.Min[1] >= -90 && b.Max[1] <= 90 && b.Min[0] >= -180 && b.Max[0] <= 180 && b.Min[1] < b.Max[1] && b.Min[0] < b.Max[0]) {
			t.Fatalf("%q gave %v", s, b)
		}
	})
}
