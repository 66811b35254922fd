package basemap

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/maptile"

	"github.com/privmap/privmap/internal/testtool"
)

// pngHeader returns the start of a PNG that declares w×h pixels: its
// signature and a valid IHDR chunk, nothing more.
func pngHeader(w, h uint32) []byte {
	b := []byte("\x89PNG\r\n\x1a\n")
	ihdr := binary.BigEndian.AppendUint32([]byte("IHDR"), w)
	ihdr = binary.BigEndian.AppendUint32(ihdr, h)
	ihdr = append(ihdr, 8, 6, 0, 0, 0) // 8-bit RGBA
	b = binary.BigEndian.AppendUint32(b, 13)
	b = append(b, ihdr...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(ihdr))
}

// TestDecodeBounds decodes tiles whose headers declare 10⁹ × 10⁹ pixels
// (a panic in the tile worker), 10⁵ × 10⁵ (out of memory) and 5000 × 1:
// each is refused from its header alone; a 256-pixel tile decodes.
func TestDecodeBounds(t *testing.T) {
	tl := maptile.New(1, 2, 3)
	for _, sz := range [][2]uint32{{1e9, 1e9}, {1e5, 1e5}, {5000, 1}, {2049, 2049}} {
		_, err := decode(tl, pngHeader(sz[0], sz[1]))
		if err == nil || !strings.Contains(err.Error(), "tile 3/1/2: a tile of") {
			t.Errorf("%d×%d: %v, want it refused before decoding", sz[0], sz[1], err)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewNRGBA(image.Rect(0, 0, 256, 256))); err != nil {
		t.Fatal(err)
	}
	if img, err := decode(tl, buf.Bytes()); err != nil || img.Bounds().Dx() != 256 {
		t.Errorf("a 256-pixel tile: %v", err)
	}
}

// funcSource is a Source whose tiles tile gives.
type funcSource func(ctx context.Context, t maptile.Tile) (image.Image, error)

func (f funcSource) Tile(ctx context.Context, t maptile.Tile) (image.Image, error) { return f(ctx, t) }
func (funcSource) Attribution() string                                             { return "test" }
func (funcSource) MaxZoom() maptile.Zoom                                           { return 18 }

// TestFetchBounded fetches from a source whose every tile panics, and
// from one that never answers: the first is an error, not a crash; the
// second ends at FetchTime with an error saying so, and a cancelled
// context ends it at once with the context's error.
func TestFetchBounded(t *testing.T) {
	b := orb.Bound{Min: orb.Point{-122.5, 37.7}, Max: orb.Point{-122.4, 37.8}}
	panics := funcSource(func(context.Context, maptile.Tile) (image.Image, error) { panic("boom") })
	if _, err := Fetch(context.Background(), panics, b, 400, 300); err == nil || !strings.Contains(err.Error(), "internal error: boom") {
		t.Errorf("panicking tiles: %v", err)
	}
	hangs := funcSource(func(ctx context.Context, _ maptile.Tile) (image.Image, error) { <-ctx.Done(); return nil, ctx.Err() })
	defer func(d time.Duration) { FetchTime = d }(FetchTime)
	FetchTime = 50 * time.Millisecond
	if _, err := Fetch(context.Background(), hangs, b, 400, 300); err == nil || err.Error() != "basemap: no tile arrived within 50ms" {
		t.Errorf("a source that never answers: %v", err)
	}
	FetchTime = time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Fetch(ctx, hangs, b, 400, 300); err != context.Canceled {
		t.Errorf("cancelled: %v", err)
	}
}

// FuzzTile decodes any bytes as a tile: an image within the bounds or an
// error, never a panic or an allocation past them.
func FuzzTile(f *testing.F) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewNRGBA(image.Rect(0, 0, 4, 4))); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add(pngHeader(1e9, 1e9))
	f.Fuzz(func(t *testing.T, b []byte) {
		img, err := decode(maptile.New(0, 0, 0), b)
		if err == nil && img.Bounds().Dx()*img.Bounds().Dy() > maxTilePixels {
			t.Errorf("decoded %v", img.Bounds())
		}
	})
}

// sqliteFile makes an SQLite file at path by running stmts.
func sqliteFile(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// recursive is a view body that never ends.
const recursive = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT "

// TestMBTilesViews opens MBTiles files whose metadata or tiles are
// recursive views that never yield a row (11 minutes at full CPU, deaf
// to SIGTERM, before): the metadata's is refused within MetadataTime;
// the tiles' queries stop at Fetch's deadline.
func TestMBTilesViews(t *testing.T) {
	defer func(m, f time.Duration) { MetadataTime, FetchTime = m, f }(MetadataTime, FetchTime)
	MetadataTime, FetchTime = 200*time.Millisecond, 200*time.Millisecond
	dir := t.TempDir()
	meta := filepath.Join(dir, "meta.mbtiles")
	sqliteFile(t, meta, "CREATE VIEW metadata AS "+recursive+"'name' AS name, n AS value FROM r WHERE n < 0",
		"CREATE TABLE tiles (zoom_level integer, tile_column integer, tile_row integer, tile_data blob)")
	start := testtool.CPUTime()
	if _, err := OpenMBTiles(meta); err == nil || !strings.Contains(err.Error(), "took more than 200ms") {
		t.Errorf("recursive metadata: %v", err)
	}
	if d := testtool.CPUTime() - start; d > 5*time.Second {
		t.Errorf("recursive metadata took %v of processor time to refuse", d)
	}

	tiles := filepath.Join(dir, "tiles.mbtiles")
	sqliteFile(t, tiles, "CREATE TABLE metadata (name text, value text)", "INSERT INTO metadata VALUES ('format', 'png')",
		"CREATE VIEW tiles AS "+recursive+"0 AS zoom_level, n AS tile_column, 0 AS tile_row, x'00' AS tile_data FROM r WHERE n < 0")
	m, err := OpenMBTiles(tiles)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	b := orb.Bound{Min: orb.Point{-122.5, 37.7}, Max: orb.Point{-122.4, 37.8}}
	start = testtool.CPUTime()
	if _, err := Fetch(context.Background(), m, b, 400, 300); err == nil {
		t.Error("a recursive tiles view gave tiles")
	}
	if d := testtool.CPUTime() - start; d > 5*time.Second {
		t.Errorf("a recursive tiles view took %v of processor time to stop", d)
	}
}

// FuzzMBTiles opens any bytes as an MBTiles file and fetches a picture
// from it: tiles or an error within the deadlines, never a panic or a
// hang.
func FuzzMBTiles(f *testing.F) {
	b := orb.Bound{Min: orb.Point{-122.5, 37.7}, Max: orb.Point{-122.4, 37.8}}
	path := filepath.Join(f.TempDir(), "seed.mbtiles")
	writeMBTiles(f, path, "png", cover(b, ZoomFor(b, 64, 64, 19)))
	seed, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	MetadataTime, FetchTime = time.Second, time.Second
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "f.mbtiles")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := OpenMBTiles(path)
		if err != nil {
			return
		}
		defer m.Close()
		_, _ = Fetch(context.Background(), m, b, 64, 64)
	})
}
