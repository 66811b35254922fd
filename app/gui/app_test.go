package gui

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/paulmach/orb"
	"github.com/privmap/privmap/app/human"
	"github.com/privmap/privmap/app/studyfile"
	"github.com/privmap/privmap/assets"
	"github.com/privmap/privmap/geo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// newTestUI builds the window on the test driver and waits for the
// embedded data to load.
func newTestUI(t *testing.T) (fyne.Window, *dataTab) {
	t.Helper()
	w, u := newTestWindow(t)
	return w, u.data
}

// newTestWindow is newTestUI, returning all the screens.
func newTestWindow(t *testing.T) (fyne.Window, *ui) {
	t.Helper()
	return openTestWindow(t, test.NewTempApp(t))
}

// openTestWindow opens a window of a on file (the embedded data when
// none) and waits until its data are shown and audited.
func openTestWindow(t *testing.T, a fyne.App, file ...string) (fyne.Window, *ui) {
	t.Helper()
	if a.Preferences().String(prefBasemap) == "" {
		a.Preferences().SetString(prefBasemap, basemapNone) // tests never reach the internet
	}
	// A bootstrap after every run would multiply the tests' time;
	// TestIntervals ticks the choice.
	a.Preferences().SetBool(prefRunIntervals, false)
	if a.Preferences().String(prefRelLedger) == "" { // a ledger of the test's own
		a.Preferences().SetString(prefRelLedger, filepath.Join(t.TempDir(), "ledger.sqlite"))
	}
	if !a.Preferences().Bool(prefWelcomed) { // TestWelcome opens its own
		a.Preferences().SetBool(prefWelcomed, true)
	}
	w := a.NewWindow("privmap")
	u := newUI(a, w, file...)
	settle(t) // the data load and are audited before the window lays out

	w.SetContent(u.content)
	w.Resize(DefaultSize)
	t.Cleanup(w.Close)
	return w, u
}

func TestDefaultDataLoads(t *testing.T) {
	_, d := newTestUI(t)
	require.NotNil(t, d.ws.data)
	assert.Equal(t, "synthetic San Francisco check-ins (embedded)", d.fields["File"].Text)
	assert.Equal(t, "13,779 check-ins · 2,000 users", d.fields["Records"].Text)
	assert.Equal(t, "snap format · 13,779 lines · 0 skipped", d.fields["Read"].Text)
	assert.Equal(t, "2,000 (first per user) · 0 outside box · at most 1 of one person", d.fields["Data"].Text)
	assert.True(t, strings.HasPrefix(d.fields["Cells"].Text, "24 × 16 = 384 · "), d.fields["Cells"].Text)
	assert.Equal(t, "0.5002 × 0.4995 km", d.fields["Cell size"].Text)
	m := d.heat.Map
	require.NotNil(t, m)
	assert.Equal(t, 384, len(m.Values))
	sum := 0.0
	for _, v := range m.Values {
		sum += v
	}
	assert.Equal(t, 2000.0, sum)
	assert.False(t, d.busyRow.Visible())
	assert.False(t, d.skipped.Visible())
}

// TestStalePreferences checks that a stored choice that is no longer
// offered falls back to the default instead of leaving a blank selection.
func TestStalePreferences(t *testing.T) {
	a := test.NewTempApp(t)
	a.Preferences().SetString(prefScale, "square root")
	a.Preferences().SetString(prefPerUser, perUserAll)
	_, u := openTestWindow(t, a)
	d := u.data
	assert.Equal(t, scaleSqrt, d.scale.Selected)
	assert.Equal(t, perUserAll, d.perUser.Selected)
	assert.Equal(t, "13,779 (all per user) · 0 outside box · at most 51 of one person", d.fields["Data"].Text)
}

