package basemap

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/maptile"
)

// sfBox is San Francisco's box of the project's default data.
var sfBox = orb.Bound{Min: orb.Point{-122.5139, 37.7303}, Max: orb.Point{-122.3815, 37.7943}}

// tilePNG returns a 256-pixel PNG of one colour, which encodes the tile.
func tilePNG(t maptile.Tile) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, TileSize, TileSize))
	c := tileColour(t)
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, c.A
	}
	var b bytes.Buffer
	png.Encode(&b, img)
	return b.Bytes()
}

func tileColour(t maptile.Tile) color.NRGBA {
	return color.NRGBA{uint8(t.X), uint8(t.Y), uint8(t.Z * 10), 255}
}

// tileServer serves tilePNG at /{z}/{x}/{y}.png, counting requests and
// the most at once, and recording the User-Agent.
type tileServer struct {
	*httptest.Server
	requests, inFlight, most atomic.Int64
	agent                    atomic.Value
	down                     atomic.Bool
}

func newTileServer(t *testing.T) *tileServer {
	ts := &tileServer{}
	ts.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ts.requests.Add(1)
		n := ts.inFlight.Add(1)
		defer ts.inFlight.Add(-1)
		for {
			m := ts.most.Load()
			if n <= m || ts.most.CompareAndSwap(m, n) {
				break
			}
		}
		ts.agent.Store(r.UserAgent())
		time.Sleep(2 * time.Millisecond) // let requests overlap
		if ts.down.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		var z, x, y int
		parts := strings.Split(strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/"), ".png"), "/")
		if len(parts) == 3 {
			z, _ = strconv.Atoi(parts[0])
			x, _ = strconv.Atoi(parts[1])
			y, _ = strconv.Atoi(parts[2])
		}
		if len(parts) != 3 || z > 18 {
			http.NotFound(w, r)
			return
		}
		w.Write(tilePNG(maptile.New(uint32(x), uint32(y), maptile.Zoom(z))))
	}))
	t.Cleanup(ts.Close)
	return ts
}

