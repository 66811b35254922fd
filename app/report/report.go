// Package report writes a privacy officer's release report: one PDF
// (A4 or Letter) that says what was decided and on what evidence — the
// context, the data with its digest, the population of mechanisms with
// the guarantee each gives a report and a person, the estimates with
// their certified gaps, errors and maps, a central release with its
// accuracy, and a manifest of every file with its SHA-256 and the
// commands that remake them — and report.json beside it, the same facts
// for machines (schema in docs/REPORT.md).
//
// The package renders facts; the command line (privmap report) and the
// window gather them.
package report

import (
	"encoding/json"
	"io"
	"slices"

	"github.com/privmap/privmap/app/output"
	"github.com/privmap/privmap/app/release"
)

// Schema names the version of the report's JSON layout.
const Schema = "privmap-report/1"

// The report's sections, in their order.
const (
	SectionContext    = "context"
	SectionData       = "data"
	SectionPopulation = "population"
	SectionAttack     = "attack"
	SectionEstimates  = "estimates"
	SectionRelease    = "release"
	SectionManifest   = "manifest"
)

// Sections lists every section.
var Sections = []string{SectionContext, SectionData, SectionPopulation, SectionAttack, SectionEstimates, SectionRelease, SectionManifest}

// A Report is every fact a report states.
type Report struct {
	Schema   string   `json:"schema"`
	Title    string   `json:"title"`
	Created  string   `json:"created"` // RFC 3339, UTC
	Operator string   `json:"operator,omitempty"`
	Notes    string   `json:"notes,omitempty"`
	Privmap  Build    `json:"privmap"`
	Paper    string   `json:"paper"` // a4 or letter
	Sections []string `json:"sections"`

	Data       *Data       `json:"data,omitempty"`
	Population []Mechanism `json:"population,omitempty"`
	Attack     *Attack     `json:"attack,omitempty"`
	Estimates  []Estimate  `json:"estimates,omitempty"`
	Release    *Release    `json:"release,omitempty"`
	Manifest   *Manifest   `json:"manifest,omitempty"`
	RawData    string      `json:"raw_data_note"`
	// Publishable says what of the report may be published.
	Publishable string       `json:"publishable,omitempty"`
	Figures     []*FigureRef `json:"figures,omitempty"`
}

// Build names the privmap that wrote the report.
type Build struct {
	Version string `json:"version"`
	Commit  string `json:"commit,omitempty"`
	Go      string `json:"go"`
}

// Data describes the data set: its file (when known), what was read of
// it, the alphabet and whom it holds.
type Data struct {
	File     *output.FileDigest `json:"file,omitempty"`
	Format   string             `json:"format,omitempty"`
	Read     *Read              `json:"read,omitempty"`
	Alphabet string             `json:"alphabet"`
	Cells    int                `json:"cells"`
	// Data are the data the study holds (after the per-person rule),
	// People the people they come from, MostPerPerson the most one of
	// them contributes and Bound the contribution bound (0: none).
	Data          int    `json:"data"`
	People        int    `json:"people"`
	MostPerPerson int    `json:"most_per_person"`
	Bound         int    `json:"bound"`
	PerPerson     string `json:"per_person"` // the rule in words
	// Unit is whom the data's guarantees protect: "person", or "record"
	// when the data do not say who contributed which (People is then 0).
	Unit string `json:"unit,omitempty"`
}

// Read is what a reading of a check-in file finds: its lines (blank
// lines and header included), the records read and the malformed lines
// skipped.
type Read struct {
	Lines   int `json:"lines"`
	Records int `json:"records"`
	Skipped int `json:"skipped"`
}

// Mechanism is one mechanism of the population and its audited
// guarantee, per report and per person.
type Mechanism struct {
	ID    string  `json:"id"`
	Kind  string  `json:"kind"`
	Level string  `json:"level"` // ε with its units, as people read it
	Eps   float64 `json:"epsilon"`
	Share float64 `json:"share"`
	// Sensitive counts the cells a utility-optimised mechanism protects
	// (0: every cell).
	Sensitive int `json:"sensitive_cells"`
	// LDP is the audited ε-LDP of one report (null: unbounded);
	// GeoInd the audited ε of geo-indistinguishability per unit of
	// distance, when the mechanism has one.
	LDP       *float64 `json:"audited_ldp"`
	GeoInd    *float64 `json:"audited_geo_ind,omitempty"`
	GeoUnit   string   `json:"geo_unit,omitempty"`
	PerReport string   `json:"per_report"`
	PerPerson string   `json:"per_person"`
}

