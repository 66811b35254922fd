package cli

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/paulmach/orb"

	"github.com/privmap/privmap/app/output"
	"github.com/privmap/privmap/app/studyfile"
	"github.com/privmap/privmap/core"
	"github.com/privmap/privmap/geo"
	"github.com/privmap/privmap/geo/census"
)

// runGrid is
//
//	privmap grid -in F [-format gowalla|foursquare|tsmc2014|csv] [-bbox S,W,N,E]
//	             [-cell KM] [-per-user first|all] -o truth.csv [-study-out study.json [-home]]
//	             [-cols user=1,lat=5,lon=6,time=8] [-delim tab|comma|semicolon|pipe|auto]
//	             [-header yes|no|auto] [-encoding utf-8|latin-1|auto] [-time-format LAYOUT]
//	privmap grid -in CHECKINS -format foursquare-global -venues POIS …
//	privmap grid -in BUSINESSES -format yelp [-reviews REVIEWS] …
//	privmap grid -in FOLDER -format geolife …
//	privmap grid -in F -format adult|census1990 [-attrs A,B,…] [-bins A=E1,E2,…]
//	             [-merge A=LABEL:V1|V2] [-missing drop|category] [-ordinal] -o truth.csv [-study-out study.json]
//
// It reads a check-in file, bins it and writes the true distribution and,
// optionally, the study file of the grid alphabet with every datum's cell
// and, with -home, every datum's home cell for PUM. A census file is
// tabulated over the chosen attributes instead (see runGridCensus). With
// -preset the study also gets a paper's population of mechanisms.
func runGrid(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("grid")
	in := fs.String("in", "", "check-in or census `file` to read")
	format := fs.String("format", "", "file format: "+formatNames()+" (default: detect a check-in format, workbooks, GeoJSON and GeoParquet included)")
	venues := fs.String("venues", "", "the venues `file` (dataset_TIST2015_POIs.txt) that -format foursquare-global's check-ins are placed at")
	reviews := fs.String("reviews", "", "with -format yelp: read this reviews `file` (yelp_academic_dataset_review.json), each review a check-in of its reviewer at its business in -in, instead of one point per business")
	bbox := fs.String("bbox", "", "box `S,W,N,E` in degrees (default: the data's box)")
	cell := fs.Float64("cell", 0.5, "cell side in `km`")
	perUser := fs.String("per-user", "first", "data per person: first (first check-in by time), all, or K (at most K check-ins per person, the first K by time)")
	out := fs.String("o", "", "distribution CSV to write (cell,probability,…)")
	studyOut := fs.String("study-out", "", "study JSON `file` to write with the alphabet and every datum")
	home := fs.Bool("home", false, "write each user's home cell (most frequent check-in cell) as personal data of tag \"home\" for pum into the study")
	skipBad := fs.Bool("skip-bad", false, "skip malformed lines (counted and reported) instead of failing")
	blank := fs.String("blank-person", "", "in a file that names people, a record whose person id is blank: own (a person of its own) or skip (left out); default: refuse the file, naming the lines")
	personKey := fs.String("person-key", geo.PersonExact, "when two person ids are one person: exact (equal as written) or fold (equal but for case and Unicode normal form, \"Alice\" and \"alice\")")
	preset := fs.String("preset", "", "put a paper's population of mechanisms into the study: "+presetNames())
	record := fs.String("record", "", "also write the gridding's record, `J`.json: the command and its input's and outputs' SHA-256, which privmap report reads")
	cf := censusFlags(fs)
	mf := mappingFlags(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "in", "o"); err != nil {
		return err
	}
	if err := distinct(fs, []string{"o", "study-out", "record"}, "in"); err != nil {
		return err
	}
	if err := intoStudy(*studyOut, *preset != "", *home); err != nil {
		return err
	}
	if err := knownPreset(*preset); err != nil {
		return err
	}
	if census.IsFormat(*format) {
		if err := onlyFor(fs, "check-in files", append([]string{"bbox", "cell", "per-user", "home", "venues", "reviews"}, mappingFlagNames...)...); err != nil {
			return err
		}
		if err := onlyFor(fs, "check-in files", "blank-person", "person-key"); err != nil {
			return err
		}
		return runGridCensus(ctx, cf, *in, *format, *out, *studyOut, *preset, *skipBad, &recording{path: *record, command: "grid", args: args}, stdout, stderr)
	}
	if err := onlyFor(fs, "census files (-format adult|census1990)", "attrs", "bins", "merge", "missing", "ordinal"); err != nil {
		return err
	}
	f, err := geo.ParseFormat(*format)
	if err != nil {
		return usageError{msg: err.Error()}
	}
	opt, err := gridOptions(*bbox, *cell, *perUser, *home)
	if err != nil {
		return err
	}
	if err := personOptions(*blank, *personKey); err != nil {
		return err
	}
	opt.PersonKey = *personKey
	read := geo.Options{SkipBad: *skipBad, BlankPerson: *blank}
	if read.Mapping, err = mf.mapping(fs); err != nil {
		return err
	}
	src := geo.Input{Path: *in, Format: f, Venues: *venues, Reviews: *reviews}
	if err := checkInput(src, *record); err != nil {
		return err
	}
	return runGridCheckins(ctx, src, opt, *out, *studyOut, *preset, read, &recording{path: *record, command: "grid", args: args}, stdout, stderr)
}

