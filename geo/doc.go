// Package geo reads check-in files and bins their points into a grid of
// square cells, turning geography into the integer alphabet that package
// core works on.
//
// Readers take an io.Reader and stream it line by line. Three text formats
// are understood:
//
//   - SNAP check-ins, as published for Gowalla and used for the Foursquare
//     subsets: user<TAB>time<TAB>latitude<TAB>longitude[<TAB>location].
//   - Delimited text (tab or comma) whose header names its columns:
//     lat|latitude, lon|lng|long|longitude, and optionally user and time.
//   - Plain "lat,lon" lines with no header.
//
// A malformed line stops the read with a *ParseError carrying the line
// number and reason, unless Options.SkipBad is set; then the line is skipped
// and counted in Result.Skipped, and the first few reasons are kept so that
// nothing is dropped silently.
//
// Grids are built over an orb.Bound in a local equirectangular projection
// (see Equirectangular), so that a cell's side is a true ground distance.
// Web Mercator would inflate every side by 1/cos(latitude), a factor of 1.27
// at San Francisco; see project.MercatorScaleFactor in package orb/project.
// Cells are indexed row*Cols + col with row 0 at the south edge and col 0 at
// the west edge.
package geo
