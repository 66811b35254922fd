package gui

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/parquet-go/parquet-go"
	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/wkb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/xuri/excelize/v2"

	"github.com/privmap/privmap/app/build"
	"github.com/privmap/privmap/app/studyfile"
	"github.com/privmap/privmap/geo"
)

// spreadsheetExport is a spreadsheet's CSV: a BOM, semicolons, decimal
// commas, CRLF, and one row whose latitude is out of range.
const spreadsheetExport = "\xEF\xBB\xBFUser ID;Latitude (WGS84);Longitude (WGS84);Check-in Time\r\n" +
	"ann;37,77;-122,41;2024-01-02T10:00:00Z\r\n" +
	"ann;97,78;-122,42;2024-01-02T11:00:00Z\r\n" +
	"bob;37,76;-122,40;2024-01-03T09:30:00Z\r\n"

// tsmcStyle is a headerless tab-separated file in the TSMC layout, one
// of its names in Latin-1.
const tsmcStyle = "470\t49bbd6c0\t4bf58dd8\tArts & Crafts Store\t37.7198\t-122.4025\t-240\tTue Apr 03 18:00:09 +0000 2012\n" +
	"979\t4a43c0ae\t4bf58dd8\tCaf\xe9\t37.7067\t-122.4441\t-240\tTue Apr 03 18:00:25 +0000 2012\n" +
	"979\t4a43c0ae\t4bf58dd8\tCaf\xe9\t37.7068\t-122.4442\t-240\tWed Apr 04 08:00:25 +0000 2012\n"

// TestImportDialog: a delimited file opens the import dialog with the
// guesses pre-selected and each row's outcome; Load reads the file by the
// mapping (the failing row skipped when the person agrees), the study
// records it and a file named alike is offered the same mapping.
func TestImportDialog(t *testing.T) {
	w, d := newTestUI(t)
	before := d.ws.data
	d.openFile(bytesSource("export_2024-01.csv", []byte(spreadsheetExport)))
	im := d.importer
	require.NotNil(t, im, "no import dialog")
	assert.Same(t, before, d.ws.data, "loaded before the dialog's Load")
	assert.Equal(t, "semicolon", im.delim.Selected)
	assert.Equal(t, "yes", im.header.Selected)
	for kind, want := range map[string]string{"user": "1 · User ID", "lat": "2 · Latitude (WGS84)", "lon": "3 · Longitude (WGS84)", "time": "4 · Check-in Time", "loc": noColumn} {
		assert.Equal(t, want, im.cols[kind].Selected, kind)
	}
	rows, cols := im.tableSize()
	require.Equal(t, 4, rows)
	require.Equal(t, 6, cols)
	text, _, _ := im.cellText(1, 1)
	assert.Equal(t, "✓ 37.7700°N 122.4100°W · person ann · 2024-01-02 10:00:00Z", text)
	text, _, _ = im.cellText(2, 1)
	assert.Equal(t, `✗ field 2: "97.78": invalid latitude`, text)
	text, _, _ = im.cellText(2, 0)
	assert.Equal(t, "✗ 3", text)
	text, _, _ = im.cellText(0, 3)
	assert.Equal(t, "2 · Latitude (WGS84) → latitude", text)
	assert.Contains(t, im.summary.Text, "Fields split at semicolons; line 1 is the header. 2 of the first 3 rows read; 1 would fail")
	assert.False(t, im.load.Disabled())

	test.Tap(im.load)
	settle(t)
	top := w.Canvas().Overlays().Top()
	require.NotNil(t, top, "the failing row was not reported")
	yes := findButton(top, "Yes")
	require.NotNil(t, yes, "no offer to skip the failing row")
	test.Tap(yes)
	settle(t)
	require.NotSame(t, before, d.ws.data)
	assert.Equal(t, "2 check-ins · 2 users", d.fields["Records"].Text)
	src := d.ws.data.studySource()
	assert.Equal(t, "user=User ID,lat=Latitude (WGS84),lon=Longitude (WGS84),time=Check-in Time,loc=none", src.Columns)
	assert.Equal(t, "semicolon", src.Delim)
	assert.Equal(t, "yes", src.Header)

	m := rememberedMapping(d.app.Preferences(), "Export_2025-12.csv")
	require.NotNil(t, m, "the mapping was not remembered for a file named alike")
	assert.Equal(t, ';', m.Delim)
	d.openFile(bytesSource("export_2025-12.csv", []byte(spreadsheetExport)))
	require.NotSame(t, im, d.importer)
	assert.Equal(t, "2 · Latitude (WGS84)", d.importer.cols["lat"].Selected)
	d.importer.dlg.Hide()
}

