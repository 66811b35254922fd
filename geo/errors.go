package geo

import (
	"errors"
	"fmt"
)

// Errors that a *ParseError wraps. Check them with errors.Is.
var (
	ErrFieldCount   = errors.New("wrong number of fields")
	ErrBadLatitude  = errors.New("invalid latitude")
	ErrBadLongitude = errors.New("invalid longitude")
	ErrBadTime      = errors.New("invalid time")
	ErrNoColumns    = errors.New("header names no latitude and longitude columns")
	ErrEmpty        = errors.New("no data lines")
	ErrLineTooLong  = errors.New("line too long")
	ErrUnknownFmt   = errors.New("unknown format")
	ErrBinary       = errors.New("not a text file")
	ErrBlankPerson  = errors.New("blank person ids")
)

// How a record whose person id is blank is read, in a file that names
// people (Options.BlankPerson).
const (
	// BlankRefuse refuses the file, naming the lines (the default).
	BlankRefuse = ""
	// BlankOwn counts each such record as a person of its own.
	BlankOwn = "own"
	// BlankSkip leaves such records out.
	BlankSkip = "skip"
)

// A ParseError is returned for a line that cannot be read. Line and Column
// are 1-based; Column is the field (not byte) that failed, or 0 when the
// error concerns the whole line.
type ParseError struct {
	// File names the file of a folder read (ScanPath); "" otherwise.
	File string
	// Unit names what Line counts when not lines: "feature" for a
	// GeoJSON FeatureCollection's features.
	Unit   string
	Line   int
	Column int
	Err    error
}

// Error implements the error interface in the style of encoding/csv.
func (e *ParseError) Error() string {
	file := ""
	if e.File != "" {
		file = e.File + ": "
	}
	unit := e.Unit
	if unit == "" {
		unit = "line"
	}
	if e.Column > 0 {
		return fmt.Sprintf("%s%s %d, field %d: %v", file, unit, e.Line, e.Column, e.Err)
	}
	return fmt.Sprintf("%s%s %d: %v", file, unit, e.Line, e.Err)
}

// Unwrap returns the underlying reason.
func (e *ParseError) Unwrap() error { return e.Err }

// fieldError wraps a sentinel with the offending text.
func fieldError(sentinel error, text string) error {
	return fmt.Errorf("%q: %w", clip(text, 40), sentinel)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
