package geo

import (
	"context"
	"errors"
	"fmt"
	"os"
)

// An Input is a check-in file (or a GeoLife folder) in a format, with
// the places file a format joins its records with: Foursquare's
// global-scale venues (Venues), or the Yelp reviews read instead of the
// businesses at Path (Reviews). privmap grid and the window read one the
// same way.
type Input struct {
	Path            string
	Format          Format
	Venues, Reviews string
}

// ErrInput is the reason of an Input whose files do not fit its format.
var ErrInput = errors.New("input")

// Check refuses places files the format does not join with, and a
// foursquare-global input without its venues.
func (in Input) Check() error {
	switch {
	case in.Format == FoursquareGlobal && in.Venues == "":
		return fmt.Errorf("%w: -format foursquare-global places check-ins at their venues: give the venues file with -venues (dataset_TIST2015_POIs.txt)", ErrInput)
	case in.Format != FoursquareGlobal && in.Venues != "":
		return fmt.Errorf("%w: -venues: for -format foursquare-global only", ErrInput)
	case in.Format != Yelp && in.Reviews != "":
		return fmt.Errorf("%w: -reviews: for -format yelp only", ErrInput)
	}
	return nil
}

// Files are the files the input reads: its path and places file.
func (in Input) Files() []string {
	files := []string{in.Path}
	for _, f := range []string{in.Venues, in.Reviews} {
		if f != "" {
			files = append(files, f)
		}
	}
	return files
}

// FromPath reports whether the input is read from its path (ScanPath)
// in its format rather than as one stream of bytes whose format is
// detected: a join with a places file, Yelp's JSON lines, a GeoLife
// folder, a GeoParquet layer.
func (in Input) FromPath() bool {
	if l := layoutOf(in.Format); l != nil && l.FromPath {
		return true
	}
	return isParquetFile(in.Path)
}

// Streamed is the file whose records a Scan streams, which its errors
// name: the reviews of a Yelp join, else the path.
func (in Input) Streamed() string {
	if in.Format == Yelp && in.Reviews != "" {
		return in.Reviews
	}
	return in.Path
}

// Scan returns the Scan of the input, each pass streaming its records
// (ScanPath) with opt; the places file of a join is read once, into
// memory (ReadPlaces), before.
func (in Input) Scan(ctx context.Context, opt Options) (Scan, error) {
	f, path, places := in.Format, in.Path, ""
	switch {
	case f == FoursquareGlobal:
		places = in.Venues
	case f == Yelp && in.Reviews != "":
		places, path, f = in.Path, in.Reviews, YelpReviews
	}
	if places != "" {
		fh, err := os.Open(places)
		if err != nil {
			return nil, err
		}
		defer fh.Close()
		if opt.Places, err = ReadPlaces(ctx, fh, f, opt.SkipBad); err != nil {
			return nil, fmt.Errorf("%s: %w", places, err)
		}
	}
	return func(fn func(Checkin) error) (*Result, error) {
		return ScanPath(ctx, path, f, opt, fn)
	}, nil
}
