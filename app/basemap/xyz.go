package basemap

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/paulmach/orb/maptile"
)

// Options set how an XYZ source fetches and keeps its tiles.
type Options struct {
	// CacheDir holds fetched tiles; empty keeps none (tests, one-off
	// renders). privmap uses the user's cache folder (os.UserCacheDir).
	CacheDir string
	// MaxAge is how long a cached tile is used without asking the server
	// again: at least 7 days, as OpenStreetMap's tile usage policy asks
	// (a shorter value is raised to 7 days).
	MaxAge time.Duration
	// UserAgent names the application to the server; it must not be
	// empty for OpenStreetMap's servers, which refuse anonymous clients.
	UserAgent string
	// Client does the requests; nil is a client with a 20-second timeout.
	Client *http.Client
	// Attribution overrides the credit shown for the tiles; OpenStreetMap's
	// servers default to OSMAttribution.
	Attribution string
}

// DefaultCacheDir returns where privmap keeps its tiles: privmap/tiles
// under the user's cache folder (os.UserCacheDir), or "" (no cache)
// where there is none.
func DefaultCacheDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "privmap", "tiles")
}

// minMaxAge is the shortest time a tile is kept: OpenStreetMap's tile
// usage policy asks clients to cache for at least 7 days.
const minMaxAge = 7 * 24 * time.Hour

// maxConnections bounds the requests an XYZ source has open at once, as
// OpenStreetMap's tile usage policy asks (at most 2).
const maxConnections = 2

// maxTileBytes bounds one tile's download: a 256-pixel PNG is tens of kB.
const maxTileBytes = 4 << 20

// XYZ is a tile server addressed by a URL template with {z}, {x} and {y}
// (and optionally {s} for a, b, c sub-domains, {r} for nothing). Tiles
// are cached on disk for at least 7 days, requested at most two at a
// time with a User-Agent naming privmap, and never prefetched: only the
// tiles a picture needs are asked for.
type XYZ struct {
	template string
	opt      Options
	sem      chan struct{}
}

// NewXYZ returns the tile server of template.
func NewXYZ(template string, opt Options) (*XYZ, error) {
	for _, v := range []string{"{z}", "{x}", "{y}"} {
		if !strings.Contains(template, v) {
			return nil, fmt.Errorf("basemap URL template %q has no %s", template, v)
		}
	}
	if !strings.HasPrefix(template, "http://") && !strings.HasPrefix(template, "https://") {
		return nil, fmt.Errorf("basemap URL template %q: want http:// or https://", template)
	}
	opt.MaxAge = max(opt.MaxAge, minMaxAge)
	if opt.Client == nil {
		opt.Client = &http.Client{Timeout: 20 * time.Second}
	}
	if opt.Attribution == "" {
		opt.Attribution = defaultCredit(template)
	}
	return &XYZ{template: template, opt: opt, sem: make(chan struct{}, maxConnections)}, nil
}

// defaultCredit is the credit of a server's tiles when none is given:
// OpenStreetMap's for its servers, else the server's host, so that every
// picture says where its tiles came from.
func defaultCredit(template string) string {
	if strings.Contains(template, "openstreetmap.org") {
		return OSMAttribution
	}
	host := template[strings.Index(template, "://")+3:]
	if i := strings.IndexByte(host, '/'); i >= 0 {
		host = host[:i]
	}
	return "tiles: " + strings.NewReplacer("{s}.", "", "{r}", "").Replace(host)
}

// Attribution returns the tiles' credit.
func (s *XYZ) Attribution() string { return s.opt.Attribution }

// MaxZoom returns 19, the deepest level of OpenStreetMap's tiles.
func (s *XYZ) MaxZoom() maptile.Zoom { return 19 }

// url returns the address of tile t.
func (s *XYZ) url(t maptile.Tile) string {
	r := strings.NewReplacer("{z}", strconv.Itoa(int(t.Z)), "{x}", strconv.Itoa(int(t.X)), "{y}", strconv.Itoa(int(t.Y)),
		"{s}", string(rune('a'+(t.X+t.Y)%3)), "{r}", "")
	return r.Replace(s.template)
}

// cachePath returns where tile t is kept: a folder per template (its
// hash), then z/x/y.
func (s *XYZ) cachePath(t maptile.Tile) string {
	if s.opt.CacheDir == "" {
		return ""
	}
	h := sha256.Sum256([]byte(s.template))
	return filepath.Join(s.opt.CacheDir, hex.EncodeToString(h[:8]), strconv.Itoa(int(t.Z)), strconv.Itoa(int(t.X)), strconv.Itoa(int(t.Y)))
}

// Tile returns tile t: from the cache while it is younger than MaxAge,
// else from the server, which then refreshes the cache; a stale cached
// tile serves when the server cannot be reached.
func (s *XYZ) Tile(ctx context.Context, t maptile.Tile) (image.Image, error) {
	path := s.cachePath(t)
	var stale []byte
	if path != "" {
		if fi, err := os.Stat(path); err == nil {
			if b, err := os.ReadFile(path); err == nil {
				if time.Since(fi.ModTime()) < s.opt.MaxAge {
					return decode(t, b)
				}
				stale = b
			}
		}
	}
	b, err := s.fetch(ctx, t)
	if err != nil {
		if stale != nil && !errors.Is(err, ErrNoTile) && ctx.Err() == nil {
			return decode(t, stale)
		}
		return nil, err
	}
	img, err := decode(t, b)
	if err == nil && path != "" {
		keep(path, b) // a cache that cannot be written only costs a refetch
	}
	return img, err
}

// fetch downloads tile t, at most maxConnections at a time.
func (s *XYZ) fetch(ctx context.Context, t maptile.Tile) ([]byte, error) {
	select {
	case s.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-s.sem }()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url(t), nil)
	if err != nil {
		return nil, err
	}
	if s.opt.UserAgent != "" {
		req.Header.Set("User-Agent", s.opt.UserAgent)
	}
	resp, err := s.opt.Client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return nil, fmt.Errorf("tile %d/%d/%d: %w", t.Z, t.X, t.Y, ErrNoTile)
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("tile %d/%d/%d: %w", t.Z, t.X, t.Y, &StatusError{Status: resp.Status})
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxTileBytes+1))
	if err == nil && len(b) > maxTileBytes {
		err = fmt.Errorf("tile %d/%d/%d: larger than %d bytes", t.Z, t.X, t.Y, maxTileBytes)
	}
	return b, err
}

// keep writes a tile to the cache through a temporary file, so that a
// reader never sees half a tile.
func keep(path string, b []byte) {
	if os.MkdirAll(filepath.Dir(path), 0o755) != nil {
		return
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tile-*")
	if err != nil {
		return
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
}