// TestImportHeaderless: a headerless TSMC-style file cannot be read by
// the guesses; picking latitude and longitude by number reads it, with
// no header, and a person column picked counts people.
func TestImportHeaderless(t *testing.T) {
	_, d := newTestUI(t)
	d.showImport(bytesSource("tokyo.tsv", []byte(tsmcStyle)), nil)
	im := d.importer
	require.NotNil(t, im)
	// The coordinates guessed from the values.
	assert.Empty(t, im.problem.Text)
	assert.False(t, im.load.Disabled())
	assert.Equal(t, "column 5", im.cols["lat"].Selected)
	assert.Equal(t, "column 6", im.cols["lon"].Selected)
	assert.Equal(t, noColumn, im.cols["user"].Selected)
	assert.Contains(t, im.summary.Text, "Fields split at tabs; no header line; read as Latin-1 (not UTF-8). 3 of the first 3 rows read. No person column")
	text, _, _ := im.cellText(2, 5)
	assert.Equal(t, "Café", text)

	im.cols["lat"].SetSelected(noColumn)
	assert.True(t, im.load.Disabled(), "loadable without a latitude")
	assert.Contains(t, im.problem.Text, "The file cannot be read this way")
	assert.Contains(t, im.summary.Text, "no header line")
	im.cols["lat"].SetSelected("column 5")
	im.cols["user"].SetSelected("column 1")
	im.cols["time"].SetSelected("column 8")
	assert.Empty(t, im.problem.Text)
	assert.False(t, im.load.Disabled())
	assert.Equal(t, "no", im.header.Selected)
	rows, _ := im.tableSize()
	assert.Equal(t, 4, rows, "the first line is data")
	text, _, _ = im.cellText(1, 1)
	assert.Equal(t, "✓ 37.7198°N 122.4025°W · person 470 · 2012-04-03 18:00:09Z", text)

	test.Tap(im.load)
	settle(t)
	assert.Equal(t, "3 check-ins · 2 users", d.fields["Records"].Text)
	assert.False(t, d.perUser.Disabled())
	assert.Equal(t, "user=1,lat=5,lon=6,time=8,loc=none", d.ws.data.studySource().Columns)
}

// TestImportNoPerson: a file without a person column says so in the
// dialog and disables the per-person choices once loaded; x and y are
// read as coordinates only once confirmed.
func TestImportNoPerson(t *testing.T) {
	w, d := newTestUI(t)
	d.openFile(bytesSource("stops.csv", []byte("stop;X;Y\nA;-122.41;37.77\nB;-122.42;37.78\n")))
	im := d.importer
	require.NotNil(t, im)
	assert.True(t, im.xy.Visible(), "no confirmation offered for x and y")
	assert.True(t, im.load.Disabled())
	assert.Equal(t, noColumn, im.cols["lat"].Selected, "y guessed as latitude")
	im.xy.SetChecked(true)
	assert.Equal(t, "3 · Y", im.cols["lat"].Selected)
	assert.Equal(t, "2 · X", im.cols["lon"].Selected)
	assert.False(t, im.load.Disabled())
	assert.Contains(t, im.summary.Text, "No person column: every row is treated as a person")
	test.Tap(im.load)
	settle(t)
	assert.Nil(t, w.Canvas().Overlays().Top(), "a dialog after loading")
	assert.True(t, strings.HasSuffix(d.fields["Records"].Text, geo.NoPersonNote), d.fields["Records"].Text)
	assert.True(t, d.perUser.Disabled(), "per-person choices offered without a person column")
	// A SNAP file loads at once, and its per-person choices come back.
	d.openFile(bytesSource("snap.txt", []byte("u\t2010-08-19T20:51:29Z\t37.76\t-122.42\t1\n")))
	settle(t)
	assert.Same(t, im, d.importer, "a SNAP file went through the import dialog")
	assert.False(t, d.perUser.Disabled())
}

