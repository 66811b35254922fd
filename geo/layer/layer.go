// Package layer writes a grid of values as a GIS layer that QGIS, GDAL
// and kepler.gl open: a GeoJSON feature collection (RFC 7946), an OGC
// GeoPackage (12-128r18, written with modernc.org/sqlite) and a GeoTIFF
// raster of one pixel per cell (OGC 19-008r4).
//
// The vector layers hold one polygon per cell in WGS 84 longitude and
// latitude, empty cells included, with the cell's index, row and column
// and one property per column of values; the raster holds one band per
// column, its corners the grid's box. Cells are indexed row*Cols + col,
// row 0 at the south edge, as everywhere in privmap.
package layer

import (
	"errors"
	"fmt"
	"math"
	"regexp"

	"github.com/paulmach/orb"
)

// MaxCells bounds the cells of a layer: a GeoJSON layer takes about
// 300 bytes a cell, so 4M cells make a file of over a gigabyte.
const MaxCells = 4 << 20

// A Grid is the geometry of a layer: Cols×Rows equal cells in degrees
// of longitude and latitude tiling the box West–East, South–North.
type Grid struct {
	Cols, Rows               int
	South, West, North, East float64
}

// A Column is one property of every cell.
type Column struct {
	// Name is the property's name: a letter, then letters, digits and
	// underscores (a name that every format takes unquoted).
	Name string
	// Values holds the cell values, one a cell; all finite.
	Values []float64
	// Integer marks whole numbers (counts), written as integers.
	Integer bool
}

// A Layer is a grid and its columns.
type Layer struct {
	// Name names the layer (the GeoPackage's table, the GeoJSON's name).
	Name    string
	Grid    Grid
	Columns []Column
	// Software names the program writing the layer, "" for none: the
	// GeoJSON's "generator" member, the GeoTIFF's Software tag and the
	// end of the GeoPackage table's description.
	Software string
}

var namePattern = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)

// reserved are the names the layer writes itself.
var reserved = map[string]bool{"fid": true, "geom": true, "cell": true, "row": true, "col": true}

// Check reports the first problem of l: a grid without a box or cells
// beyond MaxCells, a column of the wrong length, a value that is not
// finite, a name that is not a plain identifier or is used twice.
func (l *Layer) Check() error {
	if err := l.Grid.check(); err != nil {
		return err
	}
	if !namePattern.MatchString(l.Name) {
		return fmt.Errorf("layer: name %q: want a letter, then letters, digits or underscores", l.Name)
	}
	if len(l.Columns) == 0 {
		return errors.New("layer: no columns of values")
	}
	seen := map[string]bool{}
	for _, c := range l.Columns {
		if !namePattern.MatchString(c.Name) || reserved[c.Name] || seen[c.Name] {
			return fmt.Errorf("layer: column name %q: want a new identifier other than fid, geom, cell, row and col", c.Name)
		}
		seen[c.Name] = true
		if err := c.check(l.Grid.Len()); err != nil {
			return err
		}
	}
	return nil
}

// check reports a grid without cells, with more than MaxCells, or
// whose box is not one in WGS 84.
func (g Grid) check() error {
	if g.Cols < 1 || g.Rows < 1 || float64(g.Cols)*float64(g.Rows) > MaxCells {
		return fmt.Errorf("layer: a grid of %d×%d cells: want 1 to %d cells", g.Cols, g.Rows, MaxCells)
	}
	if !(g.South < g.North && g.West < g.East) || g.South < -90 || g.North > 90 || g.West < -180 || g.East > 180 {
		return fmt.Errorf("layer: the box %g–%g N, %g–%g E is not a box in WGS 84", g.South, g.North, g.West, g.East)
	}
	return nil
}

// check reports a column whose length is not k or whose values are not
// finite (whole, for an Integer column).
func (c Column) check(k int) error {
	if len(c.Values) != k {
		return fmt.Errorf("layer: column %s has %d values for %d cells", c.Name, len(c.Values), k)
	}
	for x, v := range c.Values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("layer: column %s, cell %d: %v is not a finite number", c.Name, x, v)
		}
		if c.Integer && (v != math.Trunc(v) || math.Abs(v) > 1<<53) {
			return fmt.Errorf("layer: column %s, cell %d: %v is not a whole number", c.Name, x, v)
		}
	}
	return nil
}

// Len returns the number of cells.
func (g Grid) Len() int { return g.Cols * g.Rows }

// lon and lat return the west edge of column c and the south edge of
// row r; the last edges are exactly the box's sides.
func (g Grid) lon(c int) float64 {
	if c >= g.Cols {
		return g.East
	}
	return g.West + float64(c)*(g.East-g.West)/float64(g.Cols)
}

func (g Grid) lat(r int) float64 {
	if r >= g.Rows {
		return g.North
	}
	return g.South + float64(r)*(g.North-g.South)/float64(g.Rows)
}

// Cell returns the box of cell x.
func (g Grid) Cell(x int) orb.Bound {
	r, c := x/g.Cols, x%g.Cols
	return orb.Bound{Min: orb.Point{g.lon(c), g.lat(r)}, Max: orb.Point{g.lon(c + 1), g.lat(r + 1)}}
}

// ring returns cell x's outline, counter-clockwise from its south-west
// corner (RFC 7946 §3.1.6: exterior rings follow the right-hand rule).
func (g Grid) ring(x int) orb.Ring {
	b := g.Cell(x)
	return orb.Ring{b.Min, {b.Max[0], b.Min[1]}, b.Max, {b.Min[0], b.Max[1]}, b.Min}
}