func TestHeatmapHover(t *testing.T) {
	w, d := newTestUI(t)
	w.Canvas().Capture() // draws the raster, placing the cells
	h := d.heat
	require.NotNil(t, h.img)
	for _, cell := range []int{0, 23, 200, 383} {
		cr := h.data.CellRect(h.Map, cell)
		pos := fyne.NewPos(float32((cr.X0+cr.X1)/2)*h.Size().Width, float32((cr.Y0+cr.Y1)/2)*h.Size().Height)
		h.MouseMoved(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: pos}})
		assert.Equal(t, cellInfo(d.ws.data.grid, cell), d.hover.Text)
	}
	h.MouseMoved(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(0, 0)}})
	assert.True(t, strings.HasPrefix(d.hover.Text, "Hover over a cell"), d.hover.Text)
	h.MouseOut()
	assert.Equal(t, -1, h.hovered)
}

func TestCellInfo(t *testing.T) {
	_, d := newTestUI(t)
	got := cellInfo(d.ws.data.grid, 0)
	want := "cell 0 (row 0, col 0) · 37.7228°N–37.7273°N · 122.5153°W–122.5096°W · "
	assert.True(t, strings.HasPrefix(got, want), got)
	assert.Equal(t, "1,234,567", human.Thousands(1234567))
	assert.Equal(t, "-1,000", human.Thousands(-1000))
	assert.Equal(t, "999", human.Thousands(999))
}

// findButton returns the button labelled text under o, or nil.
func findButton(o fyne.CanvasObject, text string) *widget.Button {
	b, _ := findObject(o, func(c fyne.CanvasObject) bool {
		b, ok := c.(*widget.Button)
		return ok && b.Text == text
	}).(*widget.Button)
	return b
}

// findObject returns the first object under o, o itself first, that
// match accepts, or nil: containers' objects and widgets' renderers'
// objects in order.
func findObject(o fyne.CanvasObject, match func(fyne.CanvasObject) bool) fyne.CanvasObject {
	if match(o) {
		return o
	}
	var under []fyne.CanvasObject
	switch v := o.(type) {
	case *fyne.Container:
		under = v.Objects
	case fyne.Widget:
		under = test.WidgetRenderer(v).Objects()
	}
	for _, c := range under {
		if f := findObject(c, match); f != nil {
			return f
		}
	}
	return nil
}

func TestBadFileKeepsDataThenSkips(t *testing.T) {
	w, d := newTestUI(t)
	before := d.ws.data
	bad := "u\t2010-08-19T20:51:29Z\t37.76\t-122.42\t1\nv\t2010-08-19T20:51:29Z\tabc\t-122.42\t1\nw\t2010-08-19T20:51:29Z\t37.77\t-122.43\t1\n"
	d.load(bytesSource("bad.txt", []byte(bad)), false)
	settle(t)
	assert.Same(t, before, d.ws.data, "a bad file replaced the data")
	assert.Contains(t, d.status.Text, "Could not load bad.txt")
	top := w.Canvas().Overlays().Top()
	require.NotNil(t, top, "no dialog shown")
	yes := findButton(top, "Yes")
	require.NotNil(t, yes, "dialog has no Yes button")
	test.Tap(yes)
	settle(t)
	require.NotSame(t, before, d.ws.data)
	assert.Equal(t, "bad.txt", d.fields["File"].Text)
	assert.Equal(t, "snap format · 3 lines · 1 skipped", d.fields["Read"].Text)
	assert.True(t, d.skipped.Visible())
	assert.Equal(t, 1, len(d.ws.data.res.Errors))
	assert.Equal(t, 2, d.ws.data.res.Errors[0].Line)
}

// endless is a reader of check-in lines that never ends, slowly: each
// read, after a millisecond, fills its buffer with the stream of lines,
// a line cut at the buffer's end going on in the next read.
type endless struct {
	line []byte
	at   int // the next byte of line
}

func (e *endless) Read(p []byte) (int, error) {
	time.Sleep(time.Millisecond)
	for i := range p {
		p[i] = e.line[e.at]
		e.at = (e.at + 1) % len(e.line)
	}
	return len(p), nil
}

