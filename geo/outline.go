package geo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geojson"
)

// Outline limits: a GeoJSON file of at most MaxOutlineBytes, holding at
// most MaxOutlinePoints vertices in at most MaxOutlineLines lines (rings
// and line strings), is read; a city's neighbourhoods or a coastline at
// street detail is a few MB, a few hundred thousand vertices and some
// thousand lines. Work is counted before decoding too: a file may open
// at most MaxOutlineArrays arrays (each vertex, ring and polygon opens
// one) and MaxOutlineObjects objects (features, geometries), so that 25
// million empty polygons in 256 MB are refused from their bytes, not
// decoded. Each line costs a stroke when drawn (some 30 µs, on each
// map), which MaxOutlineLines bounds.
const (
	MaxOutlineBytes   = 256 << 20
	MaxOutlinePoints  = 2_000_000
	MaxOutlineLines   = 50_000
	MaxOutlineArrays  = 2*MaxOutlinePoints + 2*MaxOutlineLines
	MaxOutlineObjects = 4 * MaxOutlineLines
)

// ReadOutlines reads a GeoJSON file (a FeatureCollection, a Feature or a
// bare geometry) and returns the lines to draw over a map: the rings of
// its polygons and its line strings, in longitude and latitude. Points
// have no outline and are left out. Coordinates must be finite longitudes
// and latitudes. ctx stops the reading: the decoding, which cannot look
// at it (hundreds of megabytes take seconds), runs in a goroutine of its
// own that is left when ctx ends, and the vertices are checked with ctx
// looked at every 65,536.
func ReadOutlines(ctx context.Context, r io.Reader) ([]orb.LineString, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxOutlineBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxOutlineBytes {
		return nil, fmt.Errorf("geo: a GeoJSON file larger than %d MB", MaxOutlineBytes>>20)
	}
	if n := bytes.Count(b, []byte("[")); n > MaxOutlineArrays {
		return nil, fmt.Errorf("geo: GeoJSON of %d arrays (vertices, rings, polygons), more than %d", n, MaxOutlineArrays)
	}
	if n := bytes.Count(b, []byte("{")); n > MaxOutlineObjects {
		return nil, fmt.Errorf("geo: GeoJSON of %d objects (features, geometries), more than %d", n, MaxOutlineObjects)
	}
	geoms, err := decoded(ctx, b)
	if err != nil {
		return nil, err
	}
	return outlines(ctx, geoms)
}

// outlines returns the lines of geoms to draw, counted against the
// limits and their vertices checked, ctx looked at every 1,024 lines and
// every 65,536 vertices.
func outlines(ctx context.Context, geoms []orb.Geometry) ([]orb.LineString, error) {
	var out []orb.LineString
	points, count := 0, 0
	for _, g := range geoms {
		for _, ls := range lines(g) {
			points += len(ls)
			if points > MaxOutlinePoints {
				return nil, fmt.Errorf("geo: GeoJSON with more than %d vertices", MaxOutlinePoints)
			}
			if count++; count > MaxOutlineLines {
				return nil, fmt.Errorf("geo: GeoJSON with more than %d lines (rings and line strings)", MaxOutlineLines)
			}
			if count&1023 == 0 && ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if err := lonLats(ctx, ls); err != nil {
				return nil, err
			}
			if len(ls) >= 2 {
				out = append(out, ls)
			}
		}
	}
	return out, nil
}

// lonLats checks that every vertex of ls is a longitude and latitude.
func lonLats(ctx context.Context, ls orb.LineString) error {
	for i, p := range ls {
		if i&0xffff == 0xffff && ctx.Err() != nil {
			return ctx.Err()
		}
		if !(math.Abs(p[0]) <= 180 && math.Abs(p[1]) <= 90) {
			return fmt.Errorf("geo: GeoJSON: vertex %v is not a longitude and latitude", p)
		}
	}
	return nil
}

// ReadOutlinesFile is ReadOutlines of the file name, naming it in errors.
func ReadOutlinesFile(ctx context.Context, name string) ([]orb.LineString, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ls, err := ReadOutlines(ctx, &ProgressReader{Ctx: ctx, R: f})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return ls, nil
}

// decoded is geometries(b) in a goroutine of its own, left when ctx
// ends first.
func decoded(ctx context.Context, b []byte) ([]orb.Geometry, error) {
	type result struct {
		g        []orb.Geometry
		err      error
		panicked bool
		p        any
	}
	done := make(chan result, 1)
	go func() {
		defer func() { // the caller's panic, as before the goroutine
			if p := recover(); p != nil {
				done <- result{panicked: true, p: p}
			}
		}()
		g, err := geometries(b)
		done <- result{g: g, err: err}
	}()
	select {
	case r := <-done:
		if r.panicked {
			panic(r.p)
		}
		return r.g, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// geometries decodes a FeatureCollection, a Feature or a bare geometry.
func geometries(b []byte) ([]orb.Geometry, error) {
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, fmt.Errorf("geo: GeoJSON: %w", err)
	}
	switch head.Type {
	case "FeatureCollection":
		fc, err := geojson.UnmarshalFeatureCollection(b)
		if err != nil {
			return nil, fmt.Errorf("geo: GeoJSON: %w", err)
		}
		out := make([]orb.Geometry, len(fc.Features))
		for i, f := range fc.Features {
			out[i] = f.Geometry
		}
		return out, nil
	case "Feature":
		f, err := geojson.UnmarshalFeature(b)
		if err != nil {
			return nil, fmt.Errorf("geo: GeoJSON: %w", err)
		}
		return []orb.Geometry{f.Geometry}, nil
	case "":
		return nil, errors.New(`geo: GeoJSON: no "type" member`)
	}
	g, err := geojson.UnmarshalGeometry(bytes.TrimSpace(b))
	if err != nil {
		return nil, fmt.Errorf("geo: GeoJSON: %w", err)
	}
	return []orb.Geometry{g.Geometry()}, nil
}

// lines returns the outlines of g.
func lines(g orb.Geometry) []orb.LineString {
	switch g := g.(type) {
	case orb.LineString:
		return []orb.LineString{g}
	case orb.MultiLineString:
		return g
	case orb.Ring:
		return []orb.LineString{orb.LineString(g)}
	case orb.Polygon:
		out := make([]orb.LineString, len(g))
		for i, r := range g {
			out[i] = orb.LineString(r)
		}
		return out
	case orb.MultiPolygon:
		var out []orb.LineString
		for _, p := range g {
			out = append(out, lines(p)...)
		}
		return out
	case orb.Collection:
		var out []orb.LineString
		for _, h := range g {
			out = append(out, lines(h)...)
		}
		return out
	}
	return nil // points have no outline
}