// Estimate is one estimate and what its record says of it.
type Estimate struct {
	File      output.FileDigest `json:"file"`
	Method    string            `json:"method"`
	Title     string            `json:"title"`
	Command   []string          `json:"command,omitempty"` // from its record
	Seed      *uint64           `json:"seed,omitempty"`
	LogLik    *float64          `json:"loglik,omitempty"`
	Gap       *float64          `json:"gap,omitempty"`
	GapTol    *float64          `json:"gap_tol,omitempty"`
	Converged *bool             `json:"converged,omitempty"`
	Certified string            `json:"certified"` // the convergence in words
	// Reports says where the reports came from: "simulated" (privmap
	// simulated them from the raw data: the estimate is a preview of a
	// collection, not for publication), "collected" (no record of
	// privmap simulating them) or "unknown" (no record of the estimate);
	// Kind says it in words.
	Reports   string     `json:"reports,omitempty"`
	Kind      string     `json:"kind,omitempty"`
	Errors    *Errors    `json:"errors,omitempty"`
	Intervals *Intervals `json:"intervals,omitempty"`
}

// Errors are an estimate's errors against the truth.
type Errors struct {
	TV      float64  `json:"tv"`
	EMD     *float64 `json:"emd"`
	EMDUnit string   `json:"emd_unit,omitempty"`
	JSD     float64  `json:"jsd"`
	SqErr   float64  `json:"squared_error"`
	Reading string   `json:"reading"`
}

// Intervals summarise an estimate's intervals.
type Intervals struct {
	Level      float64  `json:"level"`
	Method     string   `json:"method,omitempty"`
	Replicates int      `json:"replicates,omitempty"`
	TV         *float64 `json:"tv_bound,omitempty"`
	MaxError   *float64 `json:"max_error_bound,omitempty"`
	MeanHalf   float64  `json:"mean_half_width"`
	MaxHalf    float64  `json:"max_half_width"`
	Sentence   string   `json:"sentence"`
}

// Release is a central release of the counts.
type Release struct {
	File        output.FileDigest `json:"file"`
	Command     []string          `json:"command,omitempty"`
	Mechanism   string            `json:"mechanism"`
	Level       string            `json:"level"` // ε within / beyond, in words
	WorstEps    float64           `json:"worst_eps"`
	Sensitivity int               `json:"sensitivity"`
	Publication bool              `json:"publication"`
	Neighbours  string            `json:"neighbours,omitempty"`
	Accuracy    string            `json:"accuracy,omitempty"`
	MAE         *float64          `json:"mae,omitempty"`
	LedgerSpent *float64          `json:"ledger_spent,omitempty"`
	LedgerLimit *float64          `json:"ledger_budget,omitempty"`
	// Ledger names the data set's account: the ledger, this
	// publication's entry and the chain's head, which pins the ledger.
	Ledger *release.LedgerRef `json:"ledger,omitempty"`
	Cells  int                `json:"cells"`
}

// Manifest lists every file the report rests on and writes, and the
// commands that remake them.
type Manifest struct {
	// Note says how the files were made when no command made them (the
	// window's reports).
	Note     string              `json:"note,omitempty"`
	Inputs   []output.FileDigest `json:"inputs"`
	Outputs  []output.FileDigest `json:"outputs"`
	Commands []string            `json:"commands"`
	// Draws are the publications among the files: drawn from a
	// cryptographic source and recorded in the ledger, they are never
	// remade by a command (another draw is another publication).
	Draws []string `json:"draws,omitempty"`
}

// SelfDigest stands for the digest of the report's own files in its
// manifest: a file cannot hold its own.
const SelfDigest = "(this report)"

// FigureRef names a figure of the report: its caption and the page
// section it is in (the picture is in the PDF only).
type FigureRef struct {
	Section string `json:"section"`
	Caption string `json:"caption"`
}

// Has reports whether the report shows section s.
func (r *Report) Has(s string) bool { return slices.Contains(r.Sections, s) }

// WriteJSON writes r as indented JSON.
func WriteJSON(w io.Writer, r *Report) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