// TestImportWorkbook: an Excel workbook opens the import dialog with a
// sheet picker instead of the delimiter and encoding; another sheet,
// whose rows have no header, is read by the coordinates guessed from its
// cells, and the study records the sheet.
func TestImportWorkbook(t *testing.T) {
	wb := excelize.NewFile()
	require.NoError(t, wb.SetSheetName("Sheet1", "Visits"))
	for i, r := range [][]any{{"person", "lat", "lon"}, {"ann", 37.77, -122.41}} {
		cell, _ := excelize.CoordinatesToCellName(1, i+1)
		require.NoError(t, wb.SetSheetRow("Visits", cell, &r))
	}
	_, err := wb.NewSheet("Stops")
	require.NoError(t, err)
	for i, r := range [][]any{{"A", 37.7749, -122.4194}, {"B", 37.7755, -122.4188}, {"C", 37.7761, -122.4180}} {
		cell, _ := excelize.CoordinatesToCellName(1, i+1)
		require.NoError(t, wb.SetSheetRow("Stops", cell, &r))
	}
	var buf bytes.Buffer
	require.NoError(t, wb.Write(&buf))

	_, d := newTestUI(t)
	d.openFile(bytesSource("visits.xlsx", buf.Bytes()))
	im := d.importer
	require.NotNil(t, im, "no import dialog for a workbook")
	assert.Equal(t, "Visits", im.sheet.Selected)
	assert.Equal(t, []string{"Visits", "Stops"}, im.sheet.Options)
	assert.True(t, im.sheet.Visible())
	assert.False(t, im.delim.Visible(), "a delimiter offered for a workbook")
	assert.Equal(t, "1 · person", im.cols["user"].Selected)
	assert.Contains(t, im.summary.Text, `Sheet "Visits", one of 2; row 1 is the header. 1 of the first 1 rows read.`)

	im.sheet.SetSelected("Stops")
	assert.Empty(t, im.problem.Text)
	assert.Equal(t, "column 2", im.cols["lat"].Selected)
	assert.Equal(t, "column 3", im.cols["lon"].Selected)
	assert.Equal(t, "no", im.header.Selected)
	test.Tap(im.load)
	settle(t)
	assert.Equal(t, "3 check-ins · 3 users · "+geo.NoPersonNote, d.fields["Records"].Text)
	assert.Equal(t, `xlsx format (sheet "Stops") · 3 rows · 0 skipped`, d.fields["Read"].Text)
	assert.Equal(t, "Stops", d.ws.data.studySource().Sheet)
	m := rememberedMapping(d.app.Preferences(), "visits.xlsx")
	require.NotNil(t, m, "the workbook's mapping was not remembered")
	assert.Equal(t, "Stops", m.Sheet, "the sheet was not remembered")
}

