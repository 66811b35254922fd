package studyfile

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/privmap/privmap/app/build"
	"github.com/privmap/privmap/core"
	"github.com/privmap/privmap/geo"
)

// TestStudyRoundTrip writes a study with its source and run and reads it
// back; core alone refuses the application's members, and a misspelt
// member inside them is an error.
func TestStudyRoundTrip(t *testing.T) {
	s := &Study{
		Study: &core.Study{
			Alphabet:   core.Alphabet{Kind: core.KindLinear, Size: 4},
			Mechanisms: []core.MechanismSpec{{ID: "k", Kind: core.KindKRR, Epsilon: 1}},
			Data:       []int{0, 3, 3},
		},
		Source: &Source{Path: "/data/a b.txt", Format: "gowalla", BBox: []float64{37.7, -122.5, 37.8, -122.4}, CellKm: 0.5, PerUser: "first"},
		Run:    &RunSettings{Methods: []core.Method{core.MethodGIBU, core.MethodCEM}, Seed: 7, Tol: 1e-12, Post: core.PostNorm},
	}
	var buf bytes.Buffer
	if err := Write(&buf, s); err != nil {
		t.Fatal(err)
	}
	written := buf.String()
	got, err := Read(strings.NewReader(written))
	if err != nil {
		t.Fatal(err)
	}
	got.Extensions = nil
	if got.Writer == nil || *got.Writer != *ThisWriter() || !strings.Contains(written, `"privmap": {
    "version": "`+build.Version+`"`) {
		t.Errorf("the study records its writer as %+v:\n%s", got.Writer, written)
	}
	got.Writer = nil
	if !reflect.DeepEqual(got, s) {
		t.Errorf("Read(Write(s)) = %+v, want %+v", got, s)
	}
	// core reads a window's study too when told of the application's
	// members, keeping them.
	if cs, err := core.ReadStudy(strings.NewReader(written), ApplicationMembers...); err != nil || cs.Extensions["run"] == nil || cs.Extensions["source"] == nil {
		t.Errorf("core.ReadStudy of a window's study: %v", err)
	}
	for _, tc := range []struct{ name, in, want string }{
		{"misspelt run member", `{"alphabet": {"kind": "linear", "size": 2}, "mechanisms": [], "run": {"method": ["gibu"]}}`, `unknown field "method"`},
		{"misspelt source member", `{"alphabet": {"kind": "linear", "size": 2}, "mechanisms": [], "source": {"pth": "x"}}`, `unknown field "pth"`},
		{"misspelt top-level member", `{"alphabet": {"kind": "linear", "size": 2}, "mechanisms": [], "sources": {}}`, `unknown field "sources"`},
		{"wrong type in source", `{"alphabet": {"kind": "linear", "size": 2}, "mechanisms": [], "source": {"cell_km": "half"}}`, `"source"`},
		{"misspelt writer", `{"alphabet": {"kind": "linear", "size": 2}, "mechanisms": [], "privmap": {"versoin": "0.1.0"}}`, `unknown field "versoin"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Read(strings.NewReader(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ReadStudy: error %v, want one containing %s", err, tc.want)
			}
		})
	}
}

// TestStudyWithoutApplicationMembers writes a plain study as core does,
// with only the privmap that wrote it added; a study without that member
// (an older privmap's) reads with a nil Writer.
func TestStudyWithoutApplicationMembers(t *testing.T) {
	cs := &core.Study{Alphabet: core.Alphabet{Kind: core.KindLinear, Size: 2}}
	var mine, cores bytes.Buffer
	if err := Write(&mine, &Study{Study: cs}); err != nil {
		t.Fatal(err)
	}
	c := *cs
	c.Extensions = map[string]json.RawMessage{"privmap": json.RawMessage(`{"version":"` + build.Version + `"` + commitMember() + `}`)}
	if err := core.WriteStudy(&cores, &c); err != nil {
		t.Fatal(err)
	}
	if mine.String() != cores.String() {
		t.Errorf("WriteStudy without source or run:\n%s\nwant core's\n%s", mine.String(), cores.String())
	}
	old, err := Read(strings.NewReader(`{"alphabet": {"kind": "linear", "size": 2}, "mechanisms": []}`))
	if err != nil || old.Writer != nil {
		t.Errorf("a study of an older privmap: %v, writer %+v", err, old)
	}
}

// commitMember is the "commit" member of the running privmap's Writer.
func commitMember() string {
	if c := build.Commit(); c != "" {
		return `,"commit":"` + c + `"`
	}
	return ""
}

// TestSourceMapping: a source records the column mapping a file was read
// by, and gives it back; a source without one gives nil.
func TestSourceMapping(t *testing.T) {
	m := &geo.Mapping{Columns: map[string]string{"user": "1", "lat": "Latitude (WGS84)", "lon": "6"}, Delim: ';', Header: geo.HeaderYes, Latin1: true, TimeLayout: "02.01.2006 15:04"}
	gd := &geo.Gridded{Grid: &geo.Grid{CellKm: 0.5}}
	s := GridSource("/d/x.csv", geo.Delimited, m, gd)
	if s.Columns != "user=1,lat=Latitude (WGS84),lon=6" || s.Delim != "semicolon" || s.Header != "yes" || s.Encoding != "latin-1" || s.TimeFormat != "02.01.2006 15:04" {
		t.Fatalf("recorded %+v", s)
	}
	var buf bytes.Buffer
	if err := Write(&buf, &Study{Study: &core.Study{Alphabet: core.Alphabet{Kind: core.KindLinear, Size: 2}}, Source: s}); err != nil {
		t.Fatal(err)
	}
	back, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	got, err := back.Source.Mapping()
	if err != nil || !reflect.DeepEqual(got, m) {
		t.Fatalf("Mapping() = %+v, %v, want %+v", got, err, m)
	}
	if got, err := GridSource("/d/x.txt", geo.SNAP, nil, gd).Mapping(); got != nil || err != nil {
		t.Errorf("a source without a mapping gives %+v, %v", got, err)
	}
	if _, err := (&Source{Delim: "two"}).Mapping(); err == nil {
		t.Error("a malformed recorded delimiter was accepted")
	}
}