// personOptions checks -blank-person and -person-key.
func personOptions(blank, key string) error {
	if blank != geo.BlankRefuse && blank != geo.BlankOwn && blank != geo.BlankSkip {
		return usageError{msg: fmt.Sprintf("-blank-person %q: want own (each a person of its own) or skip (left out)", blank)}
	}
	if key != geo.PersonExact && key != geo.PersonFold {
		return usageError{msg: fmt.Sprintf("-person-key %q: want exact or fold", key)}
	}
	return nil
}

// intoStudy refuses -preset and -home, which write into the study,
// without -study-out.
func intoStudy(studyOut string, preset, home bool) error {
	switch {
	case studyOut != "":
	case preset:
		return usageError{msg: "-preset writes into the study: give -study-out too"}
	case home:
		return usageError{msg: "-home writes into the study: give -study-out too"}
	}
	return nil
}

// checkInput refuses an input whose files do not fit its format, and a
// record of a GeoLife folder, which has no digest.
func checkInput(in geo.Input, record string) error {
	if err := in.Check(); err != nil {
		return usageError{msg: strings.TrimPrefix(err.Error(), geo.ErrInput.Error()+": ")}
	}
	if in.Format == geo.GeoLife && record != "" {
		if st, err := os.Stat(in.Path); err == nil && st.IsDir() {
			return usageError{msg: "-record hashes files: a GeoLife folder is not one"}
		}
	}
	return nil
}

// mappingFlagNames are the flags of gridMappingFlags.
var mappingFlagNames = []string{"cols", "delim", "header", "encoding", "time-format", "sheet"}

// gridMappingFlags are grid's flags of a delimited file's column mapping.
type gridMappingFlags struct {
	cols, delim, header, encoding, timeFormat, sheet *string
}

func mappingFlags(fs *flag.FlagSet) gridMappingFlags {
	return gridMappingFlags{
		cols:       fs.String("cols", "", "read a delimited file by these `columns`: user=1,lat=5,lon=6,time=8,loc=2 (1-based numbers or header names); kinds left out are found by their header names"),
		delim:      fs.String("delim", "auto", "delimiter of a delimited file: tab, comma, semicolon, pipe, auto (sniffed from the first line) or one character"),
		header:     fs.String("header", "auto", "whether a delimited file's first line is a header: yes, no or auto (no when -cols numbers lat and lon and the line holds coordinates there)"),
		encoding:   fs.String("encoding", "auto", "text encoding: utf-8, latin-1, or auto (lines that are not UTF-8 read as Latin-1)"),
		sheet:      fs.String("sheet", "", "the `sheet` of an Excel workbook (.xlsx) to read (default: the first)"),
		timeFormat: fs.String("time-format", "", "`layout` of the time column, in Go's form (2006-01-02 15:04:05), or unix, unixms (default: ISO 8601, RFC 1123, Twitter's, Unix seconds or milliseconds)"),
	}
}

