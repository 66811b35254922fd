// Package geo reads check-in files and bins their points into a grid of
// square cells, turning geography into the integer alphabet that package
// core works on.
//
// # Layouts
//
// Each file layout is one record, a Layout, declared beside its parser
// and listed once in layouts (format.go): its names for -format, the
// names help shows, the extensions the window opens, how to recognise
// its first line (Sniff), how to read it (Line or Read, or Scan from a
// path), whether it names people, whether it is a table the import
// dialog maps, and the columns of a headerless table. ParseFormat,
// detection, Format.String, the readers, LayoutMapping, grid's -format
// help and the window's Open and import dialogs all read the records.
// Adding a layout is its file and one line in layouts. Package
// geo/census keeps its census layouts the same way.
//
// The layouts: SNAP's check-ins (Gowalla, Brightkite, the SNAP-style
// Foursquare subsets), Yang et al.'s TSMC 2014 and global-scale
// Foursquare data, Weeplaces, Yelp's businesses and reviews, GeoLife's
// trajectories, delimited text with a header or a column mapping, bare
// "lat,lon" lines, Excel workbooks, GeoJSON points and GeoParquet point
// layers.
//
// # Reading
//
// Readers take an io.Reader and give line-numbered *ParseErrors. A
// malformed line stops the read, unless Options.SkipBad is set: then the
// line is skipped and counted in Result.Skipped, and the first reasons
// are kept, so nothing is dropped silently.
//
// Check-in files are streamed. ScanCheckins hands each record on.
// GridScan keeps only each user's state and each datum's cell. It reads
// the file a second time when the box must be fitted first. A fitted
// box is that of every check-in, whatever the per-person rule keeps.
// The people of the data kept are numbered 0…P−1, with no gap for users
// the box dropped. So the size of a file never bounds what can be
// gridded. ReadCheckins keeps every record, for small files and tests.
//
// A binary file is named by its first bytes before any line is read
// (ErrBinary). A delimited file's separator is sniffed from its header:
// comma, semicolon, tab or pipe (Result.Delimiter). Its column names are
// compared in a normal form: case, spaces, underscores and units
// dropped. A file without a person column says so (Result.NoPerson),
// and grid and the Data screen print it.
//
// In a file that names people, a record with a blank person id is
// refused with its lines named (ErrBlankPerson), unless
// Options.BlankPerson says own or skip; Result.BlankPerson counts them.
// GridScan counts the ids that differ from an earlier one only in case
// or Unicode normal form (FoldID: NFKC, then case folding;
// Gridded.Alike). They are one person each under GridOptions.PersonKey
// fold.
//
// # Mappings and the import dialog
//
// A Mapping (grid's -cols, -delim, -header, -encoding, -time-format)
// overrides the guesses, columns by number or name (none for a kind not
// to read). A study records it (studyfile.Source's columns, delim,
// header, encoding, time_format; Mapping.Text), so the window reloads
// the file the same way. PreviewDelimited reads only the first rows by a
// mapping and gives each row's fields and outcome. It guesses the
// coordinate columns of a headerless file from their values, never from
// names x and y. The window's import dialog shows it, after QGIS's "Add
// Delimited Text Layer". The dialog opens for delimited files, for a
// file whose header names no coordinates, and by Columns… for the file
// shown (a SNAP or TSMC file's columns from LayoutMapping). The mapping
// chosen is remembered per file-name pattern, digit runs as *.
//
// # Joins, folders, workbooks, GeoJSON and GeoParquet
//
// The layouts that join two files keep the smaller in memory and stream
// the other. ReadPlaces reads Foursquare's global-scale venues or Yelp's
// businesses into Places, a 24-digit hexadecimal id kept as 12 bytes in
// a map of fixed-size keys. Options.Places hands them to the
// FoursquareGlobal and YelpReviews readers. An Input (a path, its format
// and the places file it joins with) is how grid and the window read
// these alike. Its Scan reads the places once, then streams each pass.
// The window reopens a study of such a layout by the format and places
// its source records.
//
// ScanPath walks a GeoLife folder's PLT files in lexical order
// (walkPLT). Symbolic links are followed, to folders too, and each
// folder is entered once by its real path. A .plt that is not a regular
// file, such as a named pipe, is an error. Each file holds the points of
// the user whose folder holds it, and its errors name it
// (ParseError.File).
//
// An Excel workbook, found by its first bytes, is read through excelize
// and held in memory up to MaxWorkbookBytes. privmap first checks its
// ZIP parts and reads each through once (checkWorkbook): the sizes each
// part declares are held to caps before excelize allocates them, no part
// may unzip past its size, and there may be no more shared strings than
// cells. excelize then runs in a goroutine of its own, with its
// temporary files in a folder privmap removes on every path, so a
// cancelled read returns at once (sheetStream). The sheet's rows are
// streamed into the same readRecords as a delimited file's lines (the
// records interface), so header names, mappings, previews and errors are
// one code. A date cell's serial number is read as its time.
//
// GeoJSON is found by parsing the first object's top-level members
// (geoJSONKind): a type naming a FeatureCollection or a Feature, or a
// features array, in any order and spacing. A FeatureCollection (one
// features member: two are refused) is streamed feature by feature with
// encoding/json's tokenizer, from the bytes, not lines, since exporters
// write it on one line. A GeoJSON text sequence is read line by line.
// The point is the geometry's. The person, time and place are the
// properties named as a header's columns would be. Errors count
// features (ParseError.Unit).
//
// A GeoParquet point layer is read from its path (ScanPath). Its footer
// and pages are first checked by internal/parquetcheck, shared with the
// reports tables of app/pipeline. Its rows are then streamed, the point
// from the WKB or native geometry column the geo metadata names.
//
// # Grids
//
// Grids are built over an orb.Bound in a local equirectangular
// projection (Equirectangular), so that a cell's side is a true ground
// distance. Web Mercator would inflate every side by 1/cos(latitude), a
// factor of 1.27 at San Francisco (project.MercatorScaleFactor in
// package orb/project). Cells are indexed row*Cols + col, row 0 at the
// south edge and column 0 at the west edge. A Gridded data set says what
// it holds of itself: its study (Study), its per-person rule in words
// (RuleWords, BoundText), its truth file (WriteTruth).
package geo
