package core

import (
	"errors"
	"fmt"
	"math"
)

// AlphabetKind names the kind of an alphabet in a study file.
type AlphabetKind string

// Alphabet kinds.
const (
	KindGrid        AlphabetKind = "grid"
	KindLinear      AlphabetKind = "linear"
	KindCategorical AlphabetKind = "categorical"
)

// An Alphabet is the input alphabet X of a study as stored in its JSON
// file. A grid alphabet carries the geometry that metric mechanisms and
// the earth mover's distance need; its corner fields are passed through
// for the map and never used by the mathematics.
type Alphabet struct {
	Kind AlphabetKind `json:"kind"`
	// Size is the number of symbols of a linear or categorical alphabet.
	Size int `json:"size,omitempty"`
	// Labels optionally name the symbols of a categorical or linear alphabet
	// (labels on a linear one extend the study format of docs/ARCHITECTURE.md
	// §7 compatibly).
	Labels []string `json:"labels,omitempty"`
	// Attributes optionally gives a categorical or linear alphabet the
	// structure of a cross product of attributes, such as census age × sex ×
	// income × marital status: symbol x is the mixed-radix number whose
	// digits are the attributes' categories, the first attribute most
	// significant. It extends the study format of docs/FILES.md
	// compatibly and lets a reader show marginals over chosen attributes.
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

// MaxSymbols bounds the size K of an alphabet: 2²⁴ (16.8 million)
// symbols, whose distribution alone takes 128 MB and every estimator
// several vectors of that size.
const MaxSymbols = 1 << 24

// gridCells returns cols×rows, or an error when a side is below 1 or the
// product passes MaxSymbols; it is checked before multiplying, so that
// it cannot wrap.
func gridCells(cols, rows int) (int, error) {
	if cols < 1 || rows < 1 {
		return 0, fmt.Errorf("core: grid alphabet needs cols and rows ≥ 1, got %d×%d", cols, rows)
	}
	if cols > MaxSymbols/rows {
		return 0, fmt.Errorf("core: a %d×%d grid has %.3g cells, more than the %d privmap handles (%s for one distribution alone)",
			cols, rows, float64(cols)*float64(rows), MaxSymbols, bytesText(8*float64(cols)*float64(rows)))
	}
	return cols * rows, nil
}

// bytesText writes a number of bytes for a message: 1.3 GB, 45 TB.
func bytesText(b float64) string {
	units := []string{"bytes", "kB", "MB", "GB", "TB", "PB", "EB"}
	i := 0
	for b >= 1000 && i < len(units)-1 {
		b /= 1000
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f bytes", b)
	}
	return fmt.Sprintf("%.3g %s", b, units[i])
}

// Validate reports the first problem with a.
func (a Alphabet) Validate() error {
	switch a.Kind {
	case KindGrid:
		if _, err := gridCells(a.Cols, a.Rows); err != nil {
			return err
		}
		if !(a.CellKm > 0) || math.IsInf(a.CellKm, 0) {
			return fmt.Errorf("core: grid alphabet needs a positive cell_km, got %v", a.CellKm)
		}
	case KindLinear, KindCategorical:
		if a.Size < 1 {
			return fmt.Errorf("core: %s alphabet needs size ≥ 1, got %d", a.Kind, a.Size)
		}
		if a.Size > MaxSymbols {
			return fmt.Errorf("core: a %s alphabet of %d symbols is more than the %d privmap handles (%s for one distribution alone)",
				a.Kind, a.Size, MaxSymbols, bytesText(8*float64(a.Size)))
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

// Distance returns the ground distance between symbols x and y and its
// unit: steps on a linear alphabet, km between cell centres on a grid,
// from the cells' true sides (CellSides), not the nominal CellKm.
// Categorical alphabets have none (ok false).
func (a Alphabet) Distance(x, y int) (d float64, unit string, ok bool) {
	switch a.Kind {
	case KindLinear:
		return math.Abs(float64(x - y)), "step", true
	case KindGrid:
		w, h := a.CellSides()
		dr, dc := float64(x/a.Cols-y/a.Cols), float64(x%a.Cols-y%a.Cols)
		return math.Hypot(dr*h, dc*w), "km", true
	}
	return 0, "", false
}

// CellSides returns a grid's cells' true width and height in km: those
// recorded when the cells tile the box exactly (CellWidthKm,
// CellHeightKm), else the nominal side CellKm.
func (a Alphabet) CellSides() (width, height float64) {
	if a.CellWidthKm > 0 && a.CellHeightKm > 0 {
		return a.CellWidthKm, a.CellHeightKm
	}
	return a.CellKm, a.CellKm
}
