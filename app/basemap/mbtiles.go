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
	meta, err := m.metadata()
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

// metadata reads the name/value pairs of the metadata table.
func (m *MBTiles) metadata() (map[string]string, error) {
	rows, err := m.db.Query("SELECT name, value FROM metadata")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
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
	var data []byte
	row := (1 << t.Z) - 1 - int64(t.Y)
	err := m.db.QueryRowContext(ctx, "SELECT tile_data FROM tiles WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?",
		int64(t.Z), int64(t.X), row).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("tile %d/%d/%d: %w", t.Z, t.X, t.Y, ErrNoTile)
	}
	if err != nil {
		return nil, err
	}
	return decode(t, data)
}

// Close closes the file.
func (m *MBTiles) Close() error { return m.db.Close() }
