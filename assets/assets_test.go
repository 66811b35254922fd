package assets_test

import (
	"bytes"
	"image/png"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/privmap/privmap/assets"
	"github.com/privmap/privmap/geo"
)

// TestDefaultCheckinsRegenerate checks that the embedded data is exactly
// what the documented generator makes (go generate ./assets).
func TestDefaultCheckinsRegenerate(t *testing.T) {
	rng := rand.New(rand.NewPCG(geo.SFSeed[0], geo.SFSeed[1]))
	var buf bytes.Buffer
	if err := geo.WriteSNAP(&buf, geo.Synthesize(rng, geo.SanFrancisco, geo.SFSynth)); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), assets.DefaultCheckins) {
		t.Fatalf("embedded data (%d bytes) differs from the generator's (%d bytes); run go generate ./assets",
			len(assets.DefaultCheckins), buf.Len())
	}
}

func TestDefaultCheckinsGrid(t *testing.T) {
	res, err := geo.ReadCheckins(bytes.NewReader(assets.DefaultCheckins), geo.Auto, geo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	gd, err := geo.GridCheckins(res.Checkins, geo.GridOptions{Bound: geo.FWBound, CellKm: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if gd.Users != geo.SFSynth.Users || gd.N() != geo.SFSynth.Users || gd.Grid.Len() != 384 {
		t.Errorf("default data: %d users, %d gridded in %d cells; want %d, %d, 384",
			gd.Users, gd.N(), gd.Grid.Len(), geo.SFSynth.Users, geo.SFSynth.Users)
	}
}

func TestIcon(t *testing.T) {
	img, err := png.Decode(bytes.NewReader(assets.Icon))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 256 || b.Dy() != 256 {
		t.Errorf("icon is %v, want 256×256", b)
	}
}

// TestLicenceCopy: the embedded licence is the repository's LICENSE.
func TestLicenceCopy(t *testing.T) {
	top, err := os.ReadFile("../LICENSE")
	if err != nil {
		t.Fatal(err)
	}
	if string(top) != assets.Licence || !strings.Contains(assets.Licence, "Redistribution and use in source and binary forms") {
		t.Error("assets/licences/LICENSE differs from LICENSE: copy it (cp LICENSE assets/licences/)")
	}
}
