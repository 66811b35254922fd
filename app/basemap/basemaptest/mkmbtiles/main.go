// Command mkmbtiles writes an MBTiles file of basemaptest's synthetic
// tiles over a box, so that screenshots and demonstrations of the
// basemap can be made offline:
//
//	go run ./app/basemap/basemaptest/mkmbtiles -bbox S,W,N,E [-zoom 10-15] -o tiles.mbtiles
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/maptile"

	"github.com/privmap/privmap/app/basemap/basemaptest"
)

func main() {
	bbox := flag.String("bbox", "37.7228,-122.5153,37.7946,-122.3789", "box `S,W,N,E` in degrees")
	zoom := flag.String("zoom", "10-15", "zoom levels `LO-HI`")
	out := flag.String("o", "", "MBTiles file to write")
	flag.Parse()
	if err := run(*bbox, *zoom, *out); err != nil {
		fmt.Fprintln(os.Stderr, "mkmbtiles:", err)
		os.Exit(1)
	}
}

func run(bbox, zoom, out string) error {
	if out == "" {
		return fmt.Errorf("-o is required")
	}
	f := strings.Split(bbox, ",")
	if len(f) != 4 {
		return fmt.Errorf("-bbox %q: want S,W,N,E", bbox)
	}
	var v [4]float64
	for i, s := range f {
		var err error
		if v[i], err = strconv.ParseFloat(strings.TrimSpace(s), 64); err != nil {
			return fmt.Errorf("-bbox %q: %w", bbox, err)
		}
	}
	lo, hi, ok := strings.Cut(zoom, "-")
	zl, err1 := strconv.Atoi(lo)
	zh, err2 := strconv.Atoi(hi)
	if !ok || err1 != nil || err2 != nil || zl < 0 || zh < zl || zh > 18 {
		return fmt.Errorf("-zoom %q: want LO-HI within 0-18", zoom)
	}
	os.Remove(out)
	b := orb.Bound{Min: orb.Point{v[1], v[0]}, Max: orb.Point{v[3], v[2]}}
	return basemaptest.WriteMBTiles(out, b, maptile.Zoom(zl), maptile.Zoom(zh), "© synthetic tiles (privmap basemaptest)")
}
