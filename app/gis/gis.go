package gis

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/privmap/privmap/app/output"
	"github.com/privmap/privmap/core"
	"github.com/privmap/privmap/geo/layer"
)

// Maps are the maps of a grid that a GIS layer holds, each nil
// when absent: the truth (its probabilities and its counts), an
// estimate with its intervals, a central release's counts.
type Maps struct {
	Truth, Counts []float64
	Estimate      []float64
	Intervals     *core.Intervals
	Released      *core.CountTable
}

// LayerName is the name of privmap's layers (the GeoPackage's table).
const LayerName = "privmap"

// Grid returns the layer of the maps on grid a, its columns (after
// cell, row, col) named as privmap's files name them: true_probability
// and count (the truth), probability (the estimate), difference
// (estimate − truth), lo, hi, band_lo, band_hi (the estimate's
// intervals), released, released_raw and released_lo, released_hi,
// released_band_lo, released_band_hi (a release's counts before
// clipping and the intervals of the true counts), for the maps given.
func Grid(a core.Alphabet, m Maps) (*layer.Layer, error) {
	if a.Kind != core.KindGrid || !(a.North > a.South && a.East > a.West) {
		return nil, fmt.Errorf("a GIS layer is a grid with its latitude–longitude box, as privmap grid writes it; this study's alphabet is %s without one", a.Kind)
	}
	l := &layer.Layer{Name: LayerName, Software: output.Software(), Grid: layer.Grid{Cols: a.Cols, Rows: a.Rows, South: a.South, West: a.West, North: a.North, East: a.East}}
	add := func(name string, v []float64, integer bool) {
		if v != nil {
			l.Columns = append(l.Columns, layer.Column{Name: name, Values: v, Integer: integer})
		}
	}
	add("true_probability", m.Truth, false)
	add("count", m.Counts, true)
	add("probability", m.Estimate, false)
	if m.Truth != nil && m.Estimate != nil {
		d := make([]float64, len(m.Estimate))
		for x := range d {
			d[x] = m.Estimate[x] - m.Truth[x]
		}
		add("difference", d, false)
	}
	if iv := m.Intervals; iv != nil && m.Estimate != nil {
		add("lo", iv.Lo, false)
		add("hi", iv.Hi, false)
		add("band_lo", iv.BandLo, false)
		add("band_hi", iv.BandHi, false)
	}
	if t := m.Released; t != nil {
		add("released", t.Counts, true)
		for _, c := range []string{"raw_count", "lo", "hi", "band_lo", "band_hi"} {
			v, err := extraColumn(t, c)
			if err != nil {
				return nil, err
			}
			add("released_"+strings.TrimSuffix(c, "_count"), v, false)
		}
	}
	if len(l.Columns) == 0 {
		return nil, fmt.Errorf("a GIS layer needs a map: a truth, an estimate or a release")
	}
	if err := l.Check(); err != nil {
		return nil, err
	}
	return l, nil
}

// extraColumn returns a count table's descriptive column name as
// numbers, nil when the table has none.
func extraColumn(t *core.CountTable, name string) ([]float64, error) {
	i := -1
	for j, e := range t.Extra {
		if strings.EqualFold(e, name) {
			i = j
		}
	}
	if i < 0 {
		return nil, nil
	}
	v := make([]float64, len(t.Counts))
	for x, rec := range t.Values {
		if x < 0 || x >= len(v) || i >= len(rec) {
			continue
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(rec[i]), 64)
		if err != nil {
			return nil, fmt.Errorf("the release's %s of cell %d, %q, is not a number", name, x, rec[i])
		}
		v[x] = f
	}
	return v, nil
}
