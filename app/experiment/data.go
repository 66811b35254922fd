package experiment

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/privmap/privmap/app/human"
	"github.com/privmap/privmap/app/pipeline"
	"github.com/privmap/privmap/assets"
	"github.com/privmap/privmap/geo"
	"github.com/privmap/privmap/geo/census"
)

// Source is the data file of an experiment and how to read it: a
// check-in file gridded as privmap grid grids it, or a census file.
type Source struct {
	// Path is the file; empty for the embedded data (the synthetic San
	// Francisco check-ins on FW's 24×16 box, or the head of US Census
	// 1990).
	Path string
	// Format is the file's format as privmap grid's -format names it;
	// empty to detect it.
	Format string
	// Grid is how check-ins are gridded (a zero box: FW's San Francisco
	// box for the embedded check-ins, else the data's box; a zero cell:
	// FW's 0.5 km).
	Grid geo.GridOptions
}

// censusPeople is the number of people of the full US Census 1990 file,
// all of whom CEM §5.1 takes as the truth.
const censusPeople = 2458285

// Load reads the data experiment e needs from src (nil data for an
// experiment that makes its own). Cancelling ctx stops the reading.
func Load(ctx context.Context, e *Experiment, src Source) (*Data, error) {
	switch e.Data {
	case CheckinData:
		return LoadCheckins(ctx, src)
	case CensusData:
		return LoadCensus(ctx, src)
	case RecordData:
		return LoadRecords(ctx, src)
	}
	return nil, nil
}

// LoadCheckins grids the check-ins of src with each user's home cell
// (for PUM): its alphabet, the distribution of its data and every datum's
// cell.
func LoadCheckins(ctx context.Context, src Source) (*Data, error) {
	f, err := geo.ParseFormat(src.Format)
	if err != nil {
		return nil, err
	}
	opt := src.Grid
	opt.Home = true
	if opt.CellKm == 0 {
		opt.CellKm = 0.5
	}
	scan := func(fn func(geo.Checkin) error) (*geo.Result, error) {
		fh, err := os.Open(src.Path)
		if err != nil {
			return nil, err
		}
		defer fh.Close()
		return geo.ScanCheckins(ctx, fh, f, geo.Options{}, fn)
	}
	name := filepath.Base(src.Path)
	if src.Path == "" {
		if opt.Bound.IsZero() {
			opt.Bound = geo.FWBound
		}
		name = assets.DefaultName
		scan = func(fn func(geo.Checkin) error) (*geo.Result, error) {
			return geo.ScanCheckins(ctx, bytes.NewReader(assets.DefaultCheckins), f, geo.Options{}, fn)
		}
	}
	gd, _, err := geo.GridScan(scan, opt)
	if err != nil {
		if src.Path != "" && !errors.Is(err, context.Canceled) {
			return nil, fmt.Errorf("%s: %w", src.Path, err)
		}
		return nil, err
	}
	d := &Data{Alphabet: gd.Grid.Alphabet(), Truth: gd.Distribution(), Symbols: gd.Cells, Homes: gd.Homes, Source: name}
	if src.Path == "" {
		d.StandIn = "synthetic check-ins made by privmap (geo.Synthesize) stand in for Gowalla's San Francisco check-ins; give -data for real ones"
	}
	return d, nil
}

// LoadCensus tabulates src, a census file (US Census 1990 or UCI Adult),
// on CEM Table 2's attributes: age, sex, income and marital status (400
// categories on US Census 1990; census.CEMTable2's analogue of 120 on
// Adult). Records with a missing value are left out.
func LoadCensus(ctx context.Context, src Source) (*Data, error) {
	return readCensus(ctx, src, tabulateCEM)
}

