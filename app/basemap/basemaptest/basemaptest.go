// Package basemaptest makes map tiles for tests and offline screenshots:
// a tile server on a local port and MBTiles files, both of synthetic
// tiles whose colour encodes their address, so that nothing reaches the
// internet and a test can tell which tile a pixel came from.
package basemaptest

import (
	"bytes"
	"database/sql"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/maptile"
	_ "modernc.org/sqlite" // the database/sql driver "sqlite"
)

// Colour is the colour of tile t's background.
func Colour(t maptile.Tile) color.NRGBA {
	return color.NRGBA{uint8(160 + t.X%64), uint8(170 + t.Y%64), uint8(150 + 5*(t.Z%16)), 255}
}

// PNG returns tile t: its Colour, crossed by darker lines every 32
// pixels, like streets.
func PNG(t maptile.Tile) []byte {
	const size = 256
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	c := Colour(t)
	street := color.NRGBA{c.R / 2, c.G / 2, c.B / 2, 255}
	for y := range size {
		for x := range size {
			p := c
			if x%32 == 0 || y%32 == 0 {
				p = street
			}
			img.SetNRGBA(x, y, p)
		}
	}
	var b bytes.Buffer
	png.Encode(&b, img)
	return b.Bytes()
}

// A Server serves PNG at /{z}/{x}/{y}.png and counts its requests.
type Server struct {
	*httptest.Server
	Requests atomic.Int64
}

// NewServer starts a Server; the caller closes it.
func NewServer() *Server {
	s := &Server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.Requests.Add(1)
		parts := strings.Split(strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/"), ".png"), "/")
		var v [3]int
		for i := range parts {
			if len(parts) != 3 {
				break
			}
			v[i], _ = strconv.Atoi(parts[i])
		}
		if len(parts) != 3 || v[0] > 19 {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "image/png")
		w.Write(PNG(maptile.New(uint32(v[1]), uint32(v[2]), maptile.Zoom(v[0]))))
	}))
	return s
}

// Template is the server's URL template.
func (s *Server) Template() string { return s.URL + "/{z}/{x}/{y}.png" }

// WriteMBTiles writes an MBTiles file of the tiles covering b at the
// zoom levels lo..hi, with the given attribution.
func WriteMBTiles(path string, b orb.Bound, lo, hi maptile.Zoom, attribution string) error {
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return err
	}
	defer db.Close()
	stmts := []string{
		"CREATE TABLE metadata (name text, value text)",
		"CREATE TABLE tiles (zoom_level integer, tile_column integer, tile_row integer, tile_data blob)",
		"CREATE UNIQUE INDEX tile_index ON tiles (zoom_level, tile_column, tile_row)",
	}
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			return err
		}
	}
	meta := map[string]string{"name": "privmap test tiles", "format": "png", "attribution": attribution,
		"minzoom": strconv.Itoa(int(lo)), "maxzoom": strconv.Itoa(int(hi))}
	for k, v := range meta {
		if _, err := db.Exec("INSERT INTO metadata VALUES (?, ?)", k, v); err != nil {
			return err
		}
	}
	for z := lo; z <= hi; z++ {
		nw, se := maptile.At(orb.Point{b.Min[0], b.Max[1]}, z), maptile.At(orb.Point{b.Max[0], b.Min[1]}, z)
		if n := int64(se.X-nw.X+1) * int64(se.Y-nw.Y+1); n > 4096 {
			return fmt.Errorf("basemaptest: %d tiles at zoom %d", n, z)
		}
		for y := nw.Y; y <= se.Y; y++ {
			for x := nw.X; x <= se.X; x++ {
				t := maptile.New(x, y, z)
				if _, err := db.Exec("INSERT INTO tiles VALUES (?, ?, ?, ?)", int(z), int(x), (1<<z)-1-int(y), PNG(t)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
