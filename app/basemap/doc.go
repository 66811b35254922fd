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
// axes pixel by pixel (docs/ARCHITECTURE.md). Tile maths come from
// paulmach/orb/maptile.
//
// Why not fyne-x's widget.Map (fyne.io/x/fyne, read at its October 2026
// revision): it is a map viewer of its own, not a layer under another
// picture. It fetches tiles one by one on the drawing goroutine with no
// timeout, keeps them in an unbounded in-memory map with no disk cache,
// decodes PNG only, logs every failed fetch as a Fyne error, zooms in
// whole Web Mercator levels about its own centre, and reads no MBTiles;
// privmap's heat maps need tiles reprojected onto longitude–latitude
// axes of any box, drawn under cells at an opacity, in the window and in
// exported pictures alike, with no job waiting on the network.
package basemap
