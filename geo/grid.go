package geo

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/privmap/privmap/core"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geo"
)

// MaxCells bounds the number of cells of a grid, so that a typing slip in
// a cell size cannot allocate gigabytes.
const MaxCells = 4 << 20

// A Grid tiles a longitude/latitude box with Cols×Rows equal cells of about
// CellKm on the ground. The cell of a point is row*Cols + col, row 0 at the
// south edge and col 0 at the west edge.
//
// Cols = round(box width / CellKm) and Rows = round(box height / CellKm),
// widths measured in the Equirectangular projection about the box's
// south-west corner at its middle latitude, so the cells tile the box
// exactly and their true sides (CellWidthKm, CellHeightKm) differ from
// CellKm by at most half a cell over the box.
type Grid struct {
	// Bound is the box; Min is the south-west and Max the north-east corner.
	Bound orb.Bound
	// Cols and Rows count the cells west to east and south to north.
	Cols, Rows int
	// CellKm is the requested side of a cell in kilometres.
	CellKm float64

	proj         orb.Projection
	widthM, hgtM float64 // box size in projected metres
	dLon, dLat   float64 // cell size in degrees
	cellW, cellH float64 // cell size in projected metres
}

// NewGrid returns the grid of cells of about cellKm kilometres over b.
func NewGrid(b orb.Bound, cellKm float64) (*Grid, error) {
	if !(cellKm > 0) || math.IsInf(cellKm, 0) {
		return nil, fmt.Errorf("geo: cell size must be positive and finite, got %v km", cellKm)
	}
	if err := checkBound(b); err != nil {
		return nil, err
	}
	g := &Grid{Bound: b, CellKm: cellKm}
	g.proj = Equirectangular(b.Min, (b.Min[1]+b.Max[1])/2)
	ne := g.proj(b.Max)
	g.widthM, g.hgtM = ne[0], ne[1]
	cols := math.Max(1, math.Round(g.widthM/(1000*cellKm)))
	rows := math.Max(1, math.Round(g.hgtM/(1000*cellKm)))
	if cols*rows > MaxCells {
		return nil, fmt.Errorf("geo: %v km cells over a %.1f×%.1f km box make %.0f cells, more than %d",
			cellKm, g.widthM/1000, g.hgtM/1000, cols*rows, MaxCells)
	}
	g.Cols, g.Rows = int(cols), int(rows)
	g.dLon = (b.Max[0] - b.Min[0]) / cols
	g.dLat = (b.Max[1] - b.Min[1]) / rows
	g.cellW, g.cellH = g.widthM/cols, g.hgtM/rows
	return g, nil
}

func checkBound(b orb.Bound) error {
	for _, v := range []float64{b.Min[0], b.Min[1], b.Max[0], b.Max[1]} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return errors.New("geo: bounding box has a non-finite corner")
		}
	}
	switch {
	case b.Min[1] < -90 || b.Max[1] > 90:
		return fmt.Errorf("geo: bounding box latitudes %v..%v outside [-90, 90]", b.Min[1], b.Max[1])
	case b.Min[0] < -180 || b.Max[0] > 180:
		return fmt.Errorf("geo: bounding box longitudes %v..%v outside [-180, 180]", b.Min[0], b.Max[0])
	case !(b.Min[1] < b.Max[1]):
		return fmt.Errorf("geo: bounding box south %v is not below north %v", b.Min[1], b.Max[1])
	case !(b.Min[0] < b.Max[0]):
		return fmt.Errorf("geo: bounding box west %v is not west of east %v", b.Min[0], b.Max[0])
	}
	return nil
}

// ParseBBox parses "south,west,north,east" in degrees.
func ParseBBox(s string) (orb.Bound, error) {
	f := strings.Split(s, ",")
	if len(f) != 4 {
		return orb.Bound{}, fmt.Errorf("geo: bounding box %q: want south,west,north,east", s)
	}
	var v [4]float64
	for i, x := range f {
		var err error
		if v[i], err = core.ParseDecimal(x); err != nil {
			return orb.Bound{}, fmt.Errorf("geo: bounding box %q: %q is not a number", s, x)
		}
	}
	b := orb.Bound{Min: orb.Point{v[1], v[0]}, Max: orb.Point{v[3], v[2]}}
	return b, checkBound(b)
}

// BoundOf returns the smallest box holding every check-in.
func BoundOf(cs []Checkin) orb.Bound {
	if len(cs) == 0 {
		return orb.Bound{}
	}
	b := orb.Bound{Min: cs[0].Point, Max: cs[0].Point}
	for _, c := range cs[1:] {
		b = b.Extend(c.Point)
	}
	return b
}

