package census

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/privmap/privmap/geo"
)

// A Layout is one census file layout's record: its names and the files
// that hold it. layouts lists them once; ParseFormat, Format.String,
// grid's -format help and the window's Open dialog read them.
type Layout struct {
	// Format is the layout's identity, Name what Format.String says and
	// help lists.
	Format Format
	Name   string
	// Names are the names -format accepts, lower case, Name first.
	Names []string
	// Exts are the extensions of the files the window opens in this
	// layout (found by their content, DetectReader).
	Exts []string
}

// layouts are the census layouts, in the order help lists them.
var layouts = []Layout{
	{Format: Adult, Name: "adult", Names: []string{"adult"}, Exts: []string{".data", ".test"}},
	{Format: Census1990, Name: "census1990", Names: []string{"census1990", "uscensus1990"}, Exts: []string{".txt"}},
}

// Layouts returns the census layouts, in the order help lists them.
func Layouts() []Layout { return slices.Clone(layouts) }

func (f Format) String() string {
	for _, l := range layouts {
		if l.Format == f {
			return l.Name
		}
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// ErrUnknownFormat is returned by ParseFormat for a name it does not know.
var ErrUnknownFormat = errors.New("unknown census format")

// ParseFormat maps a command-line name, adult or census1990, to a Format.
func ParseFormat(name string) (Format, error) {
	name = strings.ToLower(name)
	var names []string
	for _, l := range layouts {
		if slices.Contains(l.Names, name) {
			return l.Format, nil
		}
		names = append(names, l.Name)
	}
	return 0, fmt.Errorf("census: %w %q (want %s)", ErrUnknownFormat, name, geo.OrList(names))
}

// IsFormat reports whether name is a census format, so that a command can
// tell census files from check-in files by their -format.
func IsFormat(name string) bool {
	_, err := ParseFormat(name)
	return err == nil
}
