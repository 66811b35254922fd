package basemap

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"image"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/paulmach/orb/maptile"
	_ "modernc.org/sqlite" // the database/sql driver "sqlite", pure Go
)

// MBTiles is a tile package in the MBTiles 1.3 format: an SQLite file
// with a tiles table (zoom_level, tile_column, tile_row, tile_data; rows
// counted from the south, as TMS does) and a metadata table of name and
// value. Only raster tiles (png, jpg) can be drawn.
type MBTiles struct {
	db          *sql.DB
	attribution string
	maxZoom     maptile.Zoom
}

// OpenMBTiles opens an MBTiles file read-only and reads its metadata.
func OpenMBTiles(path string) (*MBTiles, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, err // sqlite would create a missing file
	}
	// An absolute path: a relative one would read as the URI's authority
	// ("file://tiles.mbtiles").
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	u := url.URL{Scheme: "file", Path: abs, RawQuery: "mode=ro&_pragma=query_only(1)"}
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	m := &MBTiles{db: db, maxZoom: 19}
	ctx, cancel := context.WithTimeout(context.Background(), MetadataTime)
	defer cancel()
	meta, err := m.metadata(ctx)
	if ctx.Err() != nil {
		err = fmt.Errorf("its metadata took more than %v to read (a view that never ends?)", MetadataTime)
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: not an MBTiles file: %w", path, err)
	}
	switch meta["format"] {
	case "", "png", "jpg", "jpeg":
	default:
		db.Close()
		return nil, fmt.Errorf("%s: its tiles are %s; privmap draws raster tiles (png or jpg)", path, meta["format"])
	}
	m.attribution = meta["attribution"]
	if z, err := strconv.Atoi(meta["maxzoom"]); err == nil && z >= 0 && z <= 30 {
		m.maxZoom = maptile.Zoom(z)
	}
	return m, nil
}

// MetadataTime bounds the reading of an MBTiles file's metadata, and
// maxMetadata its rows: the tables may be views, and a recursive view
// never ends.
var MetadataTime = 10 * time.Second

const maxMetadata = 1000

// metadata reads the name/value pairs of the metadata table.
func (m *MBTiles) metadata(ctx context.Context) (map[string]string, error) {
	rows, err := m.db.QueryContext(ctx, "SELECT name, substr(value, 1, 4096) FROM metadata LIMIT ?", maxMetadata+1)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for n := 0; rows.Next(); n++ {
		if n == maxMetadata {
			return nil, fmt.Errorf("its metadata has more than %d rows", maxMetadata)
		}
		var k, v sql.NullString
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		out[k.String] = v.String
	}
	return out, rows.Err()
}

// Attribution returns the metadata's attribution.
func (m *MBTiles) Attribution() string { return m.attribution }

// MaxZoom returns the metadata's maxzoom, or 19.
func (m *MBTiles) MaxZoom() maptile.Zoom { return m.maxZoom }

// Tile reads tile t; MBTiles counts rows from the south, so XYZ row y is
// tile_row 2^z − 1 − y.
func (m *MBTiles) Tile(ctx context.Context, t maptile.Tile) (image.Image, error) {
	var (
		data []byte
		size sql.NullInt64
	)
	row := (1 << t.Z) - 1 - int64(t.Y)
	// A tile's bytes are read only within maxTileBytes; the query stops
	// with ctx (Fetch's deadline), which interrupts SQLite.
	err := m.db.QueryRowContext(ctx, "SELECT CASE WHEN length(tile_data) <= ? THEN tile_data END, length(tile_data) FROM tiles WHERE zoom_level = ? AND tile_column = ? AND tile_row = ? LIMIT 1",
		maxTileBytes, int64(t.Z), int64(t.X), row).Scan(&data, &size)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("tile %d/%d/%d: %w", t.Z, t.X, t.Y, ErrNoTile)
	}
	if err != nil {
		return nil, err
	}
	// A row whose tile_data is NULL holds no picture: the tile is missing,
	// as if the row were not there.
	if !size.Valid {
		return nil, fmt.Errorf("tile %d/%d/%d: tile_data is NULL: %w", t.Z, t.X, t.Y, ErrNoTile)
	}
	if size.Int64 > maxTileBytes {
		return nil, fmt.Errorf("tile %d/%d/%d: %d bytes, more than %d", t.Z, t.X, t.Y, size.Int64, maxTileBytes)
	}
	return decode(t, data)
}

// Close closes the file.
func (m *MBTiles) Close() error { return m.db.Close() }