// mapping returns the column mapping the flags ask for, nil when none
// of them was set.
func (m gridMappingFlags) mapping(fs *flag.FlagSet) (*geo.Mapping, error) {
	set := false
	fs.Visit(func(f *flag.Flag) {
		set = set || slices.Contains(mappingFlagNames, f.Name)
	})
	if !set {
		return nil, nil
	}
	var mp geo.Mapping
	var err error
	if *m.cols != "" {
		if mp.Columns, err = geo.ParseColumns(*m.cols); err != nil {
			return nil, usageError{msg: err.Error()}
		}
	}
	if mp.Delim, err = geo.ParseDelimiter(*m.delim); err != nil {
		return nil, usageError{msg: err.Error()}
	}
	if mp.Header, err = geo.ParseHeader(*m.header); err != nil {
		return nil, usageError{msg: err.Error()}
	}
	if mp.Latin1, err = geo.ParseEncoding(*m.encoding); err != nil {
		return nil, usageError{msg: err.Error()}
	}
	mp.TimeLayout, mp.Sheet = *m.timeFormat, *m.sheet
	return &mp, nil
}

// runGridCheckins grids a check-in file and writes the truth and study.
// The file is streamed (geo.GridScan), once or twice, so that its size
// does not bound what can be gridded.
func runGridCheckins(ctx context.Context, src geo.Input, opt geo.GridOptions, out, studyOut, preset string, read geo.Options, rec *recording, stdout, stderr io.Writer) error {
	in := src.Path
	scan, err := src.Scan(ctx, read)
	if err != nil {
		return err
	}
	gd, res, err := geo.GridScan(scan, opt)
	if err != nil {
		var pe *fs.PathError
		if errors.Is(err, context.Canceled) || errors.As(err, &pe) {
			return err // names the file already
		}
		if errors.Is(err, geo.ErrNoColumns) && looksLikeCensus(in) {
			return fmt.Errorf("%s: %w; it looks like a census table: use -format adult", in, err)
		}
		return fmt.Errorf("%s: %w", src.Streamed(), err) // a Yelp join's errors are its reviews'

	}
	rec.Add(out, func(w io.Writer) error { return gd.WriteTruth(w) }, in)
	if studyOut != "" {
		if err := addStudy(rec, studyOut, gd.Study(res.NoPerson), preset, in, griddedSource(src, res, gd, read, opt)); err != nil {
			return err
		}
	}
	var b output.Batch
	if err := rec.addTo(ctx, &b, nil, src.Files()); err != nil {
		return err
	}
	if err := commit(ctx, &b, stdout, stderr, func(w io.Writer) { printSummary(w, in, res, gd) }); err != nil {
		return err
	}
	personWarnings(stderr, in, res, gd, read, opt)
	return nil
}

// griddedSource records how src was read and gridded, for the study.
func griddedSource(src geo.Input, res *geo.Result, gd *geo.Gridded, read geo.Options, opt geo.GridOptions) *studyfile.Source {
	source := studyfile.GridSource(absPath(src.Path), res.Format, read.Mapping, gd)
	if src.Format == geo.Yelp {
		source.Format = src.Format.String() // yelp, though its reviews were read
	}
	source.Venues, source.Reviews = absPath(src.Venues), absPath(src.Reviews)
	source.BlankPerson = read.BlankPerson
	if opt.PersonKey == geo.PersonFold {
		source.PersonKey = opt.PersonKey
	}
	return source
}

