package layer

import (
	"slices"
	"testing"
)

// TestFormatOf finds each format by its extensions, in any case.
func TestFormatOf(t *testing.T) {
	for name, want := range map[string]string{"a.geojson": "GeoJSON", "B.GPKG": "GeoPackage", "c.tif": "GeoTIFF", "d.tiff": "GeoTIFF"} {
		if f, ok := FormatOf(name); !ok || f.Name != want || f.Write == nil {
			t.Errorf("FormatOf(%q) = %q, %v, want %q", name, f.Name, ok, want)
		}
	}
	for _, name := range []string{"map.png", "map", "map.kml"} {
		if f, ok := FormatOf(name); ok {
			t.Errorf("FormatOf(%q) = %q", name, f.Name)
		}
	}
	if got := Exts(); !slices.Equal(got, []string{".geojson", ".gpkg", ".tif"}) {
		t.Errorf("Exts() = %q", got)
	}
	fs := Formats()
	fs[0].Name = "changed"
	if Formats()[0].Name != "GeoJSON" {
		t.Error("Formats handed out the registry")
	}
}
