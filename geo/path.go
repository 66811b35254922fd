package geo

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ScanPath streams the check-ins at path in format f to fn, as
// ScanCheckins does for one file: a GeoLife folder (its Data folder, one
// user's, or a single PLT file) is walked in lexical order, each PLT
// file's points the check-ins of the user whose folder holds it
// (Data/000/Trajectory/….plt is user 000), its errors naming the file;
// a GeoParquet layer, which is read from its path (Parquet's footer is
// at its end), is found by its first bytes. Every other format reads
// the file at path.
func ScanPath(ctx context.Context, path string, f Format, opt Options, fn func(Checkin) error) (*Result, error) {
	if f == GeoParquet || f == Auto && isParquetFile(path) {
		res := &Result{Format: GeoParquet, sink: fn}
		return finish(res, scanGeoParquet(ctx, path, opt, res))
	}
	if f != GeoLife {
		fh, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer fh.Close()
		return ScanCheckins(ctx, fh, f, opt, fn)
	}
	total := &Result{Format: GeoLife}
	files := 0
	err := filepath.WalkDir(path, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() || !strings.EqualFold(filepath.Ext(name), ".plt") {
			return nil
		}
		files++
		return scanPLT(ctx, path, name, opt, fn, total)
	})
	if err != nil {
		return nil, err
	}
	if files == 0 {
		return nil, fmt.Errorf("geo: no GeoLife trajectories (.plt files) there: %w", ErrEmpty)
	}
	if total.records == 0 && total.Skipped == 0 {
		return nil, fmt.Errorf("geo: %w", ErrEmpty)
	}
	return total, nil
}

// scanPLT reads the PLT file name, under root, into total.
func scanPLT(ctx context.Context, root, name string, opt Options, fn func(Checkin) error, total *Result) error {
	rel, err := filepath.Rel(filepath.Dir(root), name)
	if err != nil {
		rel = name
	}
	fh, err := os.Open(name)
	if err != nil {
		return err
	}
	defer fh.Close()
	opt.User = geoLifeUser(name)
	res, err := ScanCheckins(ctx, fh, GeoLife, opt, fn)
	var pe *ParseError
	switch {
	case errors.Is(err, ErrEmpty):
		return nil // a trajectory without points
	case errors.As(err, &pe):
		pe.File = rel
		return pe
	case err != nil:
		return err
	}
	total.Lines += res.Lines
	total.records += res.records
	total.Skipped += res.Skipped
	for _, e := range res.Errors {
		if len(total.Errors) < MaxKeptErrors {
			e.File = rel
			total.Errors = append(total.Errors, e)
		}
	}
	return nil
}

// geoLifeUser is the user of a PLT file: the name of its folder, or of
// the folder above a folder named Trajectory.
func geoLifeUser(name string) string {
	dir := filepath.Dir(name)
	if strings.EqualFold(filepath.Base(dir), "Trajectory") {
		dir = filepath.Dir(dir)
	}
	return filepath.Base(dir)
}