// personWarnings says on stderr what grid read of the file's people: no
// person column, records naming none, ids alike but for case.
func personWarnings(stderr io.Writer, in string, res *geo.Result, gd *geo.Gridded, read geo.Options, opt geo.GridOptions) {
	if res.NoPerson {
		fmt.Fprintf(stderr, "privmap grid: %s: %s\n", in, noPersonText)
	}
	if n := res.BlankPerson; n > 0 {
		what := "each counted as a person of its own (-blank-person own)"
		if read.BlankPerson == geo.BlankSkip {
			what = "left out (-blank-person skip)"
		}
		fmt.Fprintf(stderr, "privmap grid: %s: %d records named no person: %s\n", in, n, what)
	}
	if n := gd.Alike; n > 0 {
		ex := gd.AlikeExample
		if opt.PersonKey == geo.PersonFold {
			fmt.Fprintf(stderr, "privmap grid: %s: %d person ids differ from another only in case or Unicode normal form (such as %q and %q): counted as one person each (-person-key fold)\n", in, n, ex[0], ex[1])
		} else {
			fmt.Fprintf(stderr, "privmap grid: %s: %d person ids differ from another only in case or Unicode normal form (such as %q and %q): counted as different people; -person-key fold counts them as one\n", in, n, ex[0], ex[1])
		}
	}
}

// onlyFor returns a usage error if any of the named flags was set: they
// apply only to the other kind of file.
func onlyFor(fs *flag.FlagSet, kind string, names ...string) error {
	var set []string
	fs.Visit(func(f *flag.Flag) {
		if slices.Contains(names, f.Name) {
			set = append(set, "-"+f.Name)
		}
	})
	if len(set) > 0 {
		return usageError{msg: fmt.Sprintf("%s: for %s only", strings.Join(set, ", "), kind)}
	}
	return nil
}

// presetNames lists the presets for a flag's help.
func presetNames() string {
	var b strings.Builder
	for i, p := range core.Presets() {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s (%s)", p.Name, p.Title)
	}
	return b.String()
}

// An adder takes a command's output files: an output.Batch, or a recording
// on its way to one.
type adder interface {
	Add(name string, fill func(io.Writer) error, sources ...string)
}

// addStudy adds to b the study file name: s, with the mechanisms of
// preset if one is named, and src, the data file and how it was binned,
// so that the window can open the study with its data (privmap gui
// study.json).
func addStudy(b adder, name string, s *core.Study, preset, source string, src *studyfile.Source) error {
	if preset != "" {
		ms, err := core.PresetMechanisms(preset, s.Alphabet)
		if err != nil {
			return usageError{msg: err.Error()}
		}
		s.Mechanisms = ms
	}
	as := &studyfile.Study{Study: s, Source: src}
	b.Add(name, func(w io.Writer) error { return studyfile.Write(w, as) }, source)
	return nil
}

// knownPreset refuses a -preset that names no preset, before any file
// is read.
func knownPreset(name string) error {
	if name == "" {
		return nil
	}
	var names []string
	for _, p := range core.Presets() {
		if p.Name == name {
			return nil
		}
		names = append(names, p.Name)
	}
	return usageError{msg: fmt.Sprintf("-preset %q: want one of %s", name, strings.Join(names, ", "))}
}

// absPath returns name made absolute, so that a study names its data
// file wherever it is opened from; name itself if that fails.
func absPath(name string) string {
	if name == "" {
		return ""
	}
	if a, err := filepath.Abs(name); err == nil {
		return a
	}
	return name
}

// gridOptions checks and gathers the gridding flags.
func gridOptions(bbox string, cell float64, perUser string, home bool) (geo.GridOptions, error) {
	rule, limit, err := geo.ParseContribution(perUser)
	if err != nil {
		return geo.GridOptions{}, usageError{msg: err.Error()}
	}
	if !(cell > 0) || math.IsInf(cell, 0) {
		return geo.GridOptions{}, usageError{msg: fmt.Sprintf("-cell must be a positive number of km, got %v", cell)}
	}
	opt := geo.GridOptions{CellKm: cell, PerUser: rule, MaxPerUser: limit, Home: home}
	if bbox != "" {
		if opt.Bound, err = geo.ParseBBox(bbox); err != nil {
			return geo.GridOptions{}, usageError{msg: err.Error()}
		}
	}
	return opt, nil
}

