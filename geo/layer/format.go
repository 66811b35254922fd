package layer

import (
	"context"
	"io"
	"path/filepath"
	"slices"
	"strings"
)

// A Format is one GIS layer format: the file extensions that choose it
// and its writer. Each format's record sits beside its writer, and
// formats lists them once; the command line's -o, the window's export
// dialog and its help read them from here (docs/ARCHITECTURE.md,
// "Adding to privmap").
type Format struct {
	// Name is the format's name for people: "GeoJSON", "GeoPackage".
	Name string
	// Exts are the extensions that choose it, lower case with the dot,
	// the one offered first.
	Exts []string
	// Holds says in a few words what a file holds, for a dialog's help:
	// "a polygon a cell, with its numbers".
	Holds string
	// Write writes l to w; ctx cancels a long write.
	Write func(ctx context.Context, w io.Writer, l *Layer) error
}

// formats are the GIS layer formats, in the order help lists them.
var formats = []Format{geoJSON, geoPackage, geoTIFF}

// Formats returns the GIS layer formats, in the order help lists them.
func Formats() []Format { return slices.Clone(formats) }

// FormatOf returns the format that name's extension asks for, and false
// when it names none.
func FormatOf(name string) (Format, bool) {
	ext := strings.ToLower(filepath.Ext(name))
	for _, f := range formats {
		if slices.Contains(f.Exts, ext) {
			return f, true
		}
	}
	return Format{}, false
}

// Exts returns every format's first extension, for a file dialog's
// filter.
func Exts() []string {
	var exts []string
	for _, f := range formats {
		exts = append(exts, f.Exts[0])
	}
	return exts
}
