package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/privmap/privmap/app/basemap"
	"github.com/privmap/privmap/app/mapplot"
	"github.com/privmap/privmap/app/output"
	"github.com/privmap/privmap/app/report"
)

// runReport is
//
//	privmap report -study S [-truth T] [-estimate E …] [-release R] [-record J …] [-data F]
//	               [-title T] [-operator NAME] [-notes TEXT] [-paper a4|letter] [-sections a,b,…]
//	               [-date RFC3339] [-basemap B] -o report.pdf
//
// It writes a privacy officer's release report (package report) and
// report.json beside it, both or neither: the study's data with their
// SHA-256, its population with each mechanism's audited guarantee per
// report and per person, each estimate with what its record (estimate
// -record) says — command, seed, certified gap, intervals — and its
// errors against the truth when the truth is given, its maps, the
// central release with its accuracy, and a manifest of every file with
// its digest and the commands that remake them.
func runReport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("report")
	var in reportInputs
	fs.StringVar(&in.study, "study", "", "study JSON `file`")
	fs.StringVar(&in.truth, "truth", "", "true distribution `file`: errors and the true map (raw data, a preview's)")
	fs.Var(&in.estimates, "estimate", "estimate CSV `file` (repeatable)")
	fs.StringVar(&in.release, "release", "", "released counts `file` (privmap release -o)")
	fs.Var(&in.records, "record", "record `file` of an estimate or release (their -record): command, seed, gap, intervals (repeatable)")
	fs.StringVar(&in.data, "data", "", "the data `file` (default: the study's own)")
	fs.StringVar(&in.title, "title", "Release report", "the report's `title`")
	fs.StringVar(&in.operator, "operator", "", "the `name` of who prepared the decision")
	fs.StringVar(&in.notes, "notes", "", "the decision's `notes`")
	fs.StringVar(&in.paper, "paper", "a4", "paper size: a4 or letter")
	sections := fs.String("sections", strings.Join(report.Sections, ","), "the `sections` to print, of "+strings.Join(report.Sections, ", "))
	date := fs.String("date", "", "the report's date, RFC 3339 (default now; SOURCE_DATE_EPOCH is honoured)")
	fs.StringVar(&in.basemap, "basemap", "", "map tiles under the maps: an MBTiles `file` or an XYZ URL template such as "+basemap.OSMTemplate)
	fs.Float64Var(&in.opacity, "opacity", mapplot.DefaultOpacity, "opacity of the maps over the basemap, 0–1")
	out := fs.String("o", "", "report PDF to write; its JSON goes beside it with the extension .json")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := cmp.Or(required(fs, "study", "o"), distinct(fs, []string{"o"}, "study", "truth", "release", "data")); err != nil {
		return err
	}
	jsonOut, err := reportPaths(*out, in.paper)
	if err != nil {
		return err
	}
	if in.sections, err = parseSections(*sections); err != nil {
		return err
	}
	if in.created, err = reportDate(*date); err != nil {
		return err
	}
	if !(in.opacity > 0 && in.opacity <= 1) {
		return usageError{msg: fmt.Sprintf("-opacity %v: want a number in (0, 1]", in.opacity)}
	}
	in.stderr = stderr
	start := time.Now()
	in.progress = func(stage string) {
		// A report that fails or ends within reportQuiet says nothing
		// but its result: a refusal stays one line.
		if time.Since(start) >= reportQuiet {
			fmt.Fprintf(stderr, "privmap report: %s, %s\n", stage, time.Since(start).Round(time.Second))
		}
	}
	r, figs, err := gatherReport(ctx, &in, []string{*out, jsonOut})
	if err != nil {
		return err
	}
	in.progress("writing the PDF and its JSON")
	var b output.Batch
	sources := append([]string{in.study, in.truth, in.release, in.data}, in.estimates...)
	b.Add(*out, func(w io.Writer) error { return report.WritePDF(w, r, figs) }, sources...)
	b.Add(jsonOut, func(w io.Writer) error { return report.WriteJSON(w, r) }, sources...)
	line, err := json.Marshal(map[string]any{"report": *out, "json": jsonOut, "sections": r.Sections, "estimates": len(r.Estimates), "release": r.Release != nil})
	if err != nil {
		return err
	}
	return commit(ctx, &b, stdout, stderr, printLine(line))
}

