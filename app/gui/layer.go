package gui

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/privmap/privmap/app/gis"
	"github.com/privmap/privmap/app/output"
	"github.com/privmap/privmap/app/release"
	"github.com/privmap/privmap/core"
	"github.com/privmap/privmap/geo"
	"github.com/privmap/privmap/geo/layer"
)

// layerHelp says what each kind of layer is, under the file's name,
// the formats that hold the same said together: ".geojson (GeoJSON) or
// .gpkg (GeoPackage): a polygon a cell, …; .tif (GeoTIFF): a raster …".
func layerHelp() string {
	var holds []string
	names := map[string][]string{}
	for _, f := range layer.Formats() {
		if names[f.Holds] == nil {
			holds = append(holds, f.Holds)
		}
		names[f.Holds] = append(names[f.Holds], fmt.Sprintf("%s (%s)", f.Exts[0], f.Name))
	}
	parts := make([]string, len(holds))
	for i, h := range holds {
		parts[i] = geo.OrList(names[h]) + ": " + h
	}
	return strings.Join(parts, "; ")
}

// errLayerKind refuses a file name whose extension names no layer.
var errLayerKind = layerKindError()

// layerKindError lists the layer formats by their extensions.
func layerKindError() error {
	var names []string
	for _, f := range layer.Formats() {
		names = append(names, fmt.Sprintf("%s (%s)", f.Exts[0], f.Name))
	}
	return fmt.Errorf("name the file %s: its extension chooses the format", geo.OrList(names))
}

// showLayerExport asks for a layer's file and whether to add the true
// map, raw data, and writes the layer that maps(raw) gives on grid a
// (gis.Grid) as the extension asks, no more readable than the data
// file source.
func showLayerExport(win fyne.Window, a fyne.App, name string, grid core.Alphabet, source, rawText string, maps func(raw bool) (gis.Maps, error)) {
	if _, err := gis.Grid(grid, gis.Maps{Estimate: make([]float64, grid.Len())}); err != nil {
		dialog.ShowInformation("No GIS layer for these data", "A GIS layer is a map of cells with a latitude–longitude box: "+
			"census tables and grids without a box have none. Export CSV… writes the numbers.", win)
		return
	}
	entry, path := pathEntry(win, name, layer.Exts())
	raw := widget.NewCheck(rawText, nil)
	items := []*widget.FormItem{
		{Text: "Format", Widget: widget.NewLabel("by the file's extension"), HintText: layerHelp()},
		{Text: "Raw data", Widget: raw, HintText: "the true map is people's data themselves, not a private release"},
	}
	showPathForm(win, "Export GIS layer", "Export", path, entry, items, func(name string) error {
		if _, ok := layer.FormatOf(name); !ok {
			return errLayerKind
		}
		m, err := maps(raw.Checked)
		if err != nil {
			return err
		}
		rememberFolder(a, name)
		return writeLayer(name, grid, m, source)
	})
}

// writeLayer writes the maps m on grid a as the GIS layer that name's
// extension asks for, all or nothing, no more readable than source.
func writeLayer(name string, a core.Alphabet, m gis.Maps, source string) error {
	f, ok := layer.FormatOf(name)
	if !ok {
		return errLayerKind
	}
	l, err := gis.Grid(a, m)
	if err != nil {
		return err
	}
	return output.WriteFile(name, func(w io.Writer) error { return f.Write(context.Background(), w, l) }, source)
}

// onExportLayer writes the estimate shown, with its intervals and, when
// asked, the true map and the difference, as a GIS layer.
func (c *compareTab) onExportLayer() {
	m := c.current()
	if m == nil {
		dialog.ShowInformation("Nothing to export", "Run an estimator first (Ctrl+R); its map can then be exported as a GIS layer.", c.win)
		return
	}
	showLayerExport(c.win, c.app, exportPath(c.app, c.res.ds.src, "-"+string(m.Method)+".gpkg"), c.res.Study.Alphabet, c.res.ds.src.path,
		"Add the true map and the difference", func(raw bool) (gis.Maps, error) { return c.layerMaps(m, raw), nil })
}

// layerMaps returns the maps of estimate m's layer: the estimate, its
// intervals, and with raw the truth.
func (c *compareTab) layerMaps(m *methodResult, raw bool) gis.Maps {
	lm := gis.Maps{Estimate: m.Estimate.Theta}
	if e := c.iv.of(m.Method); e != nil {
		lm.Intervals = e.Intervals
	}
	if raw {
		lm.Truth = c.res.Users.Truth
	}
	return lm
}

// onExportLayer writes the last release as a GIS layer: the columns
// render -release gives its CSV (the release is read back from the CSV
// it exports), and when asked the true counts.
func (r *releaseTab) onExportLayer() {
	res := r.last
	if res == nil {
		dialog.ShowInformation("Nothing to export", "Release the data's counts first.", r.win)
		return
	}
	a := res.ds.personStudy().Alphabet
	showLayerExport(r.win, r.app, exportPath(r.app, res.ds.src, "-"+res.spec.Mechanism+".gpkg"), a, res.ds.src.path,
		"Add the true counts", r.layerMaps)
}

// layerMaps returns the maps of the last release's layer: its counts as
// the CSV it exports holds them (written and read back, so that the
// columns are render -release's), and with raw the true counts.
func (r *releaseTab) layerMaps(raw bool) (gis.Maps, error) {
	res := r.last
	var b bytes.Buffer
	if err := release.Write(&b, res.counts, res.raw); err != nil {
		return gis.Maps{}, err
	}
	t, err := core.ReadCountTable(&b, len(res.raw))
	if err != nil {
		return gis.Maps{}, err
	}
	lm := gis.Maps{Released: t}
	if raw {
		lm.Counts = res.counts.Counts
	}
	return lm, nil
}

// A layerExporter is a screen whose maps File › Export layer… writes.
type layerExporter interface{ onExportLayer() }
