package basemap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // tiles come as PNG or JPEG
	_ "image/png"
	"strings"

	"github.com/paulmach/orb/maptile"
)

// A Source gives map tiles.
type Source interface {
	// Tile returns the decoded tile t, or an error wrapping ErrNoTile
	// when the source has none there.
	Tile(ctx context.Context, t maptile.Tile) (image.Image, error)
	// Attribution is the credit the tiles' licence asks for, shown on
	// screen and on every exported picture.
	Attribution() string
	// MaxZoom is the deepest zoom level the source serves.
	MaxZoom() maptile.Zoom
}

// ErrNoTile is wrapped by the error of a tile the source does not have.
var ErrNoTile = errors.New("no such tile")

// OSMTemplate is OpenStreetMap's standard tile layer, and OSMAttribution
// the credit its licence asks for.
const (
	OSMTemplate    = "https://tile.openstreetmap.org/{z}/{x}/{y}.png"
	OSMAttribution = "© OpenStreetMap contributors"
)

// Open returns the source s names: an MBTiles file (a name ending in
// .mbtiles) or an XYZ URL template with {z}, {x} and {y}, fetched and
// cached as opt says.
func Open(s string, opt Options) (Source, error) {
	if strings.HasSuffix(strings.ToLower(s), ".mbtiles") {
		return OpenMBTiles(s)
	}
	if strings.Contains(s, "://") {
		return NewXYZ(s, opt)
	}
	return nil, fmt.Errorf("basemap %q: want an .mbtiles file or a URL template such as %s", s, OSMTemplate)
}

// maxTileSide and maxTilePixels bound a tile's picture before it is
// decoded: tiles are 256 or 512 pixels a side (1024 at most for "retina"
// tiles), and a PNG header may declare 10⁹ × 10⁹ pixels in a few bytes.
const (
	maxTileSide   = 4096
	maxTilePixels = 2048 * 2048
)

// decode decodes a tile's bytes, naming the tile in errors. The
// picture's size is read from its header first (image.DecodeConfig)
// and refused past maxTileSide and maxTilePixels, before any pixel is
// allocated.
func decode(t maptile.Tile, data []byte) (image.Image, error) {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err == nil && (cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width > maxTileSide || cfg.Height > maxTileSide || cfg.Width*cfg.Height > maxTilePixels) {
		err = fmt.Errorf("a tile of %d×%d pixels; at most %d a side and %d pixels", cfg.Width, cfg.Height, maxTileSide, maxTilePixels)
	}
	var img image.Image
	if err == nil {
		img, _, err = image.Decode(bytes.NewReader(data))
	}
	if err != nil {
		return nil, fmt.Errorf("tile %d/%d/%d: %w", t.Z, t.X, t.Y, err)
	}
	return img, nil
}
