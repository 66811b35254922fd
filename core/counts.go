package core

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
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
	// Notes, written by WriteRelease as "# " lines before the header,
	// say what was done to the counts before the noise (records dropped
	// to bound each person's); privmap's readers skip them.
	Notes []string
	// Bounds, when set, gives the interval of cell x's true count, alone
	// (lo, hi) and for every cell at once (bandLo, bandHi), from its raw
	// released count: WriteRelease adds the columns lo,hi,band_lo,band_hi
	// after the others, which readers that do not know them ignore.
	Bounds func(x int, raw float64) (lo, hi, bandLo, bandHi float64)
}

// maxCount bounds a count: whole numbers are exact in float64 up to 2⁵³.
const maxCount = 1 << 53

// ReadCountTable reads a distribution file with a count column over k
// cells (docs/ARCHITECTURE.md §7); cells not listed count 0. With k ≤ 0
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

// WriteRelease writes a released histogram as a distribution file:
// cell, probability (the released counts clipped at 0 and normalised),
// count (the released count clipped at 0), raw_count (before clipping)
// and the table's descriptive columns. With every clipped count 0 the
// distribution is uniform.
func WriteRelease(w io.Writer, t *CountTable, raw []float64) error {
	if len(raw) != len(t.Counts) {
		panic("core: release length mismatch")
	}
	clipped, p := ClipCounts(raw)
	for _, n := range t.Notes {
		if _, err := fmt.Fprintf(w, "# %s\n", strings.ReplaceAll(n, "\n", " ")); err != nil {
			return err
		}
	}
	cw := csv.NewWriter(w)
	head := append([]string{"cell", "probability", "count", "raw_count"}, t.Extra...)
	if t.Bounds != nil {
		head = append(head, "lo", "hi", "band_lo", "band_hi")
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	for x := range raw {
		rec := []string{strconv.Itoa(x), strconv.FormatFloat(p[x], 'g', -1, 64),
			strconv.FormatFloat(clipped[x], 'f', -1, 64), strconv.FormatFloat(raw[x], 'f', -1, 64)}
		vals := t.Values[x]
		if vals == nil {
			vals = make([]string, len(t.Extra))
		}
		rec = append(rec, vals...)
		if t.Bounds != nil {
			lo, hi, blo, bhi := t.Bounds(x, raw[x])
			for _, v := range []float64{lo, hi, blo, bhi} {
				rec = append(rec, strconv.FormatFloat(v, 'f', -1, 64))
			}
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// ClipCounts returns released counts clipped at 0, as PM publishes them,
// and their distribution (uniform when every count is 0).
func ClipCounts(raw []float64) (clipped, p []float64) {
	clipped = make([]float64, len(raw))
	sum := 0.0
	for x, v := range raw {
		clipped[x] = math.Max(v, 0)
		sum += clipped[x]
	}
	p = make([]float64, len(raw))
	for x := range p {
		if sum > 0 {
			p[x] = clipped[x] / sum
		} else {
			p[x] = 1 / float64(len(p))
		}
	}
	return clipped, p
}

// ReleaseErrors measures released counts against the true ones (PM
// §IV-B1) with a break-point c: the mean absolute error; the mean
// relative error above the break-point (PM eq. 36),
//
//	MRE = (1/N) Σ_i 1{|ẑᵢ − zᵢ| > c} |ẑᵢ − zᵢ| / max(zᵢ, 1),
//
// over the N cells, z the true and ẑ the released count (an empty cell's
// error taken relative to 1); and the share of cells whose error is
// within the break-point, |ẑ − z| ≤ c.
func ReleaseErrors(truth, released []float64, c float64) (mae, mre, within float64) {
	if len(truth) != len(released) {
		panic("core: release length mismatch")
	}
	for i, z := range truth {
		e := math.Abs(released[i] - z)
		mae += e
		if e > c {
			mre += e / math.Max(z, 1)
		} else {
			within++
		}
	}
	n := float64(len(truth))
	return mae / n, mre / n, within / n
}