func TestCancelKeepsData(t *testing.T) {
	_, d := newTestUI(t)
	before := d.ws.data
	src := source{name: "endless", open: func() (io.ReadCloser, int64, error) {
		return io.NopCloser(&endless{line: []byte("u\t2010-08-19T20:51:29Z\t37.76\t-122.42\t1\n")}), 1 << 30, nil
	}}
	d.load(src, false)
	assert.True(t, d.busyRow.Visible())
	assert.True(t, d.open.Disabled())
	settleUntil(t, "reading under way", func() bool { return d.bar.Value > 0 })
	test.Tap(d.stop)
	settle(t)
	assert.Same(t, before, d.ws.data)
	assert.Contains(t, d.status.Text, "cancelled")
	assert.False(t, d.busyRow.Visible())
	assert.False(t, d.open.Disabled())
}

func TestRegrid(t *testing.T) {
	w, d := newTestUI(t)
	d.cell.SetText("1")
	test.Tap(d.apply)
	settle(t)
	assert.Equal(t, "Gridded synthetic San Francisco check-ins (embedded).", d.status.Text)
	assert.True(t, strings.HasPrefix(d.fields["Cells"].Text, "12 × 8 = 96 · "), d.fields["Cells"].Text)
	assert.Equal(t, 96, len(d.heat.Map.Values))
	assert.Equal(t, 1.0, fyne.CurrentApp().Preferences().Float(prefCellKm))

	d.perUser.SetSelected(perUserAll)
	settle(t)
	assert.Equal(t, "13,779 (all per user) · 0 outside box · at most 51 of one person", d.fields["Data"].Text)

	// A bad cell size is refused with a dialog; the grid stays.
	before := d.ws.data
	d.cell.SetText("abc")
	test.Tap(d.apply)
	settle(t)
	assert.Same(t, before, d.ws.data)
	assert.NotNil(t, w.Canvas().Overlays().Top())

	// A box that holds none of the data is refused; the grid stays.
	w.Canvas().Overlays().Top().Hide()
	w.Canvas().Overlays().Remove(w.Canvas().Overlays().Top())
	d.cell.SetText("0.5")
	d.setBoxEntries(orb.Bound{Min: orb.Point{0, 0}, Max: orb.Point{1, 1}})
	test.Tap(d.apply)
	settle(t)
	assert.Same(t, before, d.ws.data)
	assert.Contains(t, d.status.Text, "Could not grid")
	assert.NotNil(t, w.Canvas().Overlays().Top())
}

func TestDroppedFileFitsBox(t *testing.T) {
	_, d := newTestUI(t)
	// Three New York check-ins: far outside the San Francisco box.
	nyc := "0\t2010-10-12T00:21:28Z\t40.6438845363\t-73.78280639649999\t23261\n" +
		"1\t2010-10-11T20:21:20Z\t40.74137425\t-73.9881052167\t16907\n" +
		"2\t2010-10-11T20:20:42Z\t40.741388197\t-73.98945450779999\t12973\n"
	name := filepath.Join(t.TempDir(), "nyc.txt")
	require.NoError(t, os.WriteFile(name, []byte(nyc), 0o644))
	d.onDropped(fyne.NewPos(10, 10), []fyne.URI{storage.NewFileURI(name)})
	settle(t)
	assert.Equal(t, "nyc.txt", d.fields["File"].Text)
	assert.Contains(t, d.status.Text, "fitted to the data")
	assert.Equal(t, "40.741388", d.north.Text, "shown to six decimals")
	assert.Equal(t, "-73.782806", d.east.Text)
	assert.Equal(t, 40.741388197, d.ws.data.grid.Grid.Bound.Max[1], "the box itself is exact")
	d.regrid(false) // gridding again from the entries keeps the exact box
	settle(t)
	assert.Equal(t, 40.741388197, d.ws.data.grid.Grid.Bound.Max[1])
	assert.Equal(t, "3 (first per user) · 0 outside box · at most 1 of one person", d.fields["Data"].Text)
	assert.Equal(t, "3 (first per user) · 0 outside box · at most 1 of one person", d.fields["Data"].Text)
}

