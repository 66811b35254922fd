package studyfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/privmap/privmap/app/build"
	"github.com/privmap/privmap/app/plan"
	"github.com/privmap/privmap/core"
	"github.com/privmap/privmap/geo"
	"github.com/privmap/privmap/geo/census"
)

// The members that the application adds to a study file, beside core's
// alphabet, mechanisms, data and personal cells. They extend the study
// format of docs/ARCHITECTURE.md compatibly: the command line reads and
// ignores them.
const (
	memberSource = "source"
	memberRun    = "run"
	memberLedger = "ledger"
	// memberPrivmap records the privmap that wrote the study.
	memberPrivmap = "privmap"
)

// ApplicationMembers are the top-level members that privmap's
// application layer adds to a study (docs/FILES.md): the data
// file it was made from and the window's run settings. A reader of study
// files outside this package passes them to core.ReadStudy.
var ApplicationMembers = []string{memberSource, memberRun, memberLedger, memberPrivmap}

// A Study is a study file as the application reads and writes it: core's
// study, plus where its data came from and how the window ran it.
type Study struct {
	*core.Study
	Source *Source      // nil when the file records no source
	Run    *RunSettings // nil when the file records no run
	Ledger *Ledger      // nil when nothing was published nor a budget set
	// Writer is the privmap that wrote the file, nil when it does not
	// say (files of privmap before 0.1.0's packages, or hand-written).
	// Write records the running privmap, whatever Writer holds.
	Writer *Writer
}

// A Writer names the privmap that wrote a file: its version and the
// commit it was built from ("" when not built from a checkout).
type Writer struct {
	Version string `json:"version"`
	Commit  string `json:"commit,omitempty"`
}

// ThisWriter returns the running privmap as a Writer.
func ThisWriter() *Writer { return &Writer{Version: build.Version, Commit: build.Commit()} }

// Source records the data file of a study and how it was binned, so that
// the window can reopen the whole study.
type Source struct {
	// Path is the file; empty for privmap's embedded default data.
	Path string `json:"path,omitempty"`
	// Format is the file's format as privmap grid's -format names it.
	Format string `json:"format,omitempty"`
	// Check-in files: the box as south, west, north, east, the cell side
	// and the per-user rule (first, all, or K: at most K check-ins per
	// person).
	BBox    []float64 `json:"bbox,omitempty"`
	CellKm  float64   `json:"cell_km,omitempty"`
	PerUser string    `json:"per_user,omitempty"`
	// Delimited files read by a column mapping: grid's -cols, -delim,
	// -header, -encoding and -time-format values (geo.Mapping.Text);
	// empty when the guesses were taken.
	Columns    string `json:"columns,omitempty"`
	Delim      string `json:"delim,omitempty"`
	Header     string `json:"header,omitempty"`
	Encoding   string `json:"encoding,omitempty"`
	TimeFormat string `json:"time_format,omitempty"`
	// Sheet is the sheet of an Excel workbook read (grid's -sheet).
	Sheet string `json:"sheet,omitempty"`
	// The places file a check-in format is joined with:
	// foursquare-global's venues, or the Yelp reviews read instead of
	// the businesses at Path.
	Venues  string `json:"venues,omitempty"`
	Reviews string `json:"reviews,omitempty"`
	// People: how a record naming no person was read in a file that
	// names people (grid's -blank-person own|skip) and when two ids are
	// one person (-person-key fold); empty for the defaults.
	BlankPerson string `json:"blank_person,omitempty"`
	PersonKey   string `json:"person_key,omitempty"`
	// Census files: the attributes as privmap grid's -attrs lists them
	// and the missing-value policy (drop or category).
	Attrs   string `json:"attrs,omitempty"`
	Missing string `json:"missing,omitempty"`
}

// GridSource records check-in data read from path in format f by the
// column mapping m (nil: none) and gridded as gd: its box, cell side and
// per-user rule.
func GridSource(path string, f geo.Format, m *geo.Mapping, gd *geo.Gridded) *Source {
	b := gd.Grid.Bound
	s := &Source{Path: path, Format: f.String(), CellKm: gd.Grid.CellKm, PerUser: gd.RuleText(),
		BBox: []float64{b.Min[1], b.Min[0], b.Max[1], b.Max[0]}}
	s.SetMapping(m)
	return s
}

// SetMapping records the column mapping m (nil: none) in grid's flag
// values; Mapping gives it back.
func (s *Source) SetMapping(m *geo.Mapping) {
	if m != nil {
		s.Columns, s.Delim, s.Header, s.Encoding, s.TimeFormat = m.Text()
		s.Sheet = m.Sheet
	}
}

