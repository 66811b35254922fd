// Command gen writes privmap's embedded assets: the default data set,
// synthetic check-ins made by geo.Synthesize with geo.SFSynth and seed
// geo.SFSeed, and the application icon, drawn here. Run it with
// go generate in package assets.
package main

import (
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"math/rand/v2"
	"os"

	"github.com/privmap/privmap/geo"
)

func main() {
	data := flag.String("data", "default_checkins.snap.txt", "check-in file to write")
	icon := flag.String("icon", "icon.png", "icon PNG to write")
	flag.Parse()
	rng := rand.New(rand.NewPCG(geo.SFSeed[0], geo.SFSeed[1]))
	cs := geo.Synthesize(rng, geo.SanFrancisco, geo.SFSynth)
	err := write(*data, func(w io.Writer) error { return geo.WriteSNAP(w, cs) })
	if err == nil {
		err = write(*icon, func(w io.Writer) error { return png.Encode(w, drawIcon(256)) })
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func write(name string, fill func(io.Writer) error) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	err = fill(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// drawIcon draws a rounded 6×6 heat-map of two Gaussian bumps with one
// cell outlined, privmap's mark.
func drawIcon(size int) image.Image {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	const n = 6
	cell := size / n
	for r := range n {
		for c := range n {
			x, y := float64(c)+0.5, float64(r)+0.5
			v := 0.9*math.Exp(-((x-2)*(x-2)+(y-2)*(y-2))/3) + 0.6*math.Exp(-((x-4.5)*(x-4.5)+(y-4)*(y-4))/2)
			col := heat(math.Min(1, v))
			for py := r*cell + 2; py < (r+1)*cell-2; py++ {
				for px := c*cell + 2; px < (c+1)*cell-2; px++ {
					if inRounded(px, py, size, size/8) {
						img.Set(px, py, col)
					}
				}
			}
		}
	}
	return img
}

// heat maps v in [0, 1] from deep blue through teal to yellow.
func heat(v float64) color.NRGBA {
	lerp := func(a, b float64) uint8 { return uint8(a + (b-a)*v) }
	if v < 0.5 {
		v *= 2
		return color.NRGBA{lerp(40, 30), lerp(30, 150), lerp(110, 140), 255}
	}
	v = 2*v - 1
	return color.NRGBA{lerp(30, 250), lerp(150, 220), lerp(140, 40), 255}
}

func inRounded(x, y, size, rad int) bool {
	cx := min(max(x, rad), size-1-rad)
	cy := min(max(y, rad), size-1-rad)
	dx, dy := x-cx, y-cy
	return dx*dx+dy*dy <= rad*rad
}