// TestFitBox checks that "Fit box to data" grids over the box of every
// check-in, whatever the per-person rule keeps (first check-ins here), so
// that grids under different rules line up (issue 44), and shows it in
// the entries, even when the entries hold no valid box.
func TestFitBox(t *testing.T) {
	_, d := newTestUI(t)
	d.north.SetText("north")
	test.Tap(d.fit)
	settle(t)
	all, err := geo.ReadCheckins(bytes.NewReader(assets.DefaultCheckins), geo.Auto, geo.Options{})
	require.NoError(t, err)
	want := geo.BoundOf(all.Checkins)
	assert.Equal(t, want, d.ws.data.grid.Grid.Bound)
	assert.Equal(t, degreesText(want.Max[1]), d.north.Text)
	assert.Equal(t, degreesText(want.Min[0]), d.west.Text)
	assert.Equal(t, "Gridded synthetic San Francisco check-ins (embedded) over the data's own box.", d.status.Text)
	assert.Equal(t, "2,000 (first per user) · 0 outside box · at most 1 of one person", d.fields["Data"].Text)
}

// TestPerUserBound applies a study's source that gridded at most 3
// check-ins per person: the Data screen offers that bound, grids with
// it, and the busiest person (51 check-ins) keeps 3.
func TestPerUserBound(t *testing.T) {
	_, d := newTestUI(t)
	require.NoError(t, d.applySource(&studyfile.Source{PerUser: "3"}))
	assert.Equal(t, perUserBounded, d.perUser.Selected)
	assert.Equal(t, "3", d.bound.Text)
	assert.False(t, d.bound.Disabled())
	d.regrid(false)
	settle(t)
	require.NotNil(t, d.ws.data.grid)
	assert.Equal(t, 3, d.ws.data.grid.Limit)
	assert.Equal(t, 3, d.ws.data.grid.MaxPerPerson)
	assert.Contains(t, d.fields["Data"].Text, "(at most 3 per user)")
	assert.Error(t, d.applySource(&studyfile.Source{PerUser: "0"}))
}

// TestPerUserChoice chooses at most K check-ins per person on the Data
// screen: K is typed beside the choice, enabled only for it, and a K
// that is not a whole number is refused with the grid kept.
func TestPerUserChoice(t *testing.T) {
	w, d := newTestUI(t)
	assert.True(t, d.bound.Disabled())
	d.bound.SetText("5")
	d.perUser.SetSelected(perUserBounded)
	settle(t)
	assert.False(t, d.bound.Disabled())
	assert.Equal(t, 5, d.ws.data.grid.Limit)
	assert.Equal(t, 5, d.ws.data.grid.MaxPerPerson)
	before := d.ws.data
	d.bound.SetText("0")
	test.Tap(d.apply)
	settle(t)
	assert.Same(t, before, d.ws.data)
	assert.Contains(t, overlayTexts(w.Canvas().Overlays().Top()), "must be a whole number from 1 to 1,000,000")
}

// TestLoadSpreadsheetCSV loads a spreadsheet's export (a BOM,
// semicolons, decimal commas, "User ID") and a file with no person
// column: the summary names the delimiter, and says when every row is
// taken as a person.
func TestLoadSpreadsheetCSV(t *testing.T) {
	_, d := newTestUI(t)
	d.load(bytesSource("export.csv", []byte("\xEF\xBB\xBFUser ID;Latitude (WGS84);Longitude (WGS84)\r\nann;37,77;-122,41\r\nann;37,78;-122,42\r\nbob;37,76;-122,40\r\n")), false)
	settle(t)
	assert.Equal(t, "delimited format (semicolons) · 4 lines · 0 skipped", d.fields["Read"].Text)
	assert.Equal(t, "3 check-ins · 2 users", d.fields["Records"].Text)
	d.load(bytesSource("ids.csv", []byte("id,lat,long\n1,37.77,-122.41\n2,37.78,-122.42\n")), false)
	settle(t)
	assert.Equal(t, "2 check-ins · 2 users · no person column: every row is treated as a person", d.fields["Records"].Text)
}

