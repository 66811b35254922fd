package basemap

import (
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

// decode decodes a tile's bytes, naming the tile in errors.
func decode(t maptile.Tile, data []byte) (image.Image, error) {
	img, _, err := image.Decode(strings.NewReader(string(data)))
	if err != nil {
		return nil, fmt.Errorf("tile %d/%d/%d: %w", t.Z, t.X, t.Y, err)
	}
	return img, nil
}
