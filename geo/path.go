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
	if f == Auto && isParquetFile(path) {
		f = GeoParquet
	}
	if l := layoutOf(f); l != nil && l.Scan != nil {
		return l.Scan(ctx, path, opt, fn)
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

// maxGeoLifeFolders bounds the folders a GeoLife walk enters: the
// dataset has 182 users, each with one Trajectory folder.
const maxGeoLifeFolders = 1 << 16

// walkPLT calls fn with every GeoLife trajectory (a regular file named
// *.plt, any case) under root, in lexical order, root itself when it is
// one. Symbolic links are followed, to folders too (a user's Trajectory
// folder may be one, or root), each folder entered once by its real path
// so that a link back up the tree ends (filepath.WalkDir follows none,
// and skipped such users without a word). A .plt entry that is not a
// regular file (a named pipe, whose opening blocks, or a device) is an
// error. ctx is checked at every entry.
func walkPLT(ctx context.Context, root string, fn func(name string) error) error {
	st, err := os.Stat(root)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return pltEntry(root, st, fn)
	}
	w := &pltWalk{ctx: ctx, seen: map[string]bool{}, fn: fn}
	return w.dir(root)
}

// A pltWalk is the state of walkPLT: the real paths of the folders
// entered.
type pltWalk struct {
	ctx  context.Context
	seen map[string]bool
	fn   func(string) error
}

func (w *pltWalk) dir(name string) error {
	real, err := filepath.EvalSymlinks(name)
	if err != nil {
		return err
	}
	if w.seen[real] {
		return nil
	}
	if len(w.seen) >= maxGeoLifeFolders {
		return fmt.Errorf("geo: %s: more than %d folders under a GeoLife folder", name, maxGeoLifeFolders)
	}
	w.seen[real] = true
	entries, err := os.ReadDir(name)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := w.ctx.Err(); err != nil {
			return err
		}
		full := filepath.Join(name, e.Name())
		st, err := os.Stat(full) // through a link
		switch {
		case err != nil && e.Type()&fs.ModeSymlink != 0:
			continue // a link to nothing
		case err != nil:
			return err
		case st.IsDir():
			err = w.dir(full)
		default:
			err = pltEntry(full, st, w.fn)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// pltEntry calls fn with name when it names a trajectory: a regular file
// *.plt; any other .plt is an error.
func pltEntry(name string, st fs.FileInfo, fn func(string) error) error {
	if !strings.EqualFold(filepath.Ext(name), ".plt") {
		return nil
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("geo: %s: not a regular file (%s): a GeoLife trajectory is a file", name, FileKind(st.Mode()))
	}
	return fn(name)
}

// FileKind names the kind of a file that is not a regular one, for the
// errors of readers that want a file (geo's GeoLife walk, app's digests).
func FileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a folder"
	}
	return "a special file"
}

// scanGeoLife walks a GeoLife folder (ScanPath, walkPLT), telling
// opt.Progress the share of its trajectories read.
func scanGeoLife(ctx context.Context, path string, opt Options, fn func(Checkin) error) (*Result, error) {
	total := &Result{Format: GeoLife}
	files, all := 0, 0
	if opt.Progress != nil { // the trajectories, counted first
		if err := walkPLT(ctx, path, func(string) error { all++; return nil }); err != nil {
			return nil, err
		}
	}
	err := walkPLT(ctx, path, func(name string) error {
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