// TestLoadNoCoordinates: a header without coordinate columns opens the
// import dialog, saying why, not an offer to skip lines, which could not
// help.
func TestLoadNoCoordinates(t *testing.T) {
	w, d := newTestUI(t)
	d.load(bytesSource("names.csv", []byte("name;value\nx;1\n")), false)
	settle(t)
	top := w.Canvas().Overlays().Top()
	require.NotNil(t, top, "no dialog shown")
	assert.Nil(t, findButton(top, "Yes"), "an offer to skip lines")
	assert.Contains(t, d.status.Text, "Could not load names.csv")
	require.NotNil(t, d.importer, "no import dialog")
	assert.Contains(t, d.importer.problem.Text, "header names no latitude and longitude columns (the header's 2 fields split at semicolons: name · value)")
}

// TestLoadBlankPerson loads a file that names people with two records
// naming none (issue 44): the window asks whether each is a person of
// its own or left out, and loads it so, saying so in the summary; ids
// that differ only in case are said, and folded into one person when
// asked.
func TestLoadBlankPerson(t *testing.T) {
	w, d := newTestUI(t)
	src := bytesSource("people.csv", []byte("user,lat,lon\nAlice,37.76,-122.41\nalice,37.77,-122.42\n,37.75,-122.43\nbob,37.74,-122.40\n,37.76,-122.44\n"))
	d.perUser.SetSelected(perUserAll)
	settle(t)
	d.load(src, false)
	settle(t)
	top := w.Canvas().Overlays().Top()
	require.NotNil(t, top, "no question asked")
	assert.Contains(t, overlayTexts(top), "2 records name no person (lines 4, 6)")
	skip := findButton(top, "Leave them out")
	require.NotNil(t, skip)
	test.Tap(skip)
	settle(t)
	require.NotNil(t, d.ws.data)
	assert.Equal(t, geo.BlankSkip, d.ws.data.src.blank)
	assert.Equal(t, 3, d.ws.data.grid.N())
	assert.Contains(t, d.fields["Records"].Text, "2 naming no person, left out")
	assert.Contains(t, d.fields["Records"].Text, "1 id differs from another only in case or Unicode form (\"Alice\", \"alice\"): counted as different people")
	d.fold.SetChecked(true)
	settle(t)
	people, _ := d.ws.data.personStudy().Contributions()
	assert.Equal(t, 2, people, "Alice and alice are one person")
	assert.Equal(t, "fold", d.ws.data.studySource().PersonKey)
}

// TestShortcutsList: Help › Keyboard shortcuts lists every menu
// command's keys, from the table the menus are bound from, and Escape.
func TestShortcutsList(t *testing.T) {
	_, u := newTestWindow(t)
	settle(t)
	rows := u.shortcutRows()
	n := 0
	for _, cs := range u.commands() {
		n += len(cs)
	}
	require.Len(t, rows, n+1)
	want := map[string]string{"Ctrl+O": "File › Open data", "Ctrl+Shift+P": "Population › Apply the preset", "Ctrl+R": "Run › Run estimators",
		"Ctrl+.": "Run › Cancel", "Ctrl+4": "View › Compare", "Escape": "Cancel the job under way, or close the welcome panel or a Help dialog"}
	for _, r := range rows {
		if w, ok := want[r[0]]; ok {
			assert.Equal(t, w, r[1], r[0])
			delete(want, r[0])
		}
	}
	assert.Empty(t, want, "shortcuts missing")
	u.showShortcuts()
	require.NotNil(t, u.help)
	u.win.Canvas().(interface{ OnTypedKey() func(*fyne.KeyEvent) }).OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyEscape})
	assert.Nil(t, u.help, "Escape left the shortcuts open")
}

// TestScreensFitSmallWindow: every screen fits the smallest window
// privmap is looked at in, 1200 pixels wide. A line longer than its
// column (the Run screen's [Own]_R once took 1,423 pixels) widens the
// window past the screen and cuts off its right edge.
func TestScreensFitSmallWindow(t *testing.T) {
	_, u := newTestWindow(t)
	for _, it := range u.tabs.Items {
		assert.LessOrEqual(t, it.Content.MinSize().Width, float32(1200), "the %s screen", it.Text)
	}
}
