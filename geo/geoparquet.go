package geo

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/wkb"

	"github.com/privmap/privmap/internal/parquetcheck"
)

// geoMetadata is the "geo" key of a GeoParquet file's metadata
// (GeoParquet 1.0 and 1.1): its primary geometry column, how it is
// encoded, and its coordinate reference system.
type geoMetadata struct {
	PrimaryColumn string `json:"primary_column"`
	Columns       map[string]struct {
		Encoding string          `json:"encoding"`
		CRS      json.RawMessage `json:"crs"`
	} `json:"columns"`
}

// geoParquetLayout is the record of a GeoParquet point layer
// (scanGeoParquet), read from its path.
var geoParquetLayout = Layout{Format: GeoParquet, Name: "geoparquet", Names: []string{"geoparquet", "parquet"}, Shown: []string{"geoparquet"},
	Note: "a point layer", Exts: []string{".parquet"}, FromPath: true, Unit: "rows",
	Scan: func(ctx context.Context, path string, opt Options, fn func(Checkin) error) (*Result, error) {
		res := &Result{Format: GeoParquet, sink: fn, blankRule: opt.BlankPerson}
		return finish(res, scanGeoParquet(ctx, path, opt, res))
	}}

// lonLatCRS reports whether a GeoParquet column's crs (PROJJSON; absent
// or null: OGC:CRS84) has longitude and latitude in degrees as x and y:
// OGC:CRS84, or EPSG:4326, whose x and y GeoParquet also writes as
// longitude and latitude.
func lonLatCRS(raw json.RawMessage) bool {
	if len(raw) == 0 || string(raw) == "null" {
		return true
	}
	var crs struct {
		ID struct {
			Authority string `json:"authority"`
			Code      any    `json:"code"`
		} `json:"id"`
	}
	if json.Unmarshal(raw, &crs) != nil {
		return false
	}
	code := fmt.Sprint(crs.ID.Code)
	return crs.ID.Authority == "OGC" && code == "CRS84" || crs.ID.Authority == "EPSG" && code == "4326"
}

// scanGeoParquet reads a GeoParquet point layer: each row a check-in at
// its geometry's point (WKB or GeoParquet's native point encoding),
// its person, time and place from the columns named as a header's would
// be, or as the mapping names them. The file's footer and pages are
// checked before parquet-go reads them (parquetcheck); rows are read a
// thousand at a time, so that memory stays that of a page. ctx stops
// the reading.
func scanGeoParquet(ctx context.Context, path string, opt Options, res *Result) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("geo: not a readable Parquet file: %v", p)
		}
	}()
	fh, err := os.Open(path)
	if err != nil {
		return err
	}
	defer fh.Close()
	pf, _, err := parquetcheck.Open(ctx, fh)
	if err != nil {
		return fmt.Errorf("geo: %w", err)
	}
	layer, err := newParquetLayer(pf, opt.Mapping)
	if err != nil {
		return err
	}
	res.NoPerson, res.hasPerson = layer.user < 0, layer.user >= 0
	rows := make([]parquet.Row, 1024)
	total := max(pf.NumRows(), 1)
	for _, rg := range pf.RowGroups() {
		if err := layer.readGroup(ctx, rg, rows, res, opt.SkipBad); err != nil {
			return err
		}
		if opt.Progress != nil {
			opt.Progress(min(1, float64(layer.row)/float64(total)))
		}
	}
	return nil
}

// A parquetLayer knows which leaf columns of a GeoParquet file hold what.
type parquetLayer struct {
	// geom is the WKB column; x and y the native point encoding's.
	geom, x, y int
	// user, time and loc are leaf columns, −1 where absent; text
	// writes a leaf's value as text.
	user, time, loc int
	text            map[int]func(parquet.Value) string
	row             int
}

