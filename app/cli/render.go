package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/paulmach/orb"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/privmap/privmap/app/basemap"
	"github.com/privmap/privmap/app/build"
	"github.com/privmap/privmap/app/guarantee"
	"github.com/privmap/privmap/app/human"
	"github.com/privmap/privmap/app/mapplot"
	"github.com/privmap/privmap/app/output"
	"github.com/privmap/privmap/app/studyfile"
	"github.com/privmap/privmap/core"
	"github.com/privmap/privmap/geo"
	"github.com/privmap/privmap/geo/layer"
)

// runRender is
//
//	privmap render -truth T [-estimate E] -study S [-basemap FILE.mbtiles|URL-template]
//	               [-opacity O] [-scale linear|sqrt|log] [-size WxH] [-overlay F.geojson …]
//	               [-rows A] [-cols B|none] -o map.png|map.svg
//	privmap render -study S [-truth T] [-estimate E] [-release R] -o map.geojson|map.gpkg|map.tif
//
// It draws the window's figure from files: the true map, and with an
// estimate the estimate and the difference beside it, under a header
// naming the files, the mechanisms, the colour scale and the basemap's
// credit; with -basemap the heat maps are drawn at -opacity over map
// tiles from an MBTiles file or an XYZ server (cached under the user's
// cache folder). A census study is drawn as a table of two attributes,
// a linear one as bars (mapplot.Table).
//
// To a .geojson, .gpkg or .tif file it writes the maps as a GIS layer
// instead (renderLayer).
func runRender(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("render")
	truthName := fs.String("truth", "", "true distribution CSV `file`")
	estName := fs.String("estimate", "", "estimated distribution CSV `file` (draws the estimate and the difference beside the truth)")
	studyName := fs.String("study", "", "study JSON `file` with the grid")
	base := fs.String("basemap", "", "map tiles under the heat maps: an MBTiles `file` or an XYZ URL template such as "+basemap.OSMTemplate)
	opacity := fs.Float64("opacity", mapplot.DefaultOpacity, "opacity of the heat maps over the basemap, 0–1")
	scaleName := fs.String("scale", "linear", "colour scale: linear, sqrt or log")
	size := fs.String("size", "1800x700", "largest picture size in pixels, `WxH`: the picture is trimmed to the maps, as wide or as high as this")
	rows := fs.String("rows", "", "census studies: the `attribute` down the table (default the first)")
	cols := fs.String("cols", "", "census studies: the `attribute` across the table (default the second; \"none\" for bars of -rows alone)")
	var overlays listFlag
	fs.Var(&overlays, "overlay", "GeoJSON `file` of outlines (districts, coastline) drawn over the maps; repeatable")
	release := fs.String("release", "", "GIS layers: released counts `file` (privmap release -o) to add as columns")
	out := fs.String("o", "", "picture to write, .png or .svg; or a GIS layer of the maps, "+layerNames())
	if err := parse(fs, args); err != nil {
		return err
	}
	if f, ok := layer.FormatOf(*out); ok || *release != "" {
		return renderLayer(ctx, fs, f, ok, *studyName, *truthName, *estName, *release, *out, stdout, stderr)
	}
	if err := cmp.Or(required(fs, "truth", "study", "o"), distinct(fs, []string{"o"}, "truth", "estimate", "study", "basemap")); err != nil {
		return err
	}
	opt, err := renderOptions(*scaleName, *size, *opacity, *out)
	if err != nil {
		return err
	}
	as, err := studyfile.Open(*studyName)
	if err != nil {
		return err
	}
	s := as.Study
	if opt.table, err = tableAxes(s.Alphabet, *rows, *cols, *base != "" || len(overlays) > 0); err != nil {
		return err
	}
	src, err := openBasemap(*base)
	if err != nil {
		return err
	}
	if c, ok := src.(io.Closer); ok {
		defer c.Close()
	}
	f, err := renderFigure(s, *studyName, *truthName, *estName, opt)
	if err != nil {
		return err
	}
	if err := addOverlays(ctx, f, overlays); err != nil {
		return err
	}
	if as.Run != nil {
		f.Notes = append(f.Notes, runNote(as.Run))
	}
	if err := addBasemap(ctx, f, src, *base, opt, stderr); err != nil {
		return err
	}
	var b output.Batch
	b.Add(*out, func(w io.Writer) error { return writePicture(w, f, opt) }, *truthName, *estName, *studyName)
	return commit(ctx, &b, stdout, stderr, func(io.Writer) {})
}