// TestImportStudyReopens: a study saved after an import records the
// mapping, and opening it reads the file by the mapping again, without
// the dialog.
func TestImportStudyReopens(t *testing.T) {
	name := filepath.Join(t.TempDir(), "tokyo.tsv")
	require.NoError(t, os.WriteFile(name, []byte(tsmcStyle), 0o644))
	_, u := newTestWindow(t)
	settle(t)
	u.data.showImport(uriSource(storage.NewFileURI(name)), nil)
	im := u.data.importer
	im.cols["user"].SetSelected("column 1")
	test.Tap(im.load)
	settle(t)
	s, err := u.study()
	require.NoError(t, err)
	assert.Equal(t, name, s.Source.Path)
	assert.Equal(t, "user=1,lat=5,lon=6,time=none,loc=none", s.Source.Columns)
	reopen(t, u, s)
	assert.Same(t, im, u.data.importer, "the dialog was shown again")
	assert.Equal(t, "tokyo.tsv", u.data.fields["File"].Text)
	assert.Equal(t, "3 check-ins · 2 users", u.data.fields["Records"].Text)
	got, err := u.study()
	require.NoError(t, err)
	assert.Equal(t, s.Source, got.Source)
}

// TestLoadGeoLayers opens a GeoJSON and a GeoParquet point layer: each
// loads at once (no column dialog: their attributes have names), with
// progress for the layer read from its path.
func TestLoadGeoLayers(t *testing.T) {
	dir := t.TempDir()
	gj := filepath.Join(dir, "visits.geojson")
	require.NoError(t, os.WriteFile(gj, []byte(`{"type":"FeatureCollection","features":[`+
		`{"type":"Feature","properties":{"user":"ann"},"geometry":{"type":"Point","coordinates":[-122.41,37.77]}},`+
		`{"type":"Feature","properties":{"user":"ann"},"geometry":{"type":"Point","coordinates":[-122.42,37.78]}},`+
		`{"type":"Feature","properties":{"user":"bob"},"geometry":{"type":"Point","coordinates":[-122.40,37.76]}}]}`), 0o644))
	_, d := newTestUI(t)
	settle(t)
	d.openFile(uriSource(storage.NewFileURI(gj)))
	settle(t)
	assert.Nil(t, d.importer, "a dialog for GeoJSON")
	assert.Equal(t, "geojson format · 3 features · 0 skipped", d.fields["Read"].Text)
	assert.Equal(t, "3 check-ins · 2 users", d.fields["Records"].Text)
	assert.True(t, d.columns.Disabled(), "columns offered for GeoJSON")

	type row struct {
		Geometry []byte `parquet:"geometry"`
		User     string `parquet:"user_id"`
	}
	pq := filepath.Join(dir, "visits.parquet")
	fh, err := os.Create(pq)
	require.NoError(t, err)
	w := parquet.NewGenericWriter[row](fh, parquet.KeyValueMetadata("geo", `{"version":"1.1.0","primary_column":"geometry","columns":{"geometry":{"encoding":"WKB"}}}`))
	var rows []row
	for i, p := range []orb.Point{{-122.41, 37.77}, {-122.42, 37.78}} {
		b, err := wkb.Marshal(p)
		require.NoError(t, err)
		rows = append(rows, row{b, []string{"ann", "bob"}[i]})
	}
	_, err = w.Write(rows)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	require.NoError(t, fh.Close())
	d.openFile(uriSource(storage.NewFileURI(pq)))
	settle(t)
	assert.Equal(t, "geoparquet format · 2 rows · 0 skipped", d.fields["Read"].Text)
	assert.Equal(t, "2 check-ins · 2 users", d.fields["Records"].Text)
}

