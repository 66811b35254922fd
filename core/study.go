package core

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
)

// Alphabet kinds of a study file (DESIGN §7).
const (
	KindGrid        = "grid"
	KindLinear      = "linear"
	KindCategorical = "categorical"
)

// An Alphabet is the input alphabet X of a study as stored in its JSON
// file. A grid alphabet carries the geometry that metric mechanisms and
// the earth mover's distance need; its corner fields are passed through
// for the map and never used by the mathematics.
type Alphabet struct {
	Kind string `json:"kind"`
	// Size is the number of symbols of a linear or categorical alphabet.
	Size int `json:"size,omitempty"`
	// Labels optionally name the symbols of a categorical or linear
	// alphabet (labels on a linear one extend DESIGN §7 compatibly).
	Labels []string `json:"labels,omitempty"`
	// Attributes optionally gives a categorical or linear alphabet the
	// structure of a cross product of attributes, such as census age ×
	// sex × income × marital status: symbol x is the mixed-radix number
	// whose digits are the attributes' categories, the first attribute
	// most significant. It extends DESIGN §7 compatibly and lets a reader
	// show marginals over chosen attributes.
	Attributes []Attribute `json:"attributes,omitempty"`

	// Cols, Rows and CellKm describe a grid of square cells of side CellKm
	// kilometres, symbol row*Cols + col, row 0 south.
	Cols   int     `json:"cols,omitempty"`
	Rows   int     `json:"rows,omitempty"`
	CellKm float64 `json:"cell_km,omitempty"`
	// South and West are the grid's south-west corner in degrees; North and
	// East, when present, its north-east corner, so that a reader can
	// recover the exact cell boxes.
	South float64 `json:"south,omitempty"`
	West  float64 `json:"west,omitempty"`
	North float64 `json:"north,omitempty"`
	East  float64 `json:"east,omitempty"`
	// CellWidthKm and CellHeightKm are the true sides of the cells when
	// they differ from CellKm because the cells tile the box exactly.
	CellWidthKm  float64 `json:"cell_width_km,omitempty"`
	CellHeightKm float64 `json:"cell_height_km,omitempty"`
}

// Len returns the number of symbols K.
func (a Alphabet) Len() int {
	if a.Kind == KindGrid {
		return a.Cols * a.Rows
	}
	return a.Size
}

// Validate reports the first problem with a.
func (a Alphabet) Validate() error {
	switch a.Kind {
	case KindGrid:
		if a.Cols < 1 || a.Rows < 1 {
			return fmt.Errorf("core: grid alphabet needs cols and rows ≥ 1, got %d×%d", a.Cols, a.Rows)
		}
		if !(a.CellKm > 0) || math.IsInf(a.CellKm, 0) {
			return fmt.Errorf("core: grid alphabet needs a positive cell_km, got %v", a.CellKm)
		}
	case KindLinear, KindCategorical:
		if a.Size < 1 {
			return fmt.Errorf("core: %s alphabet needs size ≥ 1, got %d", a.Kind, a.Size)
		}
		if a.Labels != nil && len(a.Labels) != a.Size {
			return fmt.Errorf("core: %d labels for an alphabet of size %d", len(a.Labels), a.Size)
		}
		return a.validateAttributes()
	case "":
		return errors.New("core: alphabet has no kind")
	default:
		return fmt.Errorf("core: unknown alphabet kind %q (want grid, linear or categorical)", a.Kind)
	}
	return nil
}

// A MechanismSpec is one mechanism users of a study may pick, as stored in
// the study file. Fields that a kind does not use are omitted.
type MechanismSpec struct {
	ID   string `json:"id"`
	Kind string `json:"kind"`
	// Epsilon is ε: per km for planar-geometric, per step for geometric.
	Epsilon float64 `json:"epsilon,omitempty"`
	// Share is the fraction of users assigned to the mechanism in
	// simulation; when no mechanism gives one, shares are equal.
	Share *float64 `json:"share,omitempty"`
	// QualityLoss is Shokri's bound Q on the expected distance.
	QualityLoss float64 `json:"quality_loss,omitempty"`
	// Sensitive lists the sensitive symbols X_S of uRR, uRAP and PUM
	// (for PUM, the common ones; it may be empty).
	Sensitive []int `json:"sensitive,omitempty"`
	// Base is PUM's common mechanism on the extended alphabet, urr (the
	// default) or urappor; Tags names its semantic tags ⊥_1..⊥_κ, which
	// are symbols K, K+1, … of the extended alphabet. Both extend
	// DESIGN §7 compatibly.
	Base string   `json:"base,omitempty"`
	Tags []string `json:"tags,omitempty"`
}