// reportQuiet is how long a report runs before it says each stage it
// starts on stderr (a city's takes minutes); a variable so that a test
// can hear every stage.
var reportQuiet = 5 * time.Second

// reportInputs are report's flags.
type reportInputs struct {
	study, truth, release, data string
	estimates, records          listFlag
	title, operator, notes      string
	paper                       string
	sections                    []string
	created                     time.Time
	basemap                     string
	opacity                     float64
	stderr                      io.Writer
	progress                    func(stage string) // each stage on stderr
}

// reportPaths checks -o and -paper and returns the JSON's path.
func reportPaths(out, paper string) (string, error) {
	if strings.ToLower(filepath.Ext(out)) != ".pdf" {
		return "", usageError{msg: fmt.Sprintf("-o %s: want a .pdf file (its JSON is written beside it)", out)}
	}
	if paper != "a4" && paper != "letter" {
		return "", usageError{msg: fmt.Sprintf("-paper %q: want a4 or letter", paper)}
	}
	return strings.TrimSuffix(out, filepath.Ext(out)) + ".json", nil
}

// parseSections reads -sections.
func parseSections(s string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if !slices.Contains(report.Sections, f) {
			return nil, usageError{msg: fmt.Sprintf("-sections: %q is not a section; want some of %s", f, strings.Join(report.Sections, ", "))}
		}
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out, nil
}

// reportDate returns -date, else SOURCE_DATE_EPOCH's time, else now,
// to the second, in UTC.
func reportDate(s string) (time.Time, error) {
	if s != "" {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return time.Time{}, usageError{msg: fmt.Sprintf("-date %q: want RFC 3339, such as 2026-11-26T09:30:00Z", s)}
		}
		return t.UTC(), nil
	}
	if e := os.Getenv("SOURCE_DATE_EPOCH"); e != "" {
		if sec, err := strconv.ParseInt(e, 10, 64); err == nil {
			return time.Unix(sec, 0).UTC(), nil
		}
	}
	return time.Now().UTC().Truncate(time.Second), nil
}

// gatherReport reads every input and returns the report's facts and
// figures through report.Gather, which the window's report uses too;
// outputs are the report's own files, named in the manifest.
func gatherReport(ctx context.Context, in *reportInputs, outputs []string) (*report.Report, []report.Figure, error) {
	if in.progress != nil {
		in.progress("reading the study, the estimates and the records")
	}
	inputs, err := report.ReadFiles(ctx, report.Files{Study: in.study, Truth: in.truth, Release: in.release, Data: in.data,
		Estimates: in.estimates, Records: in.records})
	if err != nil {
		return nil, nil, err
	}
	under, closeBase, err := in.underlay(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer closeBase()
	return report.Gather(ctx, inputs, report.Options{Title: in.title, Operator: in.operator, Notes: in.notes, Paper: in.paper,
		Sections: in.sections, Created: in.created.Format(time.RFC3339), Under: under, Progress: in.progress}, outputs)
}

// underlay opens -basemap and returns the underlay of the report's
// maps (nil without one) and what closes it; a basemap that cannot be
// reached is said on stderr and the maps go without it, their caption
// saying so.
func (in *reportInputs) underlay(ctx context.Context) (report.Underlay, func(), error) {
	src, err := openBasemap(in.basemap)
	if err != nil || src == nil {
		return nil, func() {}, err
	}
	closeBase := func() {
		if c, ok := src.(io.Closer); ok {
			c.Close()
		}
	}
	return func(maps []*mapplot.Map) string {
		credit, err := underlay(ctx, src, maps, renderOpts{w: 2000, h: 900, opacity: in.opacity})
		if err != nil {
			fmt.Fprintf(in.stderr, "privmap report: basemap %s: %v; the maps are drawn without it\n", in.basemap, err)
			return "none (" + basemap.Reason(err) + ")" // the full reason on stderr only
		}
		return credit
	}, closeBase, nil
}