// readCensus reads src's census file, or the embedded head of US Census
// 1990 when it names none, with read; errors name the file.
func readCensus(ctx context.Context, src Source, read func(ctx context.Context, r io.Reader, format, name string) (*Data, error)) (*Data, error) {
	if src.Path == "" {
		return read(ctx, bytes.NewReader(assets.Census1990Head), src.Format, assets.Census1990HeadName)
	}
	fh, err := os.Open(src.Path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	d, err := read(ctx, fh, src.Format, filepath.Base(src.Path))
	if err != nil && !errors.Is(err, context.Canceled) {
		return nil, fmt.Errorf("%s: %w", src.Path, err)
	}
	return d, err
}

// LoadRecords reads the records of a census file (UCI Adult, or US Census
// 1990; by default the embedded head of US Census 1990) on the attributes
// of PM §IV-C's count queries (pmAdultAttrs), each value coded. A record
// missing one of them ("?") is left out.
func LoadRecords(ctx context.Context, src Source) (*Data, error) {
	return readCensus(ctx, src, readRecords)
}

// maxRecordValues bounds an attribute's values, coded in 16 bits.
const maxRecordValues = 1 << 16

// readRecords reads a census file's records on the query attributes.
func readRecords(ctx context.Context, r io.Reader, format, name string) (*Data, error) {
	cr, err := censusReader(ctx, r, format)
	if err != nil {
		return nil, err
	}
	f := cr.Format()
	attrs := pmAdultAttrs[f.String()]
	cols, err := columnsOf(attrs, cr.Columns())
	if err != nil {
		return nil, err
	}
	d := &Data{Attrs: attrs, Records: make([][]uint16, len(attrs)), Values: make([]int, len(attrs))}
	codes := make([]map[string]uint16, len(attrs))
	for i := range codes {
		codes[i] = map[string]uint16{}
	}
	for {
		rec, err := cr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(cols, func(c int) bool { return rec[c] == "?" || rec[c] == "" }) {
			continue
		}
		for i, c := range cols {
			v, err := code(codes[i], rec[c], attrs[i])
			if err != nil {
				return nil, err
			}
			d.Records[i] = append(d.Records[i], v)
		}
	}
	if len(d.Records[0]) == 0 {
		return nil, errors.New("no record with every attribute of the queries")
	}
	for i := range codes {
		d.Values[i] = len(codes[i])
	}
	d.Source = fmt.Sprintf("%s, %s people, attributes %s", name, human.Thousands(len(d.Records[0])), strings.Join(attrs, ", "))
	if f != census.Adult {
		d.StandIn = "US Census 1990's coded age, sex, income and marital status stand in for UCI Adult's categorical attributes; give -data adult.data for PM's"
	}
	return d, nil
}

// columnsOf returns the index of each attribute among the columns.
func columnsOf(attrs, columns []string) ([]int, error) {
	cols := make([]int, len(attrs))
	for i, a := range attrs {
		cols[i] = slices.IndexFunc(columns, func(c string) bool { return strings.EqualFold(c, a) })
		if cols[i] < 0 {
			return nil, fmt.Errorf("no column %s", a)
		}
	}
	return cols, nil
}

// code returns the code of an attribute's value, giving a new value the
// next code.
func code(codes map[string]uint16, value, attr string) (uint16, error) {
	if v, ok := codes[value]; ok {
		return v, nil
	}
	if len(codes) == maxRecordValues {
		return 0, fmt.Errorf("%s has more than %d values", attr, maxRecordValues)
	}
	v := uint16(len(codes))
	codes[strings.Clone(value)] = v
	return v, nil
}

// censusReader reads a census file from r in format, or in the format
// detected from its first line; ctx stops the reading.
func censusReader(ctx context.Context, r io.Reader, format string) (*census.Reader, error) {
	br := bufio.NewReader(pipeline.ContextReader(ctx, r))
	var f census.Format
	if format != "" {
		var err error
		if f, err = census.ParseFormat(format); err != nil {
			return nil, err
		}
	} else {
		var ok bool
		if f, ok = census.DetectReader(br); !ok {
			return nil, errors.New("not a census file that privmap reads (US Census 1990 with its caseid header, or UCI Adult); give -format")
		}
	}
	return census.NewReader(br, f)
}

// tabulateCEM reads a census file from r, in format (empty: detected
// from the first line), on CEM Table 2's attributes.
func tabulateCEM(ctx context.Context, r io.Reader, format, name string) (*Data, error) {
	cr, err := censusReader(ctx, r, format)
	if err != nil {
		return nil, err
	}
	f := cr.Format()
	tab, err := census.Tabulate(cr, census.CEMTable2(f), census.Options{Missing: census.Drop})
	if err != nil {
		return nil, err
	}
	if len(tab.Data) == 0 {
		return nil, errors.New("no record with every attribute of CEM Table 2")
	}
	a, err := tab.Alphabet(false)
	if err != nil {
		return nil, err
	}
	d := &Data{Alphabet: a, Truth: tab.Distribution(), Symbols: tab.Data, Source: fmt.Sprintf("%s, %s people", name, human.Thousands(len(tab.Data)))}
	switch {
	case f == census.Adult:
		d.StandIn = fmt.Sprintf("UCI Adult stands in for US Census 1990: CEM Table 2's attributes as census.CEMTable2 maps them (%d categories, not 400)", a.Len())
	case len(tab.Data) < censusPeople:
		d.StandIn = fmt.Sprintf("%s of US Census 1990's %s people stand in for all of them", human.Thousands(len(tab.Data)), human.Thousands(censusPeople))
	}
	return d, nil
}
