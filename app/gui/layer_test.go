package gui

import (
	"slices"
	"testing"
)

// TestLayerHelp is the export dialog's words, from geo/layer's
// registry: formats that hold the same said together.
func TestLayerHelp(t *testing.T) {
	if want := ".geojson (GeoJSON) or .gpkg (GeoPackage): a polygon a cell, with its numbers, for QGIS or kepler.gl; .tif (GeoTIFF): a raster of one pixel a cell"; layerHelp() != want {
		t.Errorf("layerHelp() = %q\nwant %q", layerHelp(), want)
	}
	if want := "name the file .geojson (GeoJSON), .gpkg (GeoPackage) or .tif (GeoTIFF): its extension chooses the format"; errLayerKind.Error() != want {
		t.Errorf("errLayerKind = %q", errLayerKind)
	}
}

// TestDataExts offers in the Open dialog every extension a check-in or
// census layout names, each once.
func TestDataExts(t *testing.T) {
	want := []string{".csv", ".dat", ".data", ".geojson", ".geojsonl", ".parquet", ".test", ".tsv", ".txt", ".xlsx"}
	if !slices.Equal(dataExts, want) {
		t.Errorf("dataExts = %q, want %q", dataExts, want)
	}
}