// addBasemap draws the basemap src, if not nil, under the maps of f and
// credits it in the header; a basemap that cannot be reached is said on
// stderr and the maps go without it. Only a cancelled ctx is an error.
func addBasemap(ctx context.Context, f *mapplot.Figure, src basemap.Source, base string, opt renderOpts, stderr io.Writer) error {
	if src == nil {
		return nil
	}
	credit, err := underlay(ctx, src, f.Maps, opt)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		fmt.Fprintf(stderr, "privmap render: basemap %s: %v; the maps are drawn without it\n", base, err)
		credit = "none (" + basemap.Reason(err) + ")" // the full reason on stderr only
	}
	f.Notes = append(f.Notes, "Basemap: "+credit)
	return nil
}

// renderFigure reads the truth and the estimate (if named) on the
// study's grid and builds the figure: the true map, or the comparison.
func renderFigure(s *core.Study, studyName, truthName, estName string, opt renderOpts) (*mapplot.Figure, error) {
	a := s.Alphabet
	if a.Kind == core.KindGrid && !(a.North > a.South && a.East > a.West) {
		return nil, fmt.Errorf("%s: render draws a grid with its latitude–longitude box, as privmap grid writes it; this grid has none", studyName)
	}
	figureMap := func(v []float64, title string) (*mapplot.Map, error) {
		if a.Kind == core.KindGrid {
			return mapplot.GridMap(a, v, title, opt.scale), nil
		}
		m, err := mapplot.Table(a, v, opt.table[0], opt.table[1])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", studyName, err)
		}
		m.Title, m.Label, m.Scale = title, "probability", opt.scale
		return m, nil
	}
	truth, err := readTruth(truthName, &a)
	if err != nil {
		return nil, err
	}
	f := &mapplot.Figure{Title: "privmap: " + filepath.Base(truthName)}
	tm, err := figureMap(truth, "True")
	if err != nil {
		return nil, err
	}
	f.Maps = []*mapplot.Map{tm}
	if estName != "" {
		est, iv, err := readEstimate(estName, a)
		if err != nil {
			return nil, err
		}
		em, err := figureMap(est, "Estimate")
		if err != nil {
			return nil, err
		}
		three := mapplot.Comparison(f.Maps[0], em)
		f.Maps = three[:]
		f.Title = fmt.Sprintf("privmap: %s | %s | difference", filepath.Base(truthName), filepath.Base(estName))
		if iv != nil {
			um, err := uncertaintyMap(a, iv, figureMap)
			if err != nil {
				return nil, err
			}
			f.Maps = append(f.Maps, um)
			f.Title += " | uncertainty"
		}
	}
	f.Notes = renderNotes(s, opt, f.TypeScale(opt.w, opt.h))
	return f, nil
}

// readEstimate reads an estimate on a, with its intervals when the file
// carries them (estimate -ci).
func readEstimate(name string, a core.Alphabet) ([]float64, *core.Intervals, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	p, iv, err := core.ReadEstimateOn(f, a)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	return p, iv, nil
}

// uncertaintyMap is the map of an estimate's uncertainty, on a colour
// scale of its own: on a grid each cell's interval half-width; on a
// table, which sums the categories of the attributes it does not show,
// the sum of their band half-widths (all categories within their bands
// at once, their sum is within that sum).
func uncertaintyMap(a core.Alphabet, iv *core.Intervals, figureMap func([]float64, string) (*mapplot.Map, error)) (*mapplot.Map, error) {
	title, band := "Uncertainty: interval half-width", a.Kind != core.KindGrid
	if band {
		title = "Uncertainty: band half-width, all at once"
	}
	m, err := figureMap(iv.HalfWidths(band), title)
	if err != nil {
		return nil, err
	}
	m.Label = "± probability"
	return m, nil
}

// addOverlays reads the GeoJSON files and draws their outlines on every
// map of f.
func addOverlays(ctx context.Context, f *mapplot.Figure, files []string) error {
	var all []orb.LineString
	for _, name := range files {
		ls, err := geo.ReadOutlinesFile(ctx, name)
		if err != nil {
			return err
		}
		all = append(all, ls...)
	}
	for _, m := range f.Maps {
		m.Outlines = all
	}
	return nil
}