// newParquetLayer reads the file's geo metadata and finds its columns.
func newParquetLayer(pf *parquet.File, m *Mapping) (*parquetLayer, error) {
	raw, ok := pf.Lookup("geo")
	if !ok || raw == "" {
		return nil, errors.New("geo: a Parquet file without GeoParquet's \"geo\" metadata: not a GeoParquet layer (a reports table is read by estimate)")
	}
	var gm geoMetadata
	if err := json.Unmarshal([]byte(raw), &gm); err != nil {
		return nil, fmt.Errorf("geo: GeoParquet metadata: %w", err)
	}
	col, ok := gm.Columns[gm.PrimaryColumn]
	if !ok {
		return nil, fmt.Errorf("geo: GeoParquet metadata: the primary column %q is not described", gm.PrimaryColumn)
	}
	if !lonLatCRS(col.CRS) {
		return nil, fmt.Errorf("geo: GeoParquet column %q is not in longitude and latitude (OGC:CRS84 or EPSG:4326): reproject it to WGS 84 first (ogr2ogr -t_srs EPSG:4326)", gm.PrimaryColumn)
	}
	l := &parquetLayer{geom: -1, x: -1, y: -1, text: map[int]func(parquet.Value) string{}}
	sc := pf.Schema()
	if err := l.geometry(sc, gm.PrimaryColumn, col.Encoding); err != nil {
		return nil, err
	}
	if err := l.attributes(sc, gm.PrimaryColumn, m); err != nil {
		return nil, err
	}
	return l, nil
}

// geometry finds the leaf columns of the geometry column name in its
// encoding: WKB, or GeoParquet's native point (x and y).
func (l *parquetLayer) geometry(sc *parquet.Schema, name, encoding string) error {
	switch strings.ToLower(encoding) {
	case "wkb":
		leaf, ok := sc.Lookup(name)
		if !ok {
			return fmt.Errorf("geo: GeoParquet: no column %q", name)
		}
		l.geom = leaf.ColumnIndex
	case "point":
		x, okx := sc.Lookup(name, "x")
		y, oky := sc.Lookup(name, "y")
		if !okx || !oky {
			return fmt.Errorf("geo: GeoParquet: the point column %q has no x and y", name)
		}
		l.x, l.y = x.ColumnIndex, y.ColumnIndex
	default:
		return fmt.Errorf("geo: GeoParquet column %q is encoded as %q: privmap reads points, as WKB or GeoParquet's point encoding", name, encoding)
	}
	return nil
}

// attributes finds the person, time and place among the top-level leaf
// columns other than the geometry, as a header's (or the mapping's).
func (l *parquetLayer) attributes(sc *parquet.Schema, geometry string, m *Mapping) error {
	var names []string
	var leaves []int
	for _, f := range sc.Fields() {
		if leaf, ok := sc.Lookup(f.Name()); ok && f.Leaf() && f.Name() != geometry {
			names, leaves = append(names, f.Name()), append(leaves, leaf.ColumnIndex)
			l.text[leaf.ColumnIndex] = parquetText(f.Type().LogicalType())
		}
	}
	props := properties{m: m}
	if err := props.check(); err != nil {
		return err
	}
	c := headerColumns(names)
	if err := m.applyTo(&c, names, true); err != nil {
		return fmt.Errorf("geo: %w", err)
	}
	leaf := func(i int) int {
		if i < 0 {
			return -1
		}
		return leaves[i]
	}
	l.user, l.time, l.loc = leaf(c.user), leaf(c.time), leaf(c.loc)
	return nil
}

// parquetText writes a value of logical type lt as text: a timestamp as
// RFC 3339 in UTC, anything else as parquet-go writes it.
func parquetText(lt *format.LogicalType) func(parquet.Value) string {
	if lt != nil {
		if ts, ok := lt.Value.(*format.TimestampType); ok && ts.Unit.Value != nil {
			unit := ts.Unit.Value.Duration()
			return func(v parquet.Value) string {
				return time.Unix(0, 0).Add(time.Duration(v.Int64()) * unit).UTC().Format(time.RFC3339Nano)
			}
		}
	}
	return func(v parquet.Value) string {
		if v.Kind() == parquet.ByteArray {
			return string(v.ByteArray())
		}
		return v.String()
	}
}