// Len returns the number of cells.
func (g *Grid) Len() int { return g.Cols * g.Rows }

// CellWidthKm and CellHeightKm return the true east-west and north-south
// side of a cell, measured on the box's middle parallel and on a meridian.
func (g *Grid) CellWidthKm() float64 { return g.cellW / 1000 }

// CellHeightKm returns the north-south side of a cell in kilometres.
func (g *Grid) CellHeightKm() float64 { return g.cellH / 1000 }

// Projection returns the projection to metres used to size the cells.
func (g *Grid) Projection() orb.Projection { return g.proj }

// lonEdge and latEdge give the west edge of column c and the south edge of
// row r; edge Cols (Rows) is exactly the box's east (north) side.
func (g *Grid) lonEdge(c int) float64 {
	if c >= g.Cols {
		return g.Bound.Max[0]
	}
	return g.Bound.Min[0] + float64(c)*g.dLon
}

func (g *Grid) latEdge(r int) float64 {
	if r >= g.Rows {
		return g.Bound.Max[1]
	}
	return g.Bound.Min[1] + float64(r)*g.dLat
}

// Index returns the cell holding p and true, or −1 and false when p is
// outside the box. A point on a border between cells belongs to the cell
// north or east of it; a point on the box's north or east side belongs to
// the last row or column. Binning in degrees is binning in metres here,
// since Equirectangular is linear in longitude and latitude.
func (g *Grid) Index(p orb.Point) (int, bool) {
	if !g.Bound.Contains(p) {
		return -1, false
	}
	col := bin(p[0], g.Bound.Min[0], g.dLon, g.Cols, g.lonEdge)
	row := bin(p[1], g.Bound.Min[1], g.dLat, g.Rows, g.latEdge)
	return row*g.Cols + col, true
}

// bin returns the k with edge(k) ≤ v < edge(k+1), clamped to [0, n−1]. The
// floor is corrected by one step either way, so that Index agrees exactly
// with CellBound despite rounding in (v−min)/step.
func bin(v, lo, step float64, n int, edge func(int) float64) int {
	k := int(math.Floor((v - lo) / step))
	if k > 0 && v < edge(k) {
		k--
	} else if k+1 < n && v >= edge(k+1) {
		k++
	}
	return max(0, min(k, n-1))
}

// RowCol splits a cell index.
func (g *Grid) RowCol(i int) (row, col int) { return i / g.Cols, i % g.Cols }

// CellBound returns the longitude/latitude box of cell i.
func (g *Grid) CellBound(i int) orb.Bound {
	r, c := g.RowCol(i)
	return orb.Bound{
		Min: orb.Point{g.lonEdge(c), g.latEdge(r)},
		Max: orb.Point{g.lonEdge(c + 1), g.latEdge(r + 1)},
	}
}

// Center returns the centre of cell i.
func (g *Grid) Center(i int) orb.Point { return g.CellBound(i).Center() }

// SideKm returns the haversine lengths of the south and west sides of cell
// i, in kilometres (orb/geo.DistanceHaversine, R = orb.EarthRadius).
func (g *Grid) SideKm(i int) (ew, ns float64) {
	b := g.CellBound(i)
	ew = geo.DistanceHaversine(b.Min, orb.Point{b.Max[0], b.Min[1]}) / 1000
	ns = geo.DistanceHaversine(b.Min, orb.Point{b.Min[0], b.Max[1]}) / 1000
	return ew, ns
}

// Bin returns the number of check-ins in each cell and the cell of every
// check-in inside the box, in order; check-ins outside are left out.
func (g *Grid) Bin(cs []Checkin) (counts, cells []int) {
	counts = make([]int, g.Len())
	cells = make([]int, 0, len(cs))
	for _, c := range cs {
		if i, ok := g.Index(c.Point); ok {
			counts[i]++
			cells = append(cells, i)
		}
	}
	return counts, cells
}

// Count bins the check-ins: counts[i] is the number in cell i, outside the
// number left out because they lie outside the box.
func (g *Grid) Count(cs []Checkin) (counts []int, outside int) {
	counts, cells := g.Bin(cs)
	return counts, len(cs) - len(cells)
}

// Distribution returns counts normalised to sum to 1, or nil when they sum
// to zero.
func Distribution(counts []int) []float64 {
	n := 0
	for _, c := range counts {
		n += c
	}
	if n == 0 {
		return nil
	}
	p := make([]float64, len(counts))
	for i, c := range counts {
		p[i] = float64(c) / float64(n)
	}
	return p
}
