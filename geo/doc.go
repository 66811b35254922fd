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
//
// # Reading files
//
// Package geo owns files and geography: readers take an `io.Reader` and give
// line-numbered `*geo.ParseError`s. Check-in files are streamed
// (`ScanCheckins` hands each record on; `GridScan` keeps only each user's
// state and each datum's cell, reading the file a second time when the box
// must be fitted first; a fitted box is that of every check-in, whatever
// the per-person rule keeps, and the people of the data kept are numbered
// 0…P−1 with no gap for users the box dropped), so the size of a file never bounds what can be
// gridded; `ReadCheckins` keeping every record is for small files and
// tests. A binary file is named by its first bytes before any line is
// read (`ErrBinary`); a delimited file's separator is sniffed from its
// header (comma, semicolon, tab, pipe; `Result.Delimiter`), its column
// names compared in a normal form (case, spaces, underscores, units
// dropped), and a file without a person column says so
// (`Result.NoPerson`), which `grid` and the Data screen print; in a
// file that names people a record with a blank person id is refused
// with its lines named (`geo.ErrBlankPerson`) unless
// `Options.BlankPerson` says `own` or `skip` (`Result.BlankPerson`
// counts them; GeoJSON features are read as before, each blank one a
// person of its own), and `GridScan` counts the ids that differ from an
// earlier one only in case or Unicode normal form (`FoldID`: NFKC, then
// case folding, from golang.org/x/text; `Gridded.Alike`), one person
// each under `GridOptions.PersonKey` `fold`; a
// `geo.Mapping` (grid's `-cols`, `-delim`, `-header`, `-encoding`,
// `-time-format`) overrides the guesses, columns by number or name
// (`none` for a kind not to read), and a study records it
// (`studyfile.Source`'s `columns`, `delim`, `header`, `encoding`,
// `time_format`, in grid's flag values, `Mapping.Text`) so that the
// window reloads the file the same way. `PreviewDelimited` reads only
// the first rows by a mapping and gives each row's fields and outcome,
// guessing the coordinate columns of a headerless file from its values
// (never from names x and y): the window's import dialog
// (`app/gui/importer.go`, after QGIS's "Add Delimited Text Layer") shows
// it, opened for delimited files, for a file whose header names no
// coordinates, and by Columns… for the file shown (a SNAP or TSMC file's
// columns from `LayoutMapping`); the mapping chosen is remembered per
// file-name pattern (digit runs as `*`). The public layouts that join
// two files keep the smaller in memory and stream the other:
// `ReadPlaces` reads Foursquare's global-scale venues or Yelp's
// businesses into `Places` (a 24-digit hexadecimal id as 12 bytes in a
// map of fixed-size keys), which `Options.Places` hands to the
// `FoursquareGlobal` and `YelpReviews` readers; `ScanPath` walks a
// GeoLife folder's PLT files in lexical order (`walkPLT`: symbolic
// links followed, to folders too, each folder entered once by its real
// path; a .plt that is not a regular file, such as a named pipe, is an
// error), each the points of the
// user whose folder holds it, its errors naming the file
// (`ParseError.File`). `Input` (a path, its format and the places file
// it joins with; `Scan` reads the places once, then streams each pass)
// is how `grid` and the window read these alike: the window reopens a
// study of such a layout by the format and places its source records.
// An Excel workbook (found by its first bytes) is
// read through excelize, held in memory up to `MaxWorkbookBytes`, its
// ZIP parts first checked and read through once by privmap
// (`checkWorkbook`: sizes each part declares, against caps, before
// excelize allocates them; no part unzipping past its size; no more
// shared strings than cells), excelize then run in a goroutine of its own
// with its temporary files in a folder privmap removes on every path,
// so that a cancelled read returns at once (`sheetStream`), its
// sheet's rows streamed into the same `readRecords` as a delimited
// file's lines (the `records` interface: csv lines or sheet rows), so
// header names, mappings, previews and errors are one code; a date
// cell's serial number is read as its time. GeoJSON is found by
// parsing the first object's top-level members (`geoJSONKind`: a
// `type` naming a FeatureCollection or a Feature, or a `features`
// array, in any order and spacing). A GeoJSON FeatureCollection
// (one `features` member: two are refused) is streamed feature by feature with encoding/json's tokenizer (from
// the bytes, not lines: exporters write it on one line), a GeoJSON text
// sequence line by line; the point is the geometry's, the person, time
// and place the properties named as a header's columns (errors count
// features, `ParseError.Unit`). A GeoParquet point layer is read from
// its path (`ScanPath`), its footer and pages first checked by
// `internal/parquetcheck` (shared with the reports tables of `app`),
// then its rows streamed, the point from the WKB or native geometry
// column the `geo` metadata names. Grids are built with orb in a local
// equirectangular projection, cell `row*cols + col` (row 0 south, column 0
// west). `geo/census` tabulates census microdata over chosen attributes.
package geo
