package geo

import (
	"context"
	"errors"
	"fmt"
	"io"
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
	switch {
	case f == GeoParquet || f == Auto && isParquetFile(path):
		res := &Result{Format: GeoParquet, sink: fn}
		res.blankRule = opt.BlankPerson
		return finish(res, scanGeoParquet(ctx, path, opt, res))
	case f == GeoLife:
		return scanGeoLife(ctx, path, opt, fn)
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	var r io.Reader = fh
	if fi, err := fh.Stat(); err == nil && opt.Progress != nil && fi.Size() > 0 {
		r = &ProgressReader{R: fh, Total: fi.Size(), Report: opt.Progress}
	}
	return ScanCheckins(ctx, r, f, opt, fn)
}

// isPLT reports whether a folder entry is a GeoLife trajectory.
func isPLT(name string, d fs.DirEntry) bool {
	return !d.IsDir() && strings.EqualFold(filepath.Ext(name), ".plt")
}

// scanGeoLife walks a GeoLife folder (ScanPath), telling opt.Progress
// the share of its trajectories read.
func scanGeoLife(ctx context.Context, path string, opt Options, fn func(Checkin) error) (*Result, error) {
	total := &Result{Format: GeoLife}
	files, all := 0, 0
	if opt.Progress != nil { // the trajectories, counted first
		_ = filepath.WalkDir(path, func(name string, d fs.DirEntry, err error) error {
			if err == nil && isPLT(name, d) {
				all++
			}
			return err
		})
	}
	err := filepath.WalkDir(path, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if !isPLT(name, d) {
			return nil
		}
		files++
		if all > 0 {
			defer opt.Progress(min(1, float64(files)/float64(all)))
		}
		return scanPLT(ctx, path, name, opt, fn, total)
	})
	switch {
	case err != nil:
		return nil, err
	case files == 0:
		return nil, fmt.Errorf("geo: no GeoLife trajectories (.plt files) there: %w", ErrEmpty)
	case total.records == 0 && total.Skipped == 0:
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

// A ProgressReader reads R, telling Report the fraction of Total bytes
// read every half per cent (nothing when Total is not positive or
// Report nil), and fails with Ctx's error once Ctx (nil: never) is done,
// so that a streaming reader stops at its next read.
type ProgressReader struct {
	Ctx    context.Context
	R      io.Reader
	Total  int64
	Report func(float64)

	n    int64
	last float64
}

func (p *ProgressReader) Read(b []byte) (int, error) {
	if p.Ctx != nil {
		if err := p.Ctx.Err(); err != nil {
			return 0, err
		}
	}
	n, err := p.R.Read(b)
	p.n += int64(n)
	if p.Total > 0 && p.Report != nil {
		if f := float64(p.n) / float64(p.Total); f-p.last >= 0.005 || f >= 1 {
			p.last = f
			p.Report(min(1, f))
		}
	}
	return n, err
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
