package cli

import (
	"cmp"
	"context"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/privmap/privmap/app/gis"
	"github.com/privmap/privmap/app/output"
	"github.com/privmap/privmap/app/studyfile"
	"github.com/privmap/privmap/core"
	"github.com/privmap/privmap/geo"
	"github.com/privmap/privmap/geo/layer"
)

// renderLayer is render to a GIS layer: the study's grid with a column
// for each map named (gis.Grid) — the truth, the estimate and its
// intervals, the release's counts — written as GeoJSON, GeoPackage or
// GeoTIFF by out's extension, all or nothing, and one JSON line saying
// what it holds. The picture's flags have no meaning here and are
// refused.
func renderLayer(ctx context.Context, fs *flag.FlagSet, f layer.Format, ok bool, studyName, truthName, estName, releaseName, out string,
	stdout, stderr io.Writer) error {
	if !ok {
		return usageError{msg: "-release adds a release's counts to a GIS layer (-o map" + geo.OrList(layer.Exts()) + "); a picture of a release is drawn by the window's Release screen"}
	}
	if err := cmp.Or(required(fs, "study"), distinct(fs, []string{"o"}, "truth", "estimate", "study", "release")); err != nil {
		return err
	}
	for _, n := range []string{"basemap", "overlay", "opacity", "scale", "size", "rows", "cols"} {
		if isSet(fs, n) {
			return usageError{msg: fmt.Sprintf("-%s shapes a picture; a GIS layer (%s) holds the values alone, for QGIS to draw", n, out)}
		}
	}
	if truthName == "" && estName == "" && releaseName == "" {
		return usageError{msg: "a GIS layer needs a map: -truth, -estimate or -release"}
	}
	as, err := studyfile.Open(studyName)
	if err != nil {
		return err
	}
	a := as.Study.Alphabet
	m, err := readLayerMaps(a, truthName, estName, releaseName)
	if err != nil {
		return err
	}
	l, err := gis.Grid(a, m)
	if err != nil {
		return fmt.Errorf("%s: %w", studyName, err)
	}
	var names []string
	for _, c := range l.Columns {
		names = append(names, c.Name)
	}
	line, err := json.Marshal(map[string]any{"layer": out, "cells": l.Grid.Len(), "columns": names, "crs": "EPSG:4326"})
	if err != nil {
		return err
	}
	var b output.Batch
	b.Add(out, func(w io.Writer) error { return f.Write(ctx, w, l) }, truthName, estName, studyName, releaseName)
	return commit(ctx, &b, stdout, stderr, printLine(line))
}

// readLayerMaps reads the maps of the files named on a's cells.
func readLayerMaps(a core.Alphabet, truthName, estName, releaseName string) (m gis.Maps, err error) {
	if truthName != "" {
		if m.Truth, err = readTruth(truthName, &a); err != nil {
			return m, err
		}
		if m.Counts, err = readCounts(truthName, a); err != nil {
			return m, err
		}
	}
	if estName != "" {
		if m.Estimate, m.Intervals, err = readEstimate(estName, a); err != nil {
			return m, err
		}
	}
	if releaseName != "" {
		m.Released, err = readCountFile(releaseName, a)
	}
	return m, err
}

// readCounts returns the truth file's counts, nil when its header has
// no count column (a distribution made by simulate or by hand).
func readCounts(name string, a core.Alphabet) ([]float64, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	hdr, err := csv.NewReader(f).Read()
	f.Close()
	if err != nil || !slices.ContainsFunc(hdr, func(h string) bool { return strings.EqualFold(strings.TrimSpace(h), "count") }) {
		return nil, nil
	}
	t, err := readCountFile(name, a)
	if err != nil {
		return nil, err
	}
	return t.Counts, nil
}

// readCountFile reads a count table on a's cells.
func readCountFile(name string, a core.Alphabet) (*core.CountTable, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := core.ReadCountTable(f, a.Len())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return t, nil
}

// layerNames lists the GIS layer formats for help: ".geojson, .gpkg
// (GeoPackage) or .tif (GeoTIFF)", a format's name said where its
// extension does not say it.
func layerNames() string {
	var names []string
	for _, f := range layer.Formats() {
		n := f.Exts[0]
		if !strings.EqualFold(n[1:], f.Name) {
			n += " (" + f.Name + ")"
		}
		names = append(names, n)
	}
	return geo.OrList(names)
}