// TestStudyOfJoinedLayout: a study of Foursquare's global-scale
// check-ins records their format and venues file, and the window reads
// them again by the join when it opens the study.
func TestStudyOfJoinedLayout(t *testing.T) {
	dir := t.TempDir()
	venues := filepath.Join(dir, "pois.txt")
	checkins := filepath.Join(dir, "checkins.txt")
	require.NoError(t, os.WriteFile(venues, []byte("3fd66200f964a52000e71ee3\t37.7735\t-122.4194\tJazz Club\tUS\n4a43c0aef964a520c6a61fe3\t37.7715\t-122.4214\tCafé\tUS\n"), 0o644))
	require.NoError(t, os.WriteFile(checkins, []byte("50756\t4a43c0aef964a520c6a61fe3\tTue Apr 03 18:00:06 +0000 2012\t-420\n"+
		"190571\t3fd66200f964a52000e71ee3\tTue Apr 03 18:00:07 +0000 2012\t-420\n190571\t4a43c0aef964a520c6a61fe3\tTue Apr 03 19:00:07 +0000 2012\t-420\n"), 0o644))
	_, u := newTestWindow(t)
	settle(t)
	src := uriSource(storage.NewFileURI(checkins))
	src.layout = &geo.Input{Path: checkins, Format: geo.FoursquareGlobal, Venues: venues}
	u.data.load(src, false)
	settle(t)
	assert.Equal(t, "3 check-ins · 2 users", u.data.fields["Records"].Text)
	s, err := u.study()
	require.NoError(t, err)
	assert.Equal(t, "foursquare-global", s.Source.Format)
	assert.Equal(t, venues, s.Source.Venues)
	reopen(t, u, s)
	assert.Equal(t, "checkins.txt", u.data.fields["File"].Text)
	assert.Equal(t, "foursquare-global format · 3 lines · 0 skipped", u.data.fields["Read"].Text)
}

// reopen saves the study s, loads the embedded data instead, and opens
// s again, as a person who saved and later opened it would.
func reopen(t *testing.T, u *ui, s *studyfile.Study) {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, studyfile.Write(&buf, s))
	u.data.load(defaultSource(), false)
	settle(t)
	require.NoError(t, u.openStudy(buf.Bytes(), "study.json"))
	settle(t)
}

// TestAbout shows the build, OpenStreetMap's credit and the licences in
// Help › About.
func TestAbout(t *testing.T) {
	w, u := newTestWindow(t)
	settle(t)
	u.showAbout()
	top := w.Canvas().Overlays().Top()
	require.NotNil(t, top, "no About dialog")
	text := overlayTexts(top)
	for _, want := range []string{"privmap " + build.Version, "© OpenStreetMap contributors", "fyne.io/fyne/v2", "privmap version -licences"} {
		assert.Contains(t, text, want)
	}
}

// TestWindowSizeRemembered: the window's size is written as it changes
// (once it settles), and a size not yet written is on closing.
func TestWindowSizeRemembered(t *testing.T) {
	w, u := newTestWindow(t)
	settle(t)
	w.Resize(fyne.NewSize(1400, 900))
	got := w.Canvas().Size() // as Resize takes it, menu included
	require.NotNil(t, u.size.pending, "no write scheduled after a resize")
	u.size.flush() // what the timer does a second later
	assert.Equal(t, got, WindowSize(u.app))
	w.Resize(fyne.NewSize(1250, 820))
	got = w.Canvas().Size()
	u.closed() // as closing the window does
	assert.Equal(t, got, WindowSize(u.app), "the last size was not written on closing")
}

// TestOpenTypedPath: Open… takes a path typed or pasted, refuses a
// folder or a missing file before opening, and opens the file typed
// (here through the import dialog, a CSV).
func TestOpenTypedPath(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "typed.csv")
	require.NoError(t, os.WriteFile(name, []byte(spreadsheetExport), 0o644))
	w, d := newTestUI(t)
	settle(t)
	d.onOpen()
	entry, ok := w.Canvas().Focused().(*widget.Entry)
	require.True(t, ok, "the path is not focused")
	entry.SetText(dir)
	assert.ErrorContains(t, entry.Validate(), "a folder")
	entry.SetText(filepath.Join(dir, "missing.csv"))
	assert.ErrorContains(t, entry.Validate(), "no such file")
	entry.SetText(name)
	require.NoError(t, entry.Validate())
	entry.OnSubmitted(entry.Text) // Enter
	require.NotNil(t, d.importer, "the typed file was not opened")
	assert.Equal(t, "typed.csv", d.importer.src.name)
	assert.Equal(t, dir, d.app.Preferences().String(prefOpened), "its folder was not remembered")
}
