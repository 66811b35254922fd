package main

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// layers is docs/ARCHITECTURE.md's table of packages: for each package of the
// module, the prefixes of the import paths it may use besides the
// standard library.
var layers = map[string][]string{
	"internal/linalg":       {"gonum.org/v1/gonum/", "golang.org/x/sys/cpu\x00"},
	"internal/testtool":     {},
	"internal/parquetcheck": {"github.com/parquet-go/parquet-go\x00", "github.com/parquet-go/parquet-go/format\x00", "github.com/parquet-go/parquet-go/encoding/thrift\x00", "github.com/klauspost/compress/gzip\x00", "github.com/klauspost/compress/snappy\x00", "github.com/klauspost/compress/zstd\x00", "github.com/andybalholm/brotli\x00", "github.com/pierrec/lz4/v4\x00"},
	"core":                  {"gonum.org/v1/gonum/", mod + "internal/linalg\x00"},
	"core/central":          {"gonum.org/v1/gonum/", mod + "internal/linalg\x00"},
	"core/emd":              {"gonum.org/v1/gonum/", mod + "core\x00", mod + "internal/linalg\x00"},
	"geo":                   {"github.com/paulmach/orb", "golang.org/x/text/cases\x00", "golang.org/x/text/unicode/norm\x00", mod + "core\x00", mod + "geo", "github.com/xuri/excelize/v2\x00", "github.com/parquet-go/parquet-go\x00", "github.com/parquet-go/parquet-go/format\x00", mod + "internal/parquetcheck\x00"},
	"geo/census":            {"github.com/paulmach/orb", mod + "core\x00", mod + "geo"},
	"geo/layer":             {"github.com/paulmach/orb", "modernc.org/sqlite\x00"},
	"assets":                {},
	"assets/gen":            {mod + "geo"},
	"assets/licences/gen":   {},
	// The application's services, each one job (docs/ARCHITECTURE.md).
	"app/human":     {},
	"app/build":     {mod + "assets\x00"},
	"app/output":    {mod + "app/build\x00", mod + "geo\x00"},
	"app/guarantee": append(coreAll, mod+"app/human\x00"),
	"app/interval":  append(coreAll, mod+"app/human\x00"),
	"app/pipeline": append(coreAll, mod+"app/human\x00", mod+"app/interval\x00", "github.com/parquet-go/parquet-go\x00", "github.com/parquet-go/parquet-go/format\x00",
		"github.com/parquet-go/parquet-go/encoding/thrift\x00", mod+"internal/parquetcheck\x00"),
	"app/release":                       append(coreAll, mod+"app/human\x00", mod+"app/guarantee\x00", mod+"app/pipeline\x00"),
	"app/plan":                          append(coreAll, mod+"app/human\x00", mod+"app/interval\x00", mod+"app/pipeline\x00"),
	"app/attack":                        append(coreAll, mod+"app/human\x00", mod+"app/guarantee\x00", mod+"app/interval\x00", mod+"app/pipeline\x00", mod+"app/plan\x00"),
	"app/studyfile":                     append(coreAll, mod+"app/build\x00", mod+"app/ledger\x00", mod+"app/plan\x00", mod+"geo"),
	"app/gis":                           append(coreAll, mod+"app/output\x00", mod+"geo/layer\x00"),
	"app/mapplot":                       {"gonum.org/v1/plot", "gonum.org/v1/gonum/", "github.com/paulmach/orb", mod + "core\x00"},
	"app/basemap":                       {"github.com/paulmach/orb", "modernc.org/sqlite\x00"},
	"app/basemap/basemaptest":           {"github.com/paulmach/orb", "modernc.org/sqlite\x00"},
	"app/basemap/basemaptest/mkmbtiles": {"github.com/paulmach/orb", mod + "app/basemap/basemaptest"},
	"app/clocale":                       {},
	"app/ledger":                        {"modernc.org/sqlite\x00"},
	"app/fynelog":                       {},
	"app/report":                        withApp(mod+"app/mapplot\x00", mod+"geo\x00", "codeberg.org/go-pdf/fpdf\x00", "codeberg.org/go-fonts/liberation/"),
	"app/experiment":                    withApp(mod+"app/mapplot\x00", mod+"assets\x00", mod+"geo", "gonum.org/v1/gonum/", "gonum.org/v1/plot"),
	// The two front ends share the application layer and its figures,
	// maps and experiments; neither imports the other.
	"app/cli": withApp(mod+"assets\x00", mod+"app/basemap", mod+"app/experiment\x00", mod+"app/ledger\x00", mod+"app/mapplot\x00", mod+"app/report\x00",
		mod+"geo", "github.com/paulmach/orb", "gonum.org/v1/plot/"),
	"app/gui": withApp("fyne.io/fyne/v2/widget", "fyne.io/fyne/v2/container", "fyne.io/fyne/v2/dialog", "fyne.io/fyne/v2/canvas",
		"fyne.io/fyne/v2/theme", "fyne.io/fyne/v2/storage", "fyne.io/fyne/v2/data/", "fyne.io/fyne/v2/driver/", "fyne.io/fyne/v2/driver\x00",
		"fyne.io/fyne/v2/layout", "fyne.io/fyne/v2\x00", "fyne.io/fyne/v2/test", "github.com/stretchr/testify/",
		mod+"app/basemap", mod+"app/experiment\x00", mod+"app/ledger\x00", mod+"app/mapplot\x00", mod+"app/report\x00", mod+"assets\x00",
		mod+"geo", "github.com/paulmach/orb", "gonum.org/v1/gonum/"),
	".": {mod + "app/gui\x00", mod + "app/cli\x00", mod + "app/clocale\x00", mod + "app/fynelog\x00", "fyne.io/fyne/v2/app\x00"},
}