func TestXYZURLAndZoom(t *testing.T) {
	s, err := NewXYZ("https://{s}.tile.example/{z}/{x}/{y}.png", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.url(maptile.New(1, 2, 3)); got != "https://a.tile.example/3/1/2.png" {
		t.Errorf("url %s", got)
	}
	for _, bad := range []string{"https://x/{z}/{x}.png", "ftp://x/{z}/{x}/{y}", "tiles/{z}/{x}/{y}"} {
		if _, err := Open(bad, Options{}); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	if s.Attribution() != "tiles: tile.example" {
		t.Errorf("a server without a credit is credited %q, want its host", s.Attribution())
	}
	osm, _ := NewXYZ(OSMTemplate, Options{})
	if osm.Attribution() != OSMAttribution || osm.opt.MaxAge != 7*24*time.Hour {
		t.Errorf("OSM: attribution %q, max age %v", osm.Attribution(), osm.opt.MaxAge)
	}
	// San Francisco's 13 km box 600 pixels wide: 360° over 256·2^z
	// pixels is at least 600 pixels over 0.13° from zoom 13 on, which
	// needs 4×3 tiles.
	if z := ZoomFor(sfBox, 600, 300, 19); z != 13 || len(cover(sfBox, z)) != 12 {
		t.Errorf("zoom %d, %d tiles", z, len(cover(sfBox, z)))
	}
	// A 6000-pixel picture of the whole world would need 2^10 tiles: it
	// is drawn from at most MaxTiles.
	world := orb.Bound{Min: orb.Point{-180, -80}, Max: orb.Point{180, 80}}
	if z := ZoomFor(world, 6000, 3000, 19); len(cover(world, z)) > MaxTiles || coverCount(world, z+1) <= MaxTiles {
		t.Errorf("world at zoom %d: %d tiles", z, len(cover(world, z)))
	}
}

// TestXYZFetchAndCache fetches San Francisco's tiles from a local server:
// named by User-Agent, never more than two requests at once, then served
// from the cache without a request, fetched again once older than 7
// days, and served stale when the server is down.
func TestXYZFetchAndCache(t *testing.T) {
	srv := newTileServer(t)
	cache := t.TempDir()
	src, err := Open(srv.URL+"/{z}/{x}/{y}.png", Options{CacheDir: cache, UserAgent: "privmap-test/1"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	l, err := Fetch(ctx, src, sfBox, 600, 300)
	if err != nil || l.Missing != 0 || len(l.tiles) != 12 {
		t.Fatalf("fetch: %v, %d missing, %d tiles", err, l.Missing, len(l.tiles))
	}
	if n := srv.requests.Load(); n != 12 {
		t.Errorf("%d requests for 12 tiles", n)
	}
	if m := srv.most.Load(); m > maxConnections {
		t.Errorf("%d requests at once", m)
	}
	if ua := srv.agent.Load(); ua != "privmap-test/1" {
		t.Errorf("User-Agent %v", ua)
	}
	// Cached: no request.
	if _, err := Fetch(ctx, src, sfBox, 600, 300); err != nil || srv.requests.Load() != 12 {
		t.Errorf("second fetch: %v, %d requests", err, srv.requests.Load())
	}
	// Older than 7 days: asked again; the server down: the stale tile.
	old := time.Now().Add(-8 * 24 * time.Hour)
	filepath.WalkDir(cache, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			os.Chtimes(p, old, old)
		}
		return nil
	})
	srv.down.Store(true)
	l, err = Fetch(ctx, src, sfBox, 600, 300)
	if err != nil || l.Missing != 0 || srv.requests.Load() != 24 {
		t.Errorf("stale fetch: %v, %d missing, %d requests", err, l.Missing, srv.requests.Load())
	}
	// No cache and no server: an error, not a blank map called a basemap.
	bare, _ := Open(srv.URL+"/{z}/{x}/{y}.png", Options{})
	if _, err := Fetch(ctx, bare, sfBox, 600, 300); err == nil {
		t.Error("fetch from a server that is down succeeded")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Fetch(cctx, bare, sfBox, 600, 300); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled fetch: %v", err)
	}
}

// TestLayerImage checks the reprojection: each pixel takes the colour of
// the tile under it.
func TestLayerImage(t *testing.T) {
	srv := newTileServer(t)
	src, _ := Open(srv.URL+"/{z}/{x}/{y}.png", Options{})
	l, err := Fetch(context.Background(), src, sfBox, 600, 300)
	if err != nil {
		t.Fatal(err)
	}
	img := l.Image(sfBox, 600, 300)
	for _, p := range []struct{ px, py int }{{0, 0}, {599, 299}, {300, 150}, {123, 77}} {
		lon := sfBox.Min[0] + (float64(p.px)+0.5)/600*(sfBox.Max[0]-sfBox.Min[0])
		lat := sfBox.Max[1] - (float64(p.py)+0.5)/300*(sfBox.Max[1]-sfBox.Min[1])
		want := tileColour(maptile.At(orb.Point{lon, lat}, l.Zoom))
		if got := img.NRGBAAt(p.px, p.py); got != want {
			t.Errorf("pixel %v: %v, want tile colour %v", p, got, want)
		}
	}
}

// writeMBTiles writes an MBTiles file holding tilePNG for every tile in
// ts, with the given format.
func writeMBTiles(t testing.TB, path, format string, ts []maptile.Tile) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		"CREATE TABLE metadata (name text, value text)",
		"CREATE TABLE tiles (zoom_level integer, tile_column integer, tile_row integer, tile_data blob)",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	for k, v := range map[string]string{"name": "test", "format": format, "attribution": "© test tiles", "maxzoom": "14"} {
		db.Exec("INSERT INTO metadata VALUES (?, ?)", k, v)
	}
	for _, tl := range ts {
		db.Exec("INSERT INTO tiles VALUES (?, ?, ?, ?)", int(tl.Z), int(tl.X), (1<<tl.Z)-1-int(tl.Y), tilePNG(tl))
	}
}

func TestMBTiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sf.mbtiles")
	z := ZoomFor(sfBox, 600, 300, 14)
	ts := cover(sfBox, z)
	writeMBTiles(t, path, "png", ts[1:]) // one tile missing
	src, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if src.Attribution() != "© test tiles" || src.MaxZoom() != 14 {
		t.Errorf("attribution %q, max zoom %d", src.Attribution(), src.MaxZoom())
	}
	img, err := src.Tile(context.Background(), ts[3])
	if err != nil {
		t.Fatal(err)
	}
	if c := color.NRGBAModel.Convert(img.At(5, 5)); c != tileColour(ts[3]) {
		t.Errorf("tile %v reads as %v: rows not flipped from TMS?", ts[3], c)
	}
	if _, err := src.Tile(context.Background(), ts[0]); !errors.Is(err, ErrNoTile) {
		t.Errorf("missing tile: %v", err)
	}
	// A row whose tile_data is NULL is a missing tile, named as such.
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("UPDATE tiles SET tile_data = NULL WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?",
		int(ts[2].Z), int(ts[2].X), (1<<ts[2].Z)-1-int(ts[2].Y)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := src.Tile(context.Background(), ts[2]); !errors.Is(err, ErrNoTile) || !strings.Contains(err.Error(), "tile_data is NULL") {
		t.Errorf("NULL tile: %v", err)
	}
	l, err := Fetch(context.Background(), src, sfBox, 600, 300)
	if err != nil || l.Missing != 2 {
		t.Errorf("fetch: %v, %d missing", err, l.Missing)
	}
	vector := filepath.Join(dir, "v.mbtiles")
	writeMBTiles(t, vector, "pbf", nil)
	if _, err := Open(vector, Options{}); err == nil || !strings.Contains(err.Error(), "raster tiles") {
		t.Errorf("vector tiles: %v", err)
	}
	if _, err := Open(filepath.Join(dir, "missing.mbtiles"), Options{}); err == nil {
		t.Error("a missing file opened")
	}
	notDB := filepath.Join(dir, "x.mbtiles")
	os.WriteFile(notDB, []byte("not sqlite"), 0o644)
	if _, err := Open(notDB, Options{}); err == nil || !strings.Contains(err.Error(), "not an MBTiles file") {
		t.Errorf("not a database: %v", err)
	}
}

// TestMBTilesRelativePath opens an MBTiles file by a path relative to the
// working folder, and one whose name has characters a URI escapes.
func TestMBTilesRelativePath(t *testing.T) {
	dir := t.TempDir()
	z := ZoomFor(sfBox, 600, 300, 14)
	for _, name := range []string{"sf.mbtiles", "my tiles 100%.mbtiles"} {
		writeMBTiles(t, filepath.Join(dir, name), "png", cover(sfBox, z))
	}
	t.Chdir(dir)
	for _, name := range []string{"sf.mbtiles", "my tiles 100%.mbtiles"} {
		src, err := OpenMBTiles(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if src.Attribution() != "© test tiles" {
			t.Errorf("%s: attribution %q", name, src.Attribution())
		}
		src.Close()
	}
}
