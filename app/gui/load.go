package gui

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/storage"
	"github.com/paulmach/orb"

	"github.com/privmap/privmap/assets"
	"github.com/privmap/privmap/geo"
	"github.com/privmap/privmap/geo/census"
)

// A source is a check-in file that can be opened (again) for reading.
type source struct {
	name string
	// path is the file's path, empty for data not read from a file.
	path string
	// open returns the content and its size in bytes, or −1 if unknown.
	open func() (io.ReadCloser, int64, error)
	// mapping, when not nil, is the column mapping chosen in the import
	// dialog, by which a delimited file is read.
	mapping *geo.Mapping
	// layout, when not nil, names a format read from the path with its
	// places file (a study's foursquare-global, yelp or geolife source).
	layout *geo.Input
	// blank says how a record naming no person is read in a file that
	// names people (geo.Options.BlankPerson: refused until the person
	// chooses), personKey when two ids are one person
	// (geo.GridOptions.PersonKey).
	blank, personKey string
}

// input is the geo.Input that src reads.
func (src source) input() geo.Input {
	if src.layout != nil {
		return *src.layout
	}
	return geo.Input{Path: src.path}
}

// fromPath reports whether src is read from its path (geo.ScanPath).
func (src source) fromPath() bool { return src.path != "" && src.input().FromPath() }

// bytesSource is an in-memory file, such as the embedded default data.
func bytesSource(name string, b []byte) source {
	return source{name: name, open: func() (io.ReadCloser, int64, error) {
		return io.NopCloser(bytes.NewReader(b)), int64(len(b)), nil
	}}
}

// defaultSource is privmap's embedded default data.
func defaultSource() source { return bytesSource(assets.DefaultName, assets.DefaultCheckins) }

// uriSource is a file chosen in a dialog or dropped on the window.
func uriSource(u fyne.URI) source {
	path := ""
	if u.Scheme() == "file" {
		path = u.Path()
	}
	return source{name: u.Name(), path: path, open: func() (io.ReadCloser, int64, error) {
		rc, err := storage.Reader(u)
		if err != nil {
			return nil, -1, err
		}
		size := int64(-1)
		if u.Scheme() == "file" {
			if fi, err := os.Stat(u.Path()); err == nil {
				size = fi.Size()
			}
		}
		return rc, size, nil
	}}
}

// readSource reads a source off the UI goroutine: a census file (told by
// its first line, census.Detect) is tabulated over the attributes of ch;
// check-ins are gridded, and if most fall outside opt.Bound the grid is
// fitted to the data instead.
func readSource(ctx context.Context, src source, skipBad bool, opt geo.GridOptions, ch censusChoice, report func(float64)) (*dataset, error) {
	if !src.fromPath() {
		rc, size, err := src.open()
		if err != nil {
			return nil, err
		}
		pr := &geo.ProgressReader{Ctx: ctx, R: rc, Total: size, Report: report}
		br := bufio.NewReaderSize(pr, 64<<10)
		if f, ok := census.DetectReader(br); ok && src.mapping == nil {
			defer rc.Close()
			return readCensus(br, src, f, ch, skipBad)
		}
		_ = rc.Close()
	}
	ds, err := gridSource(ctx, src, skipBad, opt, report)
	if err != nil || 2*ds.grid.Outside > ds.grid.Data {
		opt.Bound = orb.Bound{}
		ds, err = gridSource(ctx, src, skipBad, opt, report)
		if ds != nil {
			ds.fitted = true
		}
	}
	return ds, err
}

// gridSource grids the check-ins of src as they stream past
// (geo.GridScan), so that a file of any size is gridded in memory bounded
// by its users. Each pass opens src afresh; report gets the fraction of
// all passes read, and the reading stops once ctx is done.
func gridSource(ctx context.Context, src source, skipBad bool, opt geo.GridOptions, report func(float64)) (*dataset, error) {
	passes, pass := opt.Passes(), 0
	opt.PersonKey = src.personKey
	var fromPath geo.Scan
	if src.fromPath() {
		read := geo.Options{SkipBad: skipBad, Mapping: src.mapping, BlankPerson: src.blank, Progress: func(f float64) {
			if report != nil { // a file not sorted by user takes a pass more
				report(min(1, (float64(pass-1)+f)/float64(passes)))
			}
		}}
		var err error
		if fromPath, err = src.input().Scan(ctx, read); err != nil {
			return nil, err
		}
	}
	gd, res, err := geo.GridScan(func(fn func(geo.Checkin) error) (*geo.Result, error) {
		done := float64(pass)
		if fromPath != nil {
			pass++
			return fromPath(fn)
		}
		rc, size, err := src.open()
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		pass++
		pr := &geo.ProgressReader{Ctx: ctx, R: rc, Total: size, Report: func(f float64) {
			if report != nil { // a file not sorted by user takes a pass more
				report(min(1, (done+f)/float64(passes)))
			}
		}}
		return geo.ScanCheckins(ctx, pr, geo.Auto, geo.Options{SkipBad: skipBad, Mapping: src.mapping, BlankPerson: src.blank}, fn)
	}, opt)
	if err != nil {
		return nil, err
	}
	return &dataset{src: src, skipBad: skipBad, checkins: &checkins{res: res, grid: gd}}, nil
}