// printSummary says what grid read and gridded: the file's layout and
// lines, the grid, the data and the people, from what res and gd say of
// themselves.
func printSummary(w io.Writer, name string, res *geo.Result, gd *geo.Gridded) {
	g := gd.Grid
	fmt.Fprintf(w, "%s: %s format", name, res.Format)
	if res.Delimiter != 0 {
		fmt.Fprintf(w, " (%s)", delimiterWords(res.Delimiter))
	}
	if res.Sheet != "" {
		fmt.Fprintf(w, " (sheet %q)", res.Sheet)
	}
	if res.Latin1 {
		fmt.Fprint(w, " read as Latin-1 (not UTF-8)")
	}
	fmt.Fprintf(w, ", %d %s, %d records, %d users", res.Lines, res.LineUnit(), gd.Records, gd.Users)
	if res.Skipped > 0 {
		fmt.Fprintf(w, ", %d bad lines skipped", res.Skipped)
	}
	fmt.Fprintln(w)
	printSkipped(w, res.Skipped, res.Errors)
	fmt.Fprintf(w, "grid: %d×%d = %d cells of %.4f×%.4f km over %s\n",
		g.Cols, g.Rows, g.Len(), g.CellWidthKm(), g.CellHeightKm(), boxString(g.Bound))
	fmt.Fprintf(w, "data: %d (%s per user), %d in the grid, %d outside the box, %d non-empty cells\n",
		gd.Data, gd.RuleWords(), gd.N(), gd.Outside, gd.NonEmpty())
	if res.NoPerson {
		fmt.Fprintf(w, "people: unknown (no person column: each of the %d records is counted alone)\n", gd.Records)
	} else {
		fmt.Fprintf(w, "people: %d, the most data of one person in the grid %d%s\n", gd.Users, gd.MaxPerPerson, gd.BoundText())
	}
	if gd.Homes != nil {
		fmt.Fprintf(w, "homes: %d of the %d data lie in their user's home cell (most frequent check-in cell)\n", gd.AtHome(), gd.N())
	}
}

// printSkipped lists the reasons kept for skipped lines, and how many
// more were skipped.
func printSkipped(w io.Writer, skipped int, errs []*geo.ParseError) {
	for _, e := range errs {
		fmt.Fprintf(w, "  skipped %v\n", e)
	}
	if skipped > len(errs) {
		fmt.Fprintf(w, "  … and %d more\n", skipped-len(errs))
	}
}

func boxString(b orb.Bound) string {
	return fmt.Sprintf("%.4f,%.4f,%.4f,%.4f (S,W,N,E)", b.Min[1], b.Min[0], b.Max[1], b.Max[0])
}

// noPersonText is geo.NoPersonNote with what to do about it.
const noPersonText = geo.NoPersonNote + " (name one user, user_id or User ID in the header to count people)"

// delimiterWords names a delimited file's separator: "comma-separated".
func delimiterWords(r rune) string {
	return strings.TrimSuffix(geo.DelimiterName(r), "s") + "-separated"
}

// looksLikeCensus reports whether the file's first line is a census
// table's (census.Detect), for the hint of a check-in read that found
// no coordinates.
func looksLikeCensus(path string) bool {
	fh, err := os.Open(path)
	if err != nil {
		return false
	}
	defer fh.Close()
	_, ok := census.DetectReader(bufio.NewReader(fh))
	return ok
}

// formatNames lists every input layout for -format's help, the
// check-in layouts' (geo.FormatHelp) then the census tables'.
func formatNames() string {
	names := geo.FormatHelp()
	for _, l := range census.Layouts() {
		names = append(names, l.Name)
	}
	return geo.OrList(names)
}