// services are the application's services, which the front ends, the
// report and the experiments use.
var services = []string{mod + "app/human\x00", mod + "app/build\x00", mod + "app/output\x00", mod + "app/guarantee\x00", mod + "app/interval\x00",
	mod + "app/pipeline\x00", mod + "app/release\x00", mod + "app/plan\x00", mod + "app/attack\x00", mod + "app/studyfile\x00", mod + "app/gis\x00"}

// withApp returns core, its leaves and the services with more.
func withApp(more ...string) []string {
	return slices.Concat(coreAll, services, more)
}

// coreAll is core with its leaves, which the application layer uses;
// internal/linalg is core's own.
var coreAll = []string{mod + "core\x00", mod + "core/central\x00", mod + "core/emd\x00"}

// testOnly adds what a package's tests may import besides its layer and
// the package itself.
var testOnly = map[string][]string{
	"assets": {mod + "geo"},                                         // the embedded data must read as check-ins
	"core":   {mod + "core/emd\x00", mod + "internal/testtool\x00"}, // the examples measure an estimate; benchmarks their peak heap
	"geo":    {mod + "internal/testtool\x00"},
	// The report's JSON is validated against its published schema; GIS
	// layers and PDFs are read with the field's own programs.
	"app/cli": {"github.com/santhosh-tekuri/jsonschema/v6\x00", mod + "internal/testtool\x00", "github.com/xuri/excelize/v2\x00"},
	// Workbooks to import are written with the library that reads them.
	"app/gui": {"github.com/xuri/excelize/v2\x00", "github.com/parquet-go/parquet-go\x00", mod + "internal/testtool\x00"},
	// Budgets in processor time (testtool.CPUTime).
	"app/mapplot": {mod + "internal/testtool\x00"},
	"app/basemap": {mod + "internal/testtool\x00"},
	"geo/layer":   {mod + "internal/testtool\x00"},
	// Hostile pages are written under a codec's name by a forged codec.
	"internal/parquetcheck": {"github.com/parquet-go/parquet-go/compress\x00"},
	// The packaged files' versions are checked against build.Version.
	".": {mod + "app/build\x00"},
	// Reports are drawn from seeded streams.
	"app/guarantee": {mod + "app/pipeline\x00"},
}

const mod = "github.com/privmap/privmap/"

// TestLayers checks that every package imports only what its layer may:
// core knows no Fyne, orb or privmap package, the application layer no
// Fyne, and only main opens a Fyne app.
func TestLayers(t *testing.T) {
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		if strings.Contains(dir, "testdata") {
			return nil
		}
		allowed, ok := layers[dir]
		if !ok {
			t.Errorf("%s: package %s has no line in arch_test.go's layers", path, dir)
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		if strings.HasSuffix(path, "_test.go") {
			allowed = append(slices.Clip(allowed), testOnly[dir]...)
			allowed = append(allowed, mod+dir+"\x00")
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if !strings.Contains(strings.SplitN(p, "/", 2)[0], ".") {
				continue // the standard library
			}
			if !slices.ContainsFunc(allowed, func(a string) bool { return strings.HasPrefix(p+"\x00", a) }) {
				t.Errorf("%s imports %s, which its layer may not", path, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestArchitectureMap checks that docs/ARCHITECTURE.md's table of
// packages names every package of the module, or the package it
// belongs to (app/basemap for app/basemap/basemaptest), so that the map
// stays true as packages come and go.
func TestArchitectureMap(t *testing.T) {
	b, err := os.ReadFile("docs/ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	if n := strings.Count(doc, "\n"); n > 120 {
		t.Errorf("docs/ARCHITECTURE.md has %d lines: the map is one page, at most 120", n)
	}
	for dir := range layers {
		name := dir
		if dir == "." {
			name = "main"
		}
		for !strings.Contains(doc, "`"+name+"`") {
			parent := filepath.Dir(name)
			if parent == "." {
				t.Errorf("docs/ARCHITECTURE.md's table of packages does not name %s", dir)
				break
			}
			name = parent
		}
	}
}
