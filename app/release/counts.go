package release

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/privmap/privmap/core"
)

// Write writes a released histogram as a distribution file:
// cell, probability (the released counts clipped at 0 and normalised),
// count (the released count clipped at 0), raw_count (before clipping)
// and the table's descriptive columns. With every clipped count 0 the
// distribution is uniform.
func Write(w io.Writer, t *core.CountTable, raw []float64) error {
	if len(raw) != len(t.Counts) {
		panic("release: length mismatch")
	}
	clipped, p := Clip(raw)
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

// Clip returns released counts clipped at 0, as PM publishes them,
// and their distribution (uniform when every count is 0).
func Clip(raw []float64) (clipped, p []float64) {
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

// Errors measures released counts against the true ones (PM
// §IV-B1) with a break-point c: the mean absolute error; the mean
// relative error above the break-point (PM eq. 36),
//
//	MRE = (1/N) Σ_i 1{|ẑᵢ − zᵢ| > c} |ẑᵢ − zᵢ| / max(zᵢ, 1),
//
// over the N cells, z the true and ẑ the released count (an empty cell's
// error taken relative to 1); and the share of cells whose error is
// within the break-point, |ẑ − z| ≤ c.
func Errors(truth, released []float64, c float64) (mae, mre, within float64) {
	if len(truth) != len(released) {
		panic("release: length mismatch")
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
