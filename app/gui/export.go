package gui

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/privmap/privmap/app/mapplot"
	"github.com/privmap/privmap/app/output"
	"github.com/privmap/privmap/core"
	"github.com/privmap/privmap/geo"
	"github.com/privmap/privmap/geo/census"
)

// Preference keys of exports.
const (
	prefFolder    = "files.folder" // the last folder a file was written in
	prefOpened    = "files.opened" // the last folder a file was opened from
	prefPNGWidth  = "export.width"
	prefPNGHeight = "export.height"
	prefPNGView   = "export.view"
)

// Pictures an export may hold.
const (
	viewSide  = "true | estimate | difference"
	viewTrue  = "true"
	viewEst   = "estimate"
	viewDiff  = "difference"
	viewUnc   = "uncertainty"
	viewsHelp = "the side-by-side figure or one of its maps"
)

var exportViews = []string{viewSide, viewTrue, viewEst, viewDiff}

// viewMaps returns the maps of a triptych that the picture view holds:
// one of them, or all side by side — the three and, when there are
// intervals, the uncertainty map extra (nil without).
func viewMaps(ms [3]*mapplot.Map, extra *mapplot.Map, view string) []*mapplot.Map {
	switch view {
	case viewTrue:
		return ms[:1]
	case viewEst:
		return ms[1:2]
	case viewDiff:
		return ms[2:]
	case viewUnc:
		return []*mapplot.Map{extra}
	}
	if extra != nil {
		return append(ms[:], extra)
	}
	return ms[:]
}

// dataExts are the file kinds privmap reads data from, each layout's
// (geo.Layout.Exts, census.Layout.Exts): check-ins (.txt, .csv, .tsv,
// .dat, Excel's .xlsx, GeoJSON, GeoParquet) and census microdata (UCI's
// adult.data and adult.test, the 1990 census's .data.txt).
var dataExts = layoutExts()

// layoutExts returns the extensions of every check-in and census
// layout, each once.
func layoutExts() []string {
	var exts []string
	for _, l := range geo.Layouts() {
		exts = append(exts, l.Exts...)
	}
	for _, l := range census.Layouts() {
		exts = append(exts, l.Exts...)
	}
	slices.Sort(exts)
	return slices.Compact(exts)
}

// lastFolder returns the folder last written in, or the home folder.
func lastFolder(a fyne.App) string { return folderPref(a, prefFolder) }

// folderPref returns the folder under the preference key, if it still
// is one, or the home folder.
func folderPref(a fyne.App, key string) string {
	if d := a.Preferences().String(key); d != "" {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			return d
		}
	}
	if h, err := os.UserHomeDir(); err == nil {
		return h
	}
	return "."
}

// rememberFolder remembers the folder of path, written, for the next
// export.
func rememberFolder(a fyne.App, path string) {
	a.Preferences().SetString(prefFolder, filepath.Dir(path))
}

// rememberOpened remembers the folder of the file u, opened, for the next
// open dialog: opening and exporting keep their own folders.
func rememberOpened(a fyne.App, u fyne.URI) {
	if u.Scheme() == "file" {
		a.Preferences().SetString(prefOpened, filepath.Dir(u.Path()))
	}
}

// exportPath is the default file of an export of data read from src:
// the data's name as a slug followed by suffix, in the last folder.
func exportPath(a fyne.App, src source, suffix string) string {
	base := strings.TrimSuffix(src.name, filepath.Ext(src.name))
	return filepath.Join(lastFolder(a), slug(base)+suffix)
}

// slug turns a name into a file name of lower-case letters, digits and
// single dashes.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == '_' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
			continue
		}
		dash = true
	}
	if b.Len() == 0 {
		return "privmap"
	}
	return b.String()
}

// onExportPNG asks for a file, picture and size, and writes the PNG.
func (c *compareTab) onExportPNG() {
	m := c.current()
	if m == nil {
		dialog.ShowInformation("Nothing to export", "Run an estimator first (Ctrl+R); its maps can then be exported.", c.win)
		return
	}
	views := exportViews
	if c.iv.of(m.Method) != nil {
		views = append(slices.Clone(views), viewUnc)
	}
	showPNGExport(c.win, c.app, exportPath(c.app, c.res.ds.src, "-"+string(m.Method)+".png"), views, func(view string) *mapplot.Figure { return c.figure(m, view) }, c.res.ds.src.path)
}

// showPNGExport asks for a file, the picture (when views offers more
// than one) and its size, and writes figure(view) as PNG.
func showPNGExport(win fyne.Window, a fyne.App, name string, views []string, figure func(view string) *mapplot.Figure, source string) {
	p := a.Preferences()
	entry, path := pathEntry(win, name, []string{".png"})
	view := widget.NewSelect(views, nil)
	view.SetSelected(choice(p.String(prefPNGView), views, views[0]))
	width := sizeEntry(p.IntWithFallback(prefPNGWidth, 1800))
	height := sizeEntry(p.IntWithFallback(prefPNGHeight, 700))
	var items []*widget.FormItem
	if len(views) > 1 {
		items = append(items, &widget.FormItem{Text: "Picture", Widget: view, HintText: viewsHelp})
	}
	items = append(items, widget.NewFormItem("Width (px)", width), widget.NewFormItem("Height (px)", height))
	raw := widget.NewCheck(rawConsent, nil)
	items = append(items, &widget.FormItem{Text: "Raw data", Widget: raw, HintText: "pictures with the true map (true, side by side, difference) show people's data themselves"})
	showPathForm(win, "Export PNG", "Export", path, entry, items, func(name string) error {
		if showsTruth(view.Selected) && !raw.Checked {
			return errRawData
		}
		w, _ := strconv.Atoi(strings.TrimSpace(width.Text))
		h, _ := strconv.Atoi(strings.TrimSpace(height.Text))
		p.SetInt(prefPNGWidth, w)
		p.SetInt(prefPNGHeight, h)
		if len(views) > 1 {
			p.SetString(prefPNGView, view.Selected)
		}
		rememberFolder(a, name)
		f := figure(view.Selected)
		if showsTruth(view.Selected) {
			f.Notes = append(f.Notes, rawDataNote)
		}
		return writeFigure(name, f, w, h, source)
	})
}

