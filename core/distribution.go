package core

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// ReadDistribution reads a distribution file (docs/FILES.md): a CSV
// whose header names the columns cell and probability, other columns ignored.
// Cells run over 0..k−1, each at most once; cells not listed have probability
// 0. Probabilities must be finite, non-negative and sum to 1 within 1e−9.
// Errors name the line. With k ≤ 0 the alphabet is taken to end at the
// largest cell listed.
func ReadDistribution(r io.Reader, k int) ([]float64, error) {
	return readDistribution(r, k, nil, nil)
}

// ReadDistributionOn is ReadDistribution over the alphabet a, checking
// the columns that place each cell, where the file has them, against a:
// on a grid, row and col (a grid of other rows and columns, or
// transposed, is refused although its cell count agrees) and lat and
// lon within the cell of a grid with a box; label on a labelled
// alphabet.
func ReadDistributionOn(r io.Reader, a Alphabet) ([]float64, error) {
	var place func(c int, rec []string) error
	return readDistribution(r, a.Len(), func(hdr []string) {
		place = placeCheck(hdr, a)
	}, func(c int, rec []string) error {
		if place == nil {
			return nil
		}
		return place(c, rec)
	})
}

// ReadEstimateOn is ReadDistributionOn that also reads the intervals an
// estimate written with them carries (WriteEstimate: the columns
// lo,hi,band_lo,band_hi), or returns nil intervals when the file has none
// of those columns. A file with some but not all of them, or a bound that
// is not a probability, is an error naming the line. The intervals'
// level and method are not in the file: Level is 0.
func ReadEstimateOn(r io.Reader, a Alphabet) ([]float64, *Intervals, error) {
	var place func(c int, rec []string) error
	var cols [4]int
	var iv *Intervals
	k := a.Len()
	p, err := readDistribution(r, k, func(hdr []string) {
		place = placeCheck(hdr, a)
		cols = [4]int{-1, -1, -1, -1}
		for i, h := range hdr {
			for j, name := range intervalColumns {
				if columnName(h) == name {
					cols[j] = i
				}
			}
		}
		if cols != [4]int{-1, -1, -1, -1} {
			iv = &Intervals{Lo: make([]float64, k), Hi: make([]float64, k), BandLo: make([]float64, k), BandHi: make([]float64, k)}
		}
	}, func(c int, rec []string) error {
		if place != nil {
			if err := place(c, rec); err != nil {
				return err
			}
		}
		if iv == nil {
			return nil
		}
		for j, dst := range [4][]float64{iv.Lo, iv.Hi, iv.BandLo, iv.BandHi} {
			if cols[j] < 0 {
				return fmt.Errorf("the file has some of the columns %s but not %s", strings.Join(intervalColumns[:], ","), intervalColumns[j])
			}
			if cols[j] >= len(rec) {
				return fmt.Errorf("no %s field", intervalColumns[j])
			}
			v, err := ParseDecimal(rec[cols[j]])
			if err != nil || !(v >= 0 && v <= 1) {
				return fmt.Errorf("%s %q is not a probability", intervalColumns[j], rec[cols[j]])
			}
			dst[c] = v
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return p, iv, nil
}

// intervalColumns name the columns of an estimate's intervals.
var intervalColumns = [4]string{"lo", "hi", "band_lo", "band_hi"}

// placeCheck returns the check of a row's placing columns against a
// for the header hdr, or nil when it has none.
func placeCheck(hdr []string, a Alphabet) func(c int, rec []string) error {
	p := placer{a: a, col: map[string]int{}}
	for i, h := range hdr {
		p.col[columnName(h)] = i
	}
	var checks []func(c int, rec []string) error
	if a.Kind == KindGrid {
		checks = append(checks, p.gridCell)
		if a.North > a.South && a.East > a.West {
			checks = append(checks, p.centre)
		}
	}
	if len(a.Labels) == a.Len() {
		checks = append(checks, p.label)
	}
	if len(checks) == 0 {
		return nil
	}
	return func(c int, rec []string) error {
		for _, ch := range checks {
			if err := ch(c, rec); err != nil {
				return err
			}
		}
		return nil
	}
}

// placer checks the columns that place a cell against an alphabet.
type placer struct {
	a   Alphabet
	col map[string]int // column by name
}

// field returns the named column of rec, if the file has it.
func (p placer) field(rec []string, name string) (string, bool) {
	i, ok := p.col[name]
	if !ok || i >= len(rec) {
		return "", false
	}
	return strings.TrimSpace(rec[i]), true
}

// pair returns two columns of rec, if the file has both.
func (p placer) pair(rec []string, x, y string) (string, string, bool) {
	a, okA := p.field(rec, x)
	b, okB := p.field(rec, y)
	return a, b, okA && okB
}

// gridCell checks row and col.
func (p placer) gridCell(c int, rec []string) error {
	r, cc, ok := p.pair(rec, "row", "col")
	if !ok {
		return nil
	}
	a := p.a
	if r != strconv.Itoa(c/a.Cols) || cc != strconv.Itoa(c%a.Cols) {
		return fmt.Errorf("cell %d is at row %d, col %d of the study's %d×%d grid (cols × rows), but the file puts it at row %s, col %s: a distribution on another grid", c, c/a.Cols, c%a.Cols, a.Cols, a.Rows, r, cc)
	}
	return nil
}

// centre checks lat and lon within the cell.
func (p placer) centre(c int, rec []string) error {
	lat, lon, ok := p.pair(rec, "lat", "lon")
	if !ok {
		return nil
	}
	a := p.a
	y, errA := ParseDecimal(lat)
	x, errO := ParseDecimal(lon)
	h, w := (a.North-a.South)/float64(a.Rows), (a.East-a.West)/float64(a.Cols)
	cy := a.South + (float64(c/a.Cols)+0.5)*h
	cx := a.West + (float64(c%a.Cols)+0.5)*w
	if errA != nil || errO != nil || math.Abs(y-cy) > h/2 || math.Abs(x-cx) > w/2 {
		return fmt.Errorf("cell %d's centre is at %.6f, %.6f on the study's grid, but the file puts it at %s, %s: a distribution on another grid", c, cy, cx, lat, lon)
	}
	return nil
}

// label checks label.
func (p placer) label(c int, rec []string) error {
	if l, ok := p.field(rec, "label"); ok && l != strings.TrimSpace(p.a.Labels[c]) {
		return fmt.Errorf("cell %d is %q in the study, but the file labels it %q: a distribution on another alphabet", c, p.a.Labels[c], l)
	}
	return nil
}

// readDistribution is ReadDistribution with head called on the header
// and place on each row's cell.
func readDistribution(r io.Reader, k int, head func([]string), place func(c int, rec []string) error) ([]float64, error) {
	limit := k
	if k <= 0 {
		limit = 1 << 24 // 16M symbols: a bad cell number must not exhaust memory
	}
	var (
		cellCol, probCol int
		p                = make([]float64, max(k, 0))
		seen             = make([]bool, max(k, 0))
		sum              float64
	)
	err := readRecords(r, "distribution", func(hdr []string) error {
		cellCol, probCol = distColumns(hdr)
		if cellCol < 0 || probCol < 0 {
			return fmt.Errorf("line 1: header %q lacks cell and probability columns", strings.Join(hdr, ","))
		}
		if head != nil {
			head(hdr)
		}
		return nil
	}, func(rec []string) error {
		c, v, err := distRow(rec, cellCol, probCol, limit)
		if err != nil {
			return err
		}
		if place != nil {
			if err := place(c, rec); err != nil {
				return err
			}
		}
		if c >= len(p) {
			p = append(p, make([]float64, c+1-len(p))...)
			seen = append(seen, make([]bool, c+1-len(seen))...)
		}
		if seen[c] {
			return fmt.Errorf("cell %d listed twice", c)
		}
		seen[c], p[c] = true, v
		sum += v
		return nil
	})
	if err != nil {
		return nil, err
	}
	if math.Abs(sum-1) > shareTolerance {
		return nil, fmt.Errorf("core: distribution: probabilities sum to %v, not 1", sum)
	}
	return p, nil
}

// distColumns finds the cell and probability columns of a header, −1
// where absent.
func distColumns(hdr []string) (cellCol, probCol int) {
	cellCol, probCol = -1, -1
	for i, h := range hdr {
		switch columnName(h) {
		case "cell":
			cellCol = i
		case "probability":
			probCol = i
		}
	}
	return cellCol, probCol
}

// distRow parses the cell and probability of one record.
func distRow(rec []string, cellCol, probCol, k int) (int, float64, error) {
	if len(rec) <= max(cellCol, probCol) {
		return 0, 0, fmt.Errorf("%d fields, want at least %d", len(rec), max(cellCol, probCol)+1)
	}
	c, err := parseCell(rec[cellCol], k)
	if err != nil {
		return 0, 0, err
	}
	v, err := ParseDecimal(rec[probCol])
	if err != nil || !(v >= 0) || math.IsInf(v, 0) {
		return 0, 0, fmt.Errorf("probability %q is not a finite number ≥ 0", rec[probCol])
	}
	return c, v, nil
}

// WriteDistribution writes p as a distribution CSV: cell,probability,
// plus row,col,lat,lon of the cell centre on a grid whose corners are
// known, or label on a labelled categorical alphabet.
//
// Every probability must be a finite number ≥ 0: a raw inversion
// estimate (PostNone) with negative entries is refused, not written.
func WriteDistribution(w io.Writer, p []float64, a Alphabet) error {
	return WriteEstimate(w, p, a, nil)
}

// WriteEstimate is WriteDistribution with, when iv is not nil, each
// cell's interval and the simultaneous band appended as the columns
// lo,hi,band_lo,band_hi (readers of distributions ignore them).
func WriteEstimate(w io.Writer, p []float64, a Alphabet, iv *Intervals) error {
	if iv != nil && (len(iv.Lo) != len(p) || len(iv.BandLo) != len(p)) {
		panic("core: slice length mismatch")
	}
	for x, v := range p {
		if !(v >= 0) || math.IsInf(v, 1) {
			return fmt.Errorf("core: the probability of cell %d is %v; a distribution file holds finite probabilities ≥ 0 (a raw estimate, post-processing none, can be negative: post-process it with proj or norm)", x, v)
		}
	}
	cw := csv.NewWriter(w)
	places := cellPlaces(a, len(p))
	head := append([]string{"cell", "probability"}, places.head...)
	if iv != nil {
		head = append(head, intervalColumns[:]...)
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	for i, v := range p {
		rec := places.fields([]string{strconv.Itoa(i), strconv.FormatFloat(v, 'g', -1, 64)}, i)
		if iv != nil {
			for _, b := range []float64{iv.Lo[i], iv.Hi[i], iv.BandLo[i], iv.BandHi[i]} {
				rec = append(rec, strconv.FormatFloat(b, 'g', -1, 64))
			}
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// placeColumns are the columns that place a distribution's cells for
// people: row,col,lat,lon on a grid with a box, row,col on one without,
// label on a labelled alphabet of k symbols.
type placeColumns struct {
	a      Alphabet
	head   []string
	geo    bool
	labels bool
}

func cellPlaces(a Alphabet, k int) placeColumns {
	c := placeColumns{a: a, geo: a.Kind == KindGrid && a.North > a.South && a.East > a.West}
	switch {
	case c.geo:
		c.head = []string{"row", "col", "lat", "lon"}
	case a.Kind == KindGrid:
		c.head = []string{"row", "col"}
	case len(a.Labels) == k:
		c.head, c.labels = []string{"label"}, true
	}
	return c
}

// fields appends cell i's placing fields to rec.
func (c placeColumns) fields(rec []string, i int) []string {
	a := c.a
	switch {
	case a.Kind == KindGrid:
		r, col := i/a.Cols, i%a.Cols
		rec = append(rec, strconv.Itoa(r), strconv.Itoa(col))
		if c.geo {
			lat := a.South + (float64(r)+0.5)*(a.North-a.South)/float64(a.Rows)
			lon := a.West + (float64(col)+0.5)*(a.East-a.West)/float64(a.Cols)
			rec = append(rec, strconv.FormatFloat(lat, 'f', 6, 64), strconv.FormatFloat(lon, 'f', 6, 64))
		}
	case c.labels:
		rec = append(rec, a.Labels[i])
	}
	return rec
}
