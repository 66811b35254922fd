package basemap

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"math"
	"sync"
	"time"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/maptile"
)

// TileSize is the side of a raster tile in pixels.
const TileSize = 256

// MaxTiles bounds the tiles one picture asks for: a picture needing more
// at the zoom that suits it is drawn from coarser tiles instead, so that
// no drawing amounts to a bulk download (OpenStreetMap's tile usage
// policy forbids them).
const MaxTiles = 64

// A Layer is the tiles that cover a box at one zoom level, fetched, from
// which pictures of the box are drawn without I/O.
type Layer struct {
	Zoom  maptile.Zoom
	tiles map[maptile.Tile]image.Image
	// Missing counts the tiles the source did not give; their area is
	// left blank.
	Missing     int
	attribution string
}

// Attribution returns the credit of the layer's tiles.
func (l *Layer) Attribution() string { return l.attribution }

// ZoomFor returns the zoom level at which the box b, drawn w pixels wide
// and h high, takes tile pixels at about one per picture pixel, at most
// maxZoom and lowered until the box needs at most MaxTiles tiles.
func ZoomFor(b orb.Bound, w, h int, maxZoom maptile.Zoom) maptile.Zoom {
	span := b.Max[0] - b.Min[0]
	z := maptile.Zoom(0)
	if span > 0 && w > 0 {
		// 256·2^z pixels span 360° of longitude.
		zf := math.Ceil(math.Log2(float64(w) * 360 / (span * TileSize)))
		z = maptile.Zoom(min(max(zf, 0), float64(maxZoom)))
	}
	for z > 0 && coverCount(b, z) > MaxTiles {
		z--
	}
	return z
}

// corners returns the north-west and south-east tiles of b at zoom z.
func corners(b orb.Bound, z maptile.Zoom) (nw, se maptile.Tile) {
	return maptile.At(orb.Point{b.Min[0], b.Max[1]}, z), maptile.At(orb.Point{b.Max[0], b.Min[1]}, z)
}

// coverCount returns how many tiles cover b at zoom z, without listing
// them (at a deep zoom a large box has billions).
func coverCount(b orb.Bound, z maptile.Zoom) int64 {
	nw, se := corners(b, z)
	return int64(se.X-nw.X+1) * int64(se.Y-nw.Y+1)
}

// cover returns the tiles that cover b at zoom z; callers bound their
// number with coverCount first.
func cover(b orb.Bound, z maptile.Zoom) []maptile.Tile {
	nw, se := corners(b, z)
	out := make([]maptile.Tile, 0, coverCount(b, z))
	for y := nw.Y; y <= se.Y; y++ {
		for x := nw.X; x <= se.X; x++ {
			out = append(out, maptile.New(x, y, z))
		}
	}
	return out
}

// Fetch fetches the tiles that cover b for a picture w×h pixels, at
// ZoomFor's level, at most maxConnections at a time for a server. A tile
// the source does not give (none there, a network error) is counted in
// Missing and left blank; Fetch fails only when ctx is done or no tile
// at all could be had.
//
// The whole picture has FetchTime: tiles not had by then are missing
// too. A panic in a tile's fetch or decoding (a hostile tile meeting a
// bug) is that tile's error, never the program's end.
func Fetch(ctx context.Context, src Source, b orb.Bound, w, h int) (*Layer, error) {
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, FetchTime)
	defer cancel()
	z := ZoomFor(b, w, h, src.MaxZoom())
	ts := cover(b, z)
	l := &Layer{Zoom: z, tiles: make(map[maptile.Tile]image.Image, len(ts)), attribution: src.Attribution()}
	var (
		mu      sync.Mutex
		wg      sync.WaitGroup
		lastErr error
	)
	next := make(chan maptile.Tile, len(ts))
	for _, t := range ts {
		next <- t
	}
	close(next)
	for range min(maxConnections, len(ts)) {
		wg.Go(func() {
			for t := range next {
				img, err := tile(ctx, src, t)
				mu.Lock()
				if err != nil {
					l.Missing++
					lastErr = err
				} else {
					l.tiles[t] = img
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if err := parent.Err(); err != nil {
		return nil, err
	}
	if len(l.tiles) == 0 && ctx.Err() != nil {
		return nil, fmt.Errorf("basemap: no tile arrived within %v", FetchTime)
	}
	if len(l.tiles) == 0 && lastErr != nil {
		if errors.Is(lastErr, ErrNoTile) {
			return nil, errors.New("basemap: the source has no tiles over this box")
		}
		return nil, lastErr
	}
	return l, nil
}

// FetchTime bounds the fetching of one picture's tiles.
var FetchTime = 30 * time.Second

// tile is src.Tile with a panic turned into the tile's error.
func tile(ctx context.Context, src Source, t maptile.Tile) (img image.Image, err error) {
	defer func() {
		if p := recover(); p != nil {
			img, err = nil, fmt.Errorf("tile %d/%d/%d: internal error: %v", t.Z, t.X, t.Y, p)
		}
	}()
	return src.Tile(ctx, t)
}

// Image draws the layer's tiles over the box b into a w×h picture, north
// up, longitude and latitude linear across it (the maps' axes): each
// pixel takes the tile pixel under its centre, reprojected from Web
// Mercator. Blank where the layer has no tile.
func (l *Layer) Image(b orb.Bound, w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	if w <= 0 || h <= 0 {
		return img
	}
	// Longitude gives the tile column, latitude the row: one projection
	// per column and per row, not per pixel.
	fx := make([]float64, w)
	for px := range fx {
		lon := b.Min[0] + (float64(px)+0.5)/float64(w)*(b.Max[0]-b.Min[0])
		fx[px] = maptile.Fraction(orb.Point{lon, 0}, l.Zoom)[0]
	}
	n := uint32(1) << l.Zoom
	for py := range h {
		lat := b.Max[1] - (float64(py)+0.5)/float64(h)*(b.Max[1]-b.Min[1])
		fy := maptile.Fraction(orb.Point{0, lat}, l.Zoom)[1]
		ty := uint32(min(max(math.Floor(fy), 0), float64(n-1)))
		iy := min(int((fy-float64(ty))*TileSize), TileSize-1)
		for px, f := range fx {
			tx := uint32(min(max(math.Floor(f), 0), float64(n-1)))
			tile, ok := l.tiles[maptile.New(tx, ty, l.Zoom)]
			if !ok {
				continue
			}
			tb := tile.Bounds()
			ix := min(int((f-float64(tx))*TileSize), TileSize-1)
			c := tile.At(tb.Min.X+ix*tb.Dx()/TileSize, tb.Min.Y+iy*tb.Dy()/TileSize)
			img.SetNRGBA(px, py, color.NRGBAModel.Convert(c).(color.NRGBA))
		}
	}
	return img
}
