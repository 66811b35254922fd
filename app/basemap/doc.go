// Package basemap draws map tiles under privmap's heat maps, so that a
// reader can tell where a cell lies: raster XYZ tiles from a tile server
// (OpenStreetMap's standard tiles by default), cached on disk and fetched
// as the OpenStreetMap tile usage policy asks, or the tiles of an MBTiles
// file, the SQLite tile package that QGIS and MapLibre users keep.
//
// Fetch gathers the tiles that cover a box at the zoom level that suits
// the picture, once, in the background of the caller's context; the
// Layer it returns then draws any picture of that box from memory,
// reprojecting Web Mercator tiles onto the maps' longitude–latitude
// axes pixel by pixel (docs/ARCHITECTURE.md §1). Tile maths come from
// paulmach/orb/maptile.
package basemap