// A Study is the alphabet and the mechanisms of a study file (DESIGN §7).
type Study struct {
	Alphabet   Alphabet        `json:"alphabet"`
	Mechanisms []MechanismSpec `json:"mechanisms"`
	// Data optionally lists the true symbol of every datum (one per user
	// under privmap grid's -per-user first), so that a simulation can
	// sanitise the real data rather than draws from their distribution.
	// It extends DESIGN §7 compatibly: readers may ignore it.
	Data []int `json:"data,omitempty"`
	// Personal optionally gives, for each semantic tag, the personal
	// sensitive cell of every datum's user (−1 for none), parallel to Data:
	// what PUM's users map to the tag (ULDP §5). privmap grid -home writes
	// tag "home", each user's most frequent cell. It extends DESIGN §7
	// compatibly.
	Personal map[string][]int `json:"personal,omitempty"`

	// Source and Run optionally record where the study's data came from
	// and how they were binned, and how the window simulated and
	// estimated, so that privmap's window can reopen the whole study.
	// They extend DESIGN §7 compatibly: the command line ignores them.
	Source *Source      `json:"source,omitempty"`
	Run    *RunSettings `json:"run,omitempty"`
}

// Source records the data file of a study and how it was binned.
type Source struct {
	// Path is the file; empty for privmap's embedded default data.
	Path string `json:"path,omitempty"`
	// Format is the file's format as privmap grid's -format names it.
	Format string `json:"format,omitempty"`
	// Check-in files: the box as south, west, north, east, the cell side
	// and the per-user rule (first or all).
	BBox    []float64 `json:"bbox,omitempty"`
	CellKm  float64   `json:"cell_km,omitempty"`
	PerUser string    `json:"per_user,omitempty"`
	// Census files: the attributes as privmap grid's -attrs lists them
	// and the missing-value policy (drop or category).
	Attrs   string `json:"attrs,omitempty"`
	Missing string `json:"missing,omitempty"`
}

// RunSettings are the simulation and estimators of a study's run.
type RunSettings struct {
	// Methods are the estimators, as privmap estimate's -method names
	// them.
	Methods []string `json:"methods,omitempty"`
	// Users is the number of users drawn from the truth; 0 sanitises
	// every datum of the data.
	Users int    `json:"users,omitempty"`
	Seed  uint64 `json:"seed,omitempty"`
	// Tol, MaxIter, Post and Alpha are estimate's -tol, -max-iter, -post
	// and -alpha (0 or empty for their defaults).
	Tol     float64 `json:"tol,omitempty"`
	MaxIter int     `json:"max_iter,omitempty"`
	Post    string  `json:"post,omitempty"`
	Alpha   float64 `json:"alpha,omitempty"`
	// PrintedHessian and Significance are estimate's -printed-hessian
	// and -significance.
	PrintedHessian bool    `json:"printed_hessian,omitempty"`
	Significance   float64 `json:"significance,omitempty"`
}

// WriteStudy writes s as indented JSON, with Data, if any, on one line
// rather than one number a line.
func WriteStudy(w io.Writer, s *Study) error {
	c := *s
	if c.Mechanisms == nil {
		c.Mechanisms = []MechanismSpec{}
	}
	c.Data, c.Personal = nil, nil
	// An Encoder, unlike MarshalIndent, can leave < > & in labels as
	// they are rather than \u003c escapes.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(&c); err != nil {
		return err
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n}\n"))
	if len(s.Data) > 0 {
		b = append(b, ",\n  \"data\": "...)
		b = appendInts(b, s.Data)
	}
	if len(s.Personal) > 0 {
		b = append(b, ",\n  \"personal\": {"...)
		for i, tag := range slices.Sorted(maps.Keys(s.Personal)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, "\n    "...)
			name, err := json.Marshal(tag)
			if err != nil {
				return err
			}
			b = append(b, name...)
			b = append(b, ": "...)
			b = appendInts(b, s.Personal[tag])
		}
		b = append(b, "\n  }"...)
	}
	b = append(b, "\n}\n"...)
	_, err := w.Write(b)
	return err
}

// appendInts appends v as a JSON array on one line.
func appendInts(b []byte, v []int) []byte {
	b = append(b, '[')
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(x), 10)
	}
	return append(b, ']')
}

// Distance returns the ground distance between symbols x and y and its
// unit: steps on a linear alphabet, km between cell centres on a grid
// (cells of side CellKm). Categorical alphabets have none (ok false).
func (a Alphabet) Distance(x, y int) (d float64, unit string, ok bool) {
	switch a.Kind {
	case KindLinear:
		return math.Abs(float64(x - y)), "step", true
	case KindGrid:
		dr, dc := float64(x/a.Cols-y/a.Cols), float64(x%a.Cols-y%a.Cols)
		return a.CellKm * math.Hypot(dr, dc), "km", true
	}
	return 0, "", false
}