// readGroup reads a row group's rows into res.
func (l *parquetLayer) readGroup(ctx context.Context, rg parquet.RowGroup, rows []parquet.Row, res *Result, skipBad bool) error {
	rr := rg.Rows()
	defer rr.Close()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := rr.ReadRows(rows)
		if n == 0 && err == nil {
			// A damaged page can yield nothing, forever.
			return fmt.Errorf("geo: row %d: not a readable Parquet file: a page yields no rows", l.row+1)
		}
		for _, r := range rows[:n] {
			l.row++
			res.Lines = l.row
			c, cerr := l.checkin(r)
			if err := res.recordAs("row", l.row, c, cerr, skipBad); err != nil {
				return err
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("geo: row %d: %w", l.row+1, err)
		}
	}
}

// checkin reads a row as a check-in.
func (l *parquetLayer) checkin(r parquet.Row) (Checkin, error) {
	var c Checkin
	var pt orb.Point
	var x, y *float64
	var timeText string
	found := false
	for _, v := range r {
		col := v.Column()
		switch {
		case v.IsNull():
		case col == l.geom:
			p, err := wkbPoint(v.ByteArray())
			if err != nil {
				return c, err
			}
			pt, found = p, true
		case col == l.x:
			x = new(v.Double())
		case col == l.y:
			y = new(v.Double())
		case col == l.user:
			c.User = l.text[col](v)
		case col == l.loc:
			c.Location = l.text[col](v)
		case col == l.time:
			timeText = l.text[col](v)
		}
	}
	if x != nil && y != nil {
		pt, found = orb.Point{*x, *y}, true
	}
	if !found {
		return c, fmt.Errorf("%w: it has none", ErrNotPoint)
	}
	return placed(c, pt, timeText)
}

// placed returns c at the point pt (longitude, latitude), checked, and
// at the time timeText ("": none).
func placed(c Checkin, pt orb.Point, timeText string) (Checkin, error) {
	p, err := floatPoint(pt[1], pt[0])
	if err != nil {
		return Checkin{}, err
	}
	c.Point = p
	if timeText != "" {
		if c.Time, err = parseTime(timeText); err != nil {
			return Checkin{}, fieldError(ErrBadTime, timeText)
		}
	}
	return c, nil
}

// wkbTypes names WKB's geometry types by their code (OGC Simple Features).
var wkbTypes = [...]string{1: "Point", 2: "LineString", 3: "Polygon", 4: "MultiPoint", 5: "MultiLineString", 6: "MultiPolygon", 7: "GeometryCollection"}

// wkbPoint decodes a WKB point. The geometry's type is read from its
// header first and anything but a point refused there, before orb
// decodes it: orb's decoder recurses into a collection's members, and a
// GeometryCollection nested millions deep overflowed the stack. The
// type's code may carry ISO's Z and M (+1000, +2000, +3000) or EWKB's
// flags (the top three bits).
func wkbPoint(b []byte) (orb.Point, error) {
	if len(b) < 5 || b[0] > 1 {
		return orb.Point{}, fmt.Errorf("%w: its WKB cannot be read: %d bytes without a byte order and type", ErrNotPoint, len(b))
	}
	var order binary.ByteOrder = binary.BigEndian
	if b[0] == 1 {
		order = binary.LittleEndian
	}
	code := (order.Uint32(b[1:5]) &^ 0xe0000000) % 1000
	if code != 1 {
		name := fmt.Sprintf("WKB geometry of type %d", code)
		if int(code) < len(wkbTypes) && wkbTypes[code] != "" {
			name = wkbTypes[code]
		}
		return orb.Point{}, fmt.Errorf("%w: a %s", ErrNotPoint, name)
	}
	g, err := wkb.Unmarshal(b)
	if err != nil {
		return orb.Point{}, fmt.Errorf("%w: its WKB cannot be read: %v", ErrNotPoint, err)
	}
	p, ok := g.(orb.Point)
	if !ok {
		return orb.Point{}, fmt.Errorf("%w: a %s", ErrNotPoint, g.GeoJSONType())
	}
	return p, nil
}

// isParquetFile reports whether the file at path starts with Parquet's
// magic number.
func isParquetFile(path string) bool {
	fh, err := os.Open(path)
	if err != nil {
		return false
	}
	defer fh.Close()
	var head [4]byte
	_, err = io.ReadFull(fh, head[:])
	return err == nil && string(head[:]) == "PAR1"
}