// renderOpts are render's checked options.
type renderOpts struct {
	// table is the attributes down and across a census table (−1 across
	// for bars of one attribute).
	table   [2]int
	scale   mapplot.Scale
	w, h    int
	opacity float64
	svg     bool
}

// renderOptions checks render's option values.
func renderOptions(scale, size string, opacity float64, out string) (renderOpts, error) {
	var o renderOpts
	var err error
	if o.scale, err = parseScale(scale); err != nil {
		return o, err
	}
	if o.w, o.h, err = parseSize(size); err != nil {
		return o, err
	}
	if !(opacity > 0 && opacity <= 1) {
		return o, usageError{msg: fmt.Sprintf("-opacity %v: want a number in (0, 1]", opacity)}
	}
	o.opacity = opacity
	switch strings.ToLower(filepath.Ext(out)) {
	case ".png":
	case ".svg":
		o.svg = true
	default:
		if out != "-" {
			return o, usageError{msg: fmt.Sprintf("-o %s: want a .png or .svg file", out)}
		}
	}
	return o, nil
}

// parseScale reads -scale.
func parseScale(s string) (mapplot.Scale, error) {
	switch s {
	case "linear":
		return mapplot.Linear, nil
	case "sqrt":
		return mapplot.Sqrt, nil
	case "log":
		return mapplot.Log, nil
	}
	return 0, usageError{msg: fmt.Sprintf("-scale %q: want linear, sqrt or log", s)}
}

// tableAxes reads -rows and -cols for a census alphabet a: attribute
// indices, the first two by default, −1 across for "none" or an alphabet
// of one attribute. Other alphabets take neither flag, and only a grid
// takes a basemap or overlays (onMap).
func tableAxes(a core.Alphabet, rows, cols string, onMap bool) ([2]int, error) {
	if a.Kind != core.KindGrid && onMap {
		return [2]int{}, usageError{msg: "-basemap and -overlay draw under and over a grid's maps; this study's alphabet is " + string(a.Kind)}
	}
	at := a.Attributes
	if len(at) == 0 {
		if rows != "" || cols != "" {
			return [2]int{}, usageError{msg: "-rows and -cols choose attributes of a census study; this study's alphabet has none"}
		}
		return [2]int{0, -1}, nil
	}
	r, err := attributeFlag(a, "rows", rows, 0)
	if err != nil {
		return [2]int{}, err
	}
	def := -1
	for i := range at {
		if i != r {
			def = i
			break
		}
	}
	c, err := attributeFlag(a, "cols", cols, def)
	if err != nil {
		return [2]int{}, err
	}
	if c == r {
		return [2]int{}, usageError{msg: fmt.Sprintf("-rows and -cols are both %q: choose two attributes, or -cols none", at[r].Name)}
	}
	return [2]int{r, c}, nil
}

// attributeFlag reads the attribute named by flag -rows or -cols: def
// when not given, −1 for -cols none.
func attributeFlag(a core.Alphabet, flag, name string, def int) (int, error) {
	if name == "" {
		return def, nil
	}
	if name == "none" && flag == "cols" {
		return -1, nil
	}
	if i := a.Attribute(name); i >= 0 {
		return i, nil
	}
	var names []string
	for _, x := range a.Attributes {
		names = append(names, x.Name)
	}
	return 0, usageError{msg: fmt.Sprintf("-%s %q: not an attribute of the study (%s)", flag, name, strings.Join(names, ", "))}
}

// parseSize reads -size, WxH from 100 to 10000 pixels each.
func parseSize(s string) (w, h int, err error) {
	ws, hs, ok := strings.Cut(strings.ToLower(s), "x")
	w, err1 := strconv.Atoi(ws)
	h, err2 := strconv.Atoi(hs)
	if !ok || err1 != nil || err2 != nil || w < 100 || h < 100 || w > 10000 || h > 10000 {
		return 0, 0, usageError{msg: fmt.Sprintf("-size %q: want WxH, each from 100 to 10000 pixels", s)}
	}
	return w, h, nil
}

