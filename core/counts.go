package core

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// A CountTable is a distribution file read for its counts, as privmap
// grid writes it (cell,probability,count,…): the count of every cell and
// the descriptive columns beside them (row, col, lat, lon, label, a
// census attribute's), kept to be written again with a release.
type CountTable struct {
	Counts []float64 // whole numbers ≥ 0, one per cell 0..K−1
	// Extra names the descriptive columns; Values[x] holds cell x's, for
	// the cells the file lists.
	Extra  []string
	Values map[int][]string
	// Notes, written by release.Write (package app/release) as "# " lines before the header,
	// say what was done to the counts before the noise (records dropped
	// to bound each person's); privmap's readers skip them.
	Notes []string
	// Bounds, when set, gives the interval of cell x's true count, alone
	// (lo, hi) and for every cell at once (bandLo, bandHi), from its raw
	// released count: release.Write adds the columns lo,hi,band_lo,band_hi
	// after the others, which readers that do not know them ignore.
	Bounds func(x int, raw float64) (lo, hi, bandLo, bandHi float64)
}

// maxCount bounds a count: whole numbers are exact in float64 up to 2⁵³.
const maxCount = 1 << 53

// ReadCountTable reads a distribution file with a count column over k
// cells (docs/FILES.md); cells not listed count 0. With k ≤ 0
// the cells run to the largest listed (at most MaxSymbols). Counts must
// be whole numbers from 0 to 2⁵³. Errors name the line.
func ReadCountTable(r io.Reader, k int) (*CountTable, error) {
	cr := &countReader{limit: k}
	if k <= 0 {
		cr.limit, k = MaxSymbols, 0
	} else if err := checkSize(k); err != nil {
		return nil, err
	}
	cr.t = &CountTable{Counts: make([]float64, k), Values: map[int][]string{}}
	cr.seen = make([]bool, k)
	if err := readRecords(r, "counts", cr.head, cr.row); err != nil {
		return nil, err
	}
	if len(cr.t.Counts) == 0 {
		return nil, fmt.Errorf("core: counts: no cells listed")
	}
	return cr.t, nil
}

// unlistedCells is how many more cells than twice those it lists a
// count table read without an alphabet may imply: a release writes every
// cell, so 32 bytes naming cell 2²⁴−1 would write 340 MB.
const unlistedCells = 1 << 20

// countReader reads a count table record by record.
type countReader struct {
	t                 *CountTable
	limit             int
	listed            int // rows read
	cellCol, countCol int
	extra             []int // the descriptive columns
	seen              []bool
}

// head finds the cell and count columns; the others but probability,
// which a release recomputes, are descriptive.
func (cr *countReader) head(hdr []string) error {
	cr.cellCol, cr.countCol = -1, -1
	for i, h := range hdr {
		switch columnName(h) {
		case "cell":
			cr.cellCol = i
		case "count":
			cr.countCol = i
		case "probability":
		default:
			cr.extra = append(cr.extra, i)
			cr.t.Extra = append(cr.t.Extra, strings.TrimSpace(h))
		}
	}
	if cr.cellCol < 0 || cr.countCol < 0 {
		return fmt.Errorf("line 1: header %q lacks cell and count columns (privmap grid writes them)", strings.Join(hdr, ","))
	}
	return nil
}

// row reads one cell's count and descriptive values.
func (cr *countReader) row(rec []string) error {
	if len(rec) <= max(cr.cellCol, cr.countCol) {
		return fmt.Errorf("%d fields, want at least %d", len(rec), max(cr.cellCol, cr.countCol)+1)
	}
	c, err := parseCell(rec[cr.cellCol], cr.limit)
	if err != nil {
		return err
	}
	v, err := ParseDecimal(rec[cr.countCol])
	if err != nil || !(v >= 0) || v > maxCount || v != math.Trunc(v) {
		return fmt.Errorf("count %q is not a whole number from 0 to 2⁵³", rec[cr.countCol])
	}
	t := cr.t
	if c >= len(t.Counts) {
		if listed := cr.listed + 1; c+1 > 2*listed+unlistedCells {
			return fmt.Errorf("cell %d implies %d cells where %d are listed: a count table lists its cells, zeros too (privmap grid writes them all), and a release writes every cell it implies", c, c+1, listed)
		}
		grow := c + 1 - len(t.Counts)
		t.Counts = append(t.Counts, make([]float64, grow)...)
		cr.seen = append(cr.seen, make([]bool, grow)...)
	}
	if cr.seen[c] {
		return fmt.Errorf("cell %d listed twice", c)
	}
	cr.seen[c], t.Counts[c] = true, v
	cr.listed++
	vals := make([]string, len(cr.extra))
	for i, col := range cr.extra {
		if col < len(rec) {
			vals[i] = rec[col]
		}
	}
	t.Values[c] = vals
	return nil
}