// A picture with the true map is raw data: the export asks the user to
// say she knows, and the figure's header says it.
const (
	rawConsent  = "I know this picture shows raw data, not a private release"
	rawDataNote = "Raw data: the true map shows people's data themselves, not a private release"
)

// errRawData refuses to export raw data unasked.
var errRawData = errors.New("the picture shows the true map, which is raw data: tick Raw data to export it")

// showsTruth reports whether a picture shows the true map, or a
// difference from which it can be read.
func showsTruth(view string) bool { return view != viewEst }

// sizeEntry is an entry of a pixel size.
func sizeEntry(v int) *widget.Entry {
	e := widget.NewEntry()
	e.SetText(strconv.Itoa(v))
	e.Validator = func(s string) error {
		_, err := pixelSize(s)
		return err
	}
	return e
}

// pixelSize parses a pixel size between 100 and 10000.
func pixelSize(s string) (int, error) {
	v, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || v < 100 || v > 10000 {
		return 0, errors.New("a whole number of pixels from 100 to 10000")
	}
	return v, nil
}

// figure returns the picture view of the estimate m, with its heading.
func (c *compareTab) figure(m *methodResult, view string) *mapplot.Figure {
	ms := c.figureMaps(m)
	extra := c.fourthMap(m, ms[1])
	f := &mapplot.Figure{Notes: c.notes(m), Maps: viewMaps(ms, extra, view)}
	f.Title = fmt.Sprintf("%s: %s", c.res.ds.src.name, view)
	if view == viewSide {
		f.Title = fmt.Sprintf("%s: true | %s estimate | difference", c.res.ds.src.name, methodTitle(m.Method))
		if extra != nil {
			f.Title += " | uncertainty"
		}
	}
	return f
}

// writePNG draws the picture view of the estimate m at w×h pixels and
// writes it.
func (c *compareTab) writePNG(name string, m *methodResult, view string, w, h int) error {
	return writeFigure(name, c.figure(m, view), w, h, c.res.ds.src.path)
}

// writeFigure draws f at w×h pixels and writes it as PNG, no more
// readable than the data file source (output.WriteFile).
func writeFigure(name string, f *mapplot.Figure, w, h int, source string) error {
	if _, err := pixelSize(strconv.Itoa(w)); err != nil {
		return fmt.Errorf("width: %w", err)
	}
	if _, err := pixelSize(strconv.Itoa(h)); err != nil {
		return fmt.Errorf("height: %w", err)
	}
	img, err := f.Image(w, h, f.TypeScale(w, h))
	if err != nil {
		return fmt.Errorf("%d×%d pixels: %w", w, h, err)
	}
	return output.WriteFile(name, func(out io.Writer) error { return output.WritePNG(out, img) }, source)
}

// onExportPNG exports the data's true map.
func (d *dataTab) onExportPNG() {
	ds := d.ws.data
	if ds == nil || d.heat.Map == nil {
		dialog.ShowInformation("Nothing to export", "Open a data file first (Ctrl+O).", d.win)
		return
	}
	m := *d.heat.Map
	showPNGExport(d.win, d.app, exportPath(d.app, ds.src, "-true.png"), []string{viewTrue}, func(string) *mapplot.Figure {
		note := "Colour scale: " + m.Scale.String() + " · " + basemapNote(&m)
		return &mapplot.Figure{Title: m.Title, Notes: []string{dataNote(ds), note}, Maps: []*mapplot.Map{&m}}
	}, ds.src.path)
}

// onExportCSV asks for a file and writes the estimate as a distribution
// CSV (docs/FILES.md).
func (c *compareTab) onExportCSV() {
	m := c.current()
	if m == nil {
		dialog.ShowInformation("Nothing to export", "Run an estimator first (Ctrl+R); its estimate can then be exported.", c.win)
		return
	}
	entry, path := pathEntry(c.win, exportPath(c.app, c.res.ds.src, "-"+string(m.Method)+".csv"), []string{".csv"})
	showPathForm(c.win, "Export the estimate as CSV", "Export", path, entry, nil, func(name string) error {
		rememberFolder(c.app, name)
		return c.writeCSV(name, m)
	})
}

// writeCSV writes the estimate m as a distribution CSV, with its
// intervals' columns lo,hi,band_lo,band_hi when it has them.
func (c *compareTab) writeCSV(name string, m *methodResult) error {
	a := c.res.Study.Alphabet
	var iv *core.Intervals
	if e := c.iv.of(m.Method); e != nil {
		iv = e.Intervals
	}
	return output.WriteFile(name, func(w io.Writer) error { return core.WriteEstimate(w, m.Estimate.Theta, a, iv) }, c.res.ds.src.path)
}