// renderNotes are the figure's header lines: the grid (or the alphabet),
// the mechanisms and the colour scale.
func renderNotes(s *core.Study, o renderOpts, pxPerPt float64) []string {
	a := s.Alphabet
	grid := fmt.Sprintf("Grid: %d×%d cells of %.3g km · %s–%s, %s–%s", a.Cols, a.Rows, a.CellKm, human.Lat(a.South), human.Lat(a.North), human.Lon(a.West), human.Lon(a.East))
	if a.Kind != core.KindGrid {
		grid = fmt.Sprintf("Alphabet: %s, %s symbols", a.Kind, human.Thousands(a.Len()))
		if at := a.Attributes; len(at) > 0 {
			grid += " · drawn: " + at[o.table[0]].Name
			if o.table[1] >= 0 {
				grid += " × " + at[o.table[1]].Name
			}
			grid += " (the others summed out)"
		}
	}
	var mechs []string
	for _, m := range s.Mechanisms {
		mechs = append(mechs, fmt.Sprintf("%s (%s)", m.ID, guarantee.MechanismLevel(m)))
	}
	lines := []string{grid}
	if len(mechs) > 0 {
		// Header type is about 5.5 points a character.
		lines = append(lines, mapplot.WrapJoin("Mechanisms: ", mechs, int(float64(o.w)/pxPerPt/5.5))...)
	}
	// The true map is the data themselves: the header says so.
	return append(lines, "Colour scale: "+o.scale.String(), "Raw data: the true map shows people's data themselves, not a private release")
}

// runNote is the header line of a study's recorded run (the window
// saves it): users, seed, estimators and corrected EM's α.
func runNote(r *studyfile.RunSettings) string {
	users := "every datum"
	if r.Users > 0 {
		users = human.Thousands(r.Users) + " users"
	}
	s := fmt.Sprintf("Run: %s, seed %d", users, r.Seed)
	if len(r.Methods) > 0 {
		var ms []string
		for _, m := range r.Methods {
			ms = append(ms, string(m))
		}
		s += ", estimators " + strings.Join(ms, ", ")
	}
	if r.Alpha > 0 {
		s += fmt.Sprintf(", α = %g", r.Alpha)
	}
	return s
}

// openBasemap opens -basemap's source, nil for none: a value that is
// neither an .mbtiles file nor a URL template is a usage error, a file
// that cannot be read a failure.
func openBasemap(name string) (basemap.Source, error) {
	if name == "" {
		return nil, nil
	}
	src, err := basemap.Open(name, basemap.Options{CacheDir: basemap.DefaultCacheDir(), UserAgent: build.UserAgent})
	if err != nil && !strings.HasSuffix(strings.ToLower(name), ".mbtiles") {
		return nil, usageError{msg: "-basemap: " + err.Error()}
	}
	return src, err
}

// underlay fetches src's tiles for the maps and sets them under each, at
// the opacity; it returns the tiles' credit.
func underlay(ctx context.Context, src basemap.Source, maps []*mapplot.Map, o renderOpts) (string, error) {
	// Each map takes about its share of the width.
	l, err := basemap.Fetch(ctx, src, maps[0].Bound, o.w/len(maps), o.h)
	if err != nil {
		return "", err
	}
	for _, m := range maps {
		m.Basemap, m.Opacity = l, o.opacity
	}
	credit := cmp.Or(l.Attribution(), "no credit given by the source")
	if l.Missing > 0 {
		credit += fmt.Sprintf(" (%d tiles missing)", l.Missing)
	}
	return credit, nil
}

// tooSmall explains ErrTooSmall as a -size to enlarge.
func tooSmall(o renderOpts, err error) error {
	if errors.Is(err, mapplot.ErrTooSmall) {
		return usageError{msg: fmt.Sprintf("-size %dx%d leaves the maps no room beside their heading, axes and colour bar: give a larger -size", o.w, o.h)}
	}
	return err
}

// writePicture draws f as PNG or SVG, its type grown with the picture
// as in the window's exports (Figure.TypeScale).
func writePicture(w io.Writer, f *mapplot.Figure, o renderOpts) error {
	scale := f.TypeScale(o.w, o.h)
	if !o.svg {
		img, err := f.Image(o.w, o.h, scale)
		if err != nil {
			return tooSmall(o, err)
		}
		return output.WritePNG(w, img)
	}
	c := vgsvg.New(f.Fit(vg.Length(float64(o.w)/scale), vg.Length(float64(o.h)/scale)))
	if err := f.Draw(draw.New(c)); err != nil {
		return tooSmall(o, err)
	}
	return output.WriteStamped(w, output.StampSVG, func(w io.Writer) error { _, err := c.WriteTo(w); return err })
}
