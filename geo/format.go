package geo

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// A Layout is one check-in file layout's record: its names, the files
// that hold it, how to recognise it and how to read it. Each record is
// declared beside its parser; layouts lists them once, and ParseFormat,
// detection, Format.String, the readers, grid's -format help and the
// window's Open dialog and import dialog read them (docs/ARCHITECTURE.md,
// "Adding to privmap"). Several records may share a Format when a
// layout is another's under a name of its own (weeplaces is a delimited
// file).
type Layout struct {
	// Format is the layout's identity.
	Format Format
	// Name is what Format.String says, "" for a record that only adds
	// names to another's Format.
	Name string
	// Names are the names -format accepts, lower case.
	Names []string
	// Shown are the names help lists, Note said after the last of them:
	// "brightkite (SNAP's layout)". No Shown: the layout is not listed.
	Shown []string
	Note  string
	// Exts are the extensions of the files the window opens in this
	// layout, found by their content (Auto).
	Exts []string
	// Sniff reports whether a file whose first data line is line is in
	// this layout; layouts are tried in their order, and a file that
	// none claims is Delimited.
	Sniff func(line string) bool
	// Line parses one line of a layout of a record a line; Read reads
	// the others from their stream and Person says the layout names people, NoPerson that it
	// never does (each record a person of its own).
	// Scan reads a layout read from its path (a folder, or a file read
	// from its end) for ScanPath.
	Line             func(line string) (Checkin, error)
	Read             func(lr *lineReader, res *Result, opt Options) error
	Scan             func(ctx context.Context, path string, opt Options, fn func(Checkin) error) (*Result, error)
	Person, NoPerson bool
	// Places says the records are placed at the places of another file
	// (Options.Places); FromPath that the layout is read from its path
	// (ScanPath), not from a stream whose format is detected.
	Places, FromPath bool
	// Tabular says the file is a table of columns, which the import
	// dialog maps; Import that the window shows the import dialog
	// before reading a file detected in this layout.
	Tabular, Import bool
	// Columns are the columns of a headerless tabular layout, read as a
	// delimited file by LayoutMapping; Unit what Result.Lines counts
	// ("lines" when empty).
	Columns map[string]string
	Delim   rune
	Unit    string
}

// layouts are the check-in layouts, in the order help lists them and
// detection tries them. They are listed in init because their readers
// ask for layouts in turn (a Result's LineUnit).
var layouts []*Layout

func init() {
	layouts = []*Layout{&snapLayout, &tsmcLayout, &foursquareGlobalLayout, &weeplacesLayout, &yelpLayout, &yelpReviewsLayout,
		&geoLifeLayout, &xlsxLayout, &geoJSONLayout, &geoParquetLayout, &delimitedLayout, &latLonLayout}
}

// Layouts returns the check-in layouts, in the order help lists them.
func Layouts() []Layout {
	out := make([]Layout, len(layouts))
	for i, l := range layouts {
		out[i] = *l
	}
	return out
}

// LayoutOf returns the record of format f, false for Auto or a format
// no record names.
func LayoutOf(f Format) (Layout, bool) {
	if l := layoutOf(f); l != nil {
		return *l, true
	}
	return Layout{}, false
}

// layoutOf returns the record that names f, nil for none.
func layoutOf(f Format) *Layout {
	for _, l := range layouts {
		if l.Format == f && l.Name != "" {
			return l
		}
	}
	return nil
}

func (f Format) String() string {
	if f == Auto {
		return "auto"
	}
	if l := layoutOf(f); l != nil {
		return l.Name
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// ParseFormat maps a command-line format name to a Format: a name of
// a layout's record (gowalla, foursquare and brightkite mean SNAP;
// csv a delimited file with or without a header, detected from its
// first line; weeplaces the Weeplaces check-ins' CSV, its header names
// read as they are); "" and auto detect everything.
func ParseFormat(name string) (Format, error) {
	name = strings.ToLower(name)
	if name == "" || name == "auto" {
		return Auto, nil
	}
	for _, l := range layouts {
		if slices.Contains(l.Names, name) {
			return l.Format, nil
		}
	}
	var shown []string
	for _, l := range layouts {
		shown = append(shown, l.Shown...)
	}
	return Auto, fmt.Errorf("geo: %w %q (want %s)", ErrUnknownFmt, name, OrList(shown))
}

// OrList joins words as a list ending in "or": "a, b or c", as
// privmap's refusals and help list their choices (formats, layouts).
func OrList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// FormatHelp lists the layouts for help, each shown name with its
// record's note after the last: "gowalla", "foursquare", "brightkite
// (SNAP's layout)", "tsmc2014 (…)".
func FormatHelp() []string {
	var out []string
	for _, l := range layouts {
		for i, n := range l.Shown {
			if i == len(l.Shown)-1 && l.Note != "" {
				n += " (" + l.Note + ")"
			}
			out = append(out, n)
		}
	}
	return out
}