// Mapping returns the column mapping the source records, nil when it
// records none.
func (s *Source) Mapping() (*geo.Mapping, error) {
	if s.Columns == "" && s.Delim == "" && s.Header == "" && s.Encoding == "" && s.TimeFormat == "" && s.Sheet == "" {
		return nil, nil
	}
	m := &geo.Mapping{TimeLayout: s.TimeFormat, Sheet: s.Sheet}
	var err error
	if s.Columns != "" {
		if m.Columns, err = geo.ParseColumns(s.Columns); err != nil {
			return nil, err
		}
	}
	if m.Delim, err = geo.ParseDelimiter(s.Delim); err != nil {
		return nil, err
	}
	if m.Header, err = geo.ParseHeader(s.Header); err != nil {
		return nil, err
	}
	if m.Latin1, err = geo.ParseEncoding(s.Encoding); err != nil {
		return nil, err
	}
	return m, nil
}

// CensusSource records a census file read from path in format f and
// tabulated on attrs (as privmap grid's -attrs lists them) with the
// missing-value policy m.
func CensusSource(path string, f census.Format, attrs string, m census.Missing) *Source {
	return &Source{Path: path, Format: f.String(), Attrs: attrs, Missing: m.String()}
}

// RunSettings are the simulation and estimators of a study's run.
type RunSettings struct {
	// Methods are the estimators, as privmap estimate's -method names
	// them.
	Methods []core.Method `json:"methods,omitempty"`
	// Users is the number of users drawn from the truth; 0 sanitises
	// every datum of the data.
	Users int    `json:"users,omitempty"`
	Seed  uint64 `json:"seed,omitempty"`
	// Tol, MaxIter, Post and Alpha are estimate's -tol, -max-iter, -post
	// and -alpha (0 or empty for their defaults).
	Tol     float64   `json:"tol,omitempty"`
	MaxIter int       `json:"max_iter,omitempty"`
	Post    core.Post `json:"post,omitempty"`
	Alpha   float64   `json:"alpha,omitempty"`
	// PrintedHessian and Significance are estimate's -printed-hessian
	// and -significance.
	PrintedHessian bool    `json:"printed_hessian,omitempty"`
	Significance   float64 `json:"significance,omitempty"`
	// Intervals: each estimate's intervals follow the run (the window's
	// Run › Intervals); nil for the window's default, on.
	Intervals *bool `json:"intervals,omitempty"`
	// Plan is the question of the window's Plan, nil for none asked.
	Plan *PlanSettings `json:"plan,omitempty"`
}

// PlanSettings are a plan's question as a study keeps it: privmap
// plan's -error, -target, -vary and -runs.
type PlanSettings struct {
	Error  plan.Metric `json:"error"`
	Target float64     `json:"target"`
	Vary   plan.Axis   `json:"vary"`
	Runs   int         `json:"runs,omitempty"`
}

// Read reads and validates a study file with the application's
// members. Like core.ReadStudy it refuses unknown members, in the
// application's members too.
func Read(r io.Reader) (*Study, error) {
	cs, err := core.ReadStudy(r, ApplicationMembers...)
	if err != nil {
		return nil, err
	}
	s := &Study{Study: cs}
	ext := cs.Extensions
	if err := member(ext, memberSource, &s.Source); err != nil {
		return nil, err
	}
	if err := member(ext, memberRun, &s.Run); err != nil {
		return nil, err
	}
	if err := member(ext, memberLedger, &s.Ledger); err != nil {
		return nil, err
	}
	if s.Ledger != nil {
		if err := s.Ledger.Validate(); err != nil {
			return nil, fmt.Errorf("study: %w", err)
		}
	}
	if err := member(ext, memberPrivmap, &s.Writer); err != nil {
		return nil, err
	}
	return s, nil
}

// member decodes the application member name of ext strictly into a
// new *dst, leaving *dst nil when the study has no such member.
func member[T any](ext map[string]json.RawMessage, name string, dst **T) error {
	raw, ok := ext[name]
	if !ok {
		return nil
	}
	v := new(T)
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("study: %q: %w", name, err)
	}
	*dst = v
	return nil
}

// Open reads the study file name, naming it in errors.
func Open(name string) (*Study, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return s, nil
}

// Write writes s as core.WriteStudy does, with its source, run and
// ledger, and the privmap writing it (ThisWriter).
func Write(w io.Writer, s *Study) error {
	c := *s.Study
	c.Extensions = make(map[string]json.RawMessage, 4)
	for name, v := range map[string]any{memberSource: s.Source, memberRun: s.Run, memberLedger: s.Ledger, memberPrivmap: ThisWriter()} {
		raw, err := json.Marshal(v)
		if err != nil {
			return err
		}
		if string(raw) != "null" {
			c.Extensions[name] = raw
		}
	}
	return core.WriteStudy(w, &c)
}
