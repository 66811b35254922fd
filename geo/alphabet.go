package geo

import "github.com/privmap/privmap/core"

// Alphabet returns the study-file alphabet of g (docs/FILES.md):
// its cells, the requested side and, as compatible extensions, the north-east
// corner and the true sides, so that the exact cell boxes can be rebuilt.
func (g *Grid) Alphabet() core.Alphabet {
	return core.Alphabet{
		Kind:         core.KindGrid,
		Cols:         g.Cols,
		Rows:         g.Rows,
		CellKm:       g.CellKm,
		South:        g.Bound.Min[1],
		West:         g.Bound.Min[0],
		North:        g.Bound.Max[1],
		East:         g.Bound.Max[0],
		CellWidthKm:  g.CellWidthKm(),
		CellHeightKm: g.CellHeightKm(),
	}
}
