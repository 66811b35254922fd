package gui

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/paulmach/orb"

	"github.com/privmap/privmap/app"
	"github.com/privmap/privmap/app/basemap"
	"github.com/privmap/privmap/app/mapplot"
	"github.com/privmap/privmap/geo"
)

// Per-user choices as shown.
const (
	perUserFirst = "first check-in per user"
	perUserAll   = "every check-in"
	scaleLinear  = "linear"
	scaleSqrt    = "square root"
)

// dataTab loads a check-in file, grids it and shows its true heat map.
type dataTab struct {
	ctx context.Context
	app fyne.App
	win fyne.Window
	// ws holds the data set shown (ws.data) and the basemap (ws.tiles).
	ws *workspace
	// job reads or grids a data set: Open…, Fit and Grid wait while it
	// runs, and its bar and Cancel show only then.
	job jobControls

	open, fit, apply, stop *widget.Button
	perUser, scale         *widget.Select
	// base and opacity choose the window's basemap.
	base    *widget.Select
	opacity *widget.Slider
	// boxShown keeps the exact box behind the rounded entries.
	boxShown           [4]shownNumber
	baseNote           *widget.Label
	south, west, north *widget.Entry
	east, cell         *widget.Entry
	bar                *widget.ProgressBar
	busyRow            *fyne.Container
	status             *widget.Label
	summary            *widget.Form
	skipped            *widget.Button
	hover              *widget.Label
	heat               *Heatmap
	fields             map[string]*widget.Label
	gridCard           *widget.Card
	census             *censusPanel
	// afterLoad, when set, is called once after the next data set is
	// shown (and dropped if loading fails), to apply an opened study.
	afterLoad func(*dataset)
	picker    *picker
}

// summaryFields are the rows of the data summary.
var summaryFields = []string{"File", "Read", "Records", "Data", "Cells", "Cell size"}

func newDataTab(ws *workspace) *dataTab {
	a := ws.app
	d := &dataTab{ctx: ws.ctx, app: a, win: ws.win, ws: ws}
	p := a.Preferences()
	d.open = &widget.Button{Text: "Open…", Icon: theme.FolderOpenIcon(), OnTapped: d.onOpen, Importance: widget.HighImportance}
	d.fit = &widget.Button{Text: "Fit box to data", Icon: theme.ZoomFitIcon(), OnTapped: d.onFit}
	d.apply = &widget.Button{Text: "Grid", Icon: theme.ViewRefreshIcon(), OnTapped: d.onApply}
	d.stop = &widget.Button{Text: "Cancel", Icon: theme.CancelIcon()}
	d.perUser = widget.NewSelect([]string{perUserFirst, perUserAll}, d.onPerUser)
	d.perUser.SetSelected(choice(p.String(prefPerUser), d.perUser.Options, perUserFirst))
	d.scale = widget.NewSelect([]string{scaleLinear, scaleSqrt}, d.onScale)
	d.scale.SetSelected(choice(p.String(prefScale), d.scale.Options, scaleSqrt))
	d.base = widget.NewSelect(nil, nil)
	d.setBaseOptions()
	d.base.OnChanged = d.onBase
	d.opacity = widget.NewSlider(0.1, 1)
	d.opacity.Step = 0.05
	d.opacity.SetValue(d.ws.tiles.opacity())
	d.opacity.OnChangeEnded = d.onOpacity
	d.baseNote = widget.NewLabel("")
	d.baseNote.Wrapping = fyne.TextWrapWord
	d.baseNote.Importance = widget.LowImportance
	d.baseNote.Hide()
	d.ws.tiles.onNote = func(s string) {
		d.baseNote.SetText(s)
		d.baseNote.Hidden = s == ""
		d.baseNote.Refresh()
	}
	d.south, d.west = numberEntry(d.onSubmit), numberEntry(d.onSubmit)
	d.north, d.east = numberEntry(d.onSubmit), numberEntry(d.onSubmit)
	d.cell = numberEntry(d.onSubmit)
	d.cell.SetText(strconv.FormatFloat(p.FloatWithFallback(prefCellKm, 0.5), 'g', -1, 64))
	d.setBoxEntries(geo.FWBound)
	d.bar = widget.NewProgressBar()
	d.job = jobControls{cancelBtn: d.stop, bar: d.bar, holds: []fyne.Disableable{d.open, d.fit, d.apply}, onRunning: d.setBusy}
	d.job.bind()
	d.status = widget.NewLabel("")
	d.status.Wrapping = fyne.TextWrapWord
	d.hover = widget.NewLabel("Hover over a cell to see its place and count.")
	d.hover.Truncation = fyne.TextTruncateEllipsis
	d.skipped = &widget.Button{Text: "Skipped lines…", Icon: theme.WarningIcon(), OnTapped: d.onShowSkipped}
	d.skipped.Hide()
	d.fields = make(map[string]*widget.Label, len(summaryFields))
	d.summary = widget.NewForm()
	for _, f := range summaryFields {
		l := widget.NewLabel("—")
		l.Wrapping = fyne.TextWrapWord
		d.fields[f] = l
		d.summary.Append(f, l)
	}
	d.heat = NewHeatmap(nil)
	d.heat.OnHover = d.onHover
	d.picker = newPicker(d)
	d.heat.OnTapped = func(cell int) { d.picker.tapped(cell) }
	d.census = newCensusPanel(d)
	d.picker.onDone = func() {}
	ws.tiles.onReady = append(ws.tiles.onReady, func() {
		// A basemap that arrives, or a new opacity, redraws the map.
		if ds := ws.data; ds != nil && !ds.isCensus() {
			d.refreshMap()
		}
	})
	ws.pick = func(r *mechRow, back screen) {
		d.picker.onDone = func() { ws.show(back) }
		ws.show(d)
		d.picker.start(r)
	}
	ws.regrid = func(cellKm float64) {
		ws.show(d)
		d.cell.SetText(strconv.FormatFloat(cellKm, 'g', 4, 64))
		d.regrid(false)
	}
	if name := p.String(prefOverlay); name != "" {
		ws.tiles.loadOverlay(name, func(err error) {
			if err != nil {
				ws.tiles.onNote("no outlines: " + shortText(err.Error(), 80))
			}
		})
	}
	return d
}

// choice returns stored if it is one of options, else def, so that a
// preference saved by another version never leaves a selection empty.
func choice(stored string, options []string, def string) string {
	if slices.Contains(options, stored) {
		return stored
	}
	return def
}

func numberEntry(submit func(string)) *widget.Entry {
	e := widget.NewEntry()
	e.OnSubmitted = submit
	e.Validator = func(s string) error {
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return errors.New("not a number")
		}
		return nil
	}
	return e
}

func (d *dataTab) buildUI() fyne.CanvasObject {
	grid := container.New(layout.NewFormLayout(),
		widget.NewLabel("Data"), d.perUser,
		// The box in two rows, so that the Summary fits below at the
		// window's default size.
		widget.NewLabel("North, South"), container.NewGridWithColumns(2, d.north, d.south),
		widget.NewLabel("West, East"), container.NewGridWithColumns(2, d.west, d.east),
		widget.NewLabel("Cell (km)"), d.cell,
		widget.NewLabel("Basemap"), d.base,
		widget.NewLabel("Opacity"), d.opacity,
	)
	d.gridCard = widget.NewCard("", "Grid", container.NewVBox(grid, d.baseNote, container.NewGridWithColumns(2, d.fit, d.apply)))
	d.busyRow = container.NewBorder(nil, nil, nil, d.stop, d.bar)
	d.busyRow.Hide()
	export := &widget.Button{Text: "Export PNG…", Icon: theme.DownloadIcon(), OnTapped: d.onExportPNG}
	// The status beside Open…, and the colour and export above the map,
	// so that the Summary fits without scrolling at the default size.
	controls := container.NewVBox(
		container.NewBorder(nil, nil, container.NewVBox(d.open), nil, d.status),
		d.busyRow,
		d.gridCard,
		d.census.card,
		widget.NewCard("", "Summary", container.NewVBox(d.summary, d.skipped)),
	)
	left := container.NewVScroll(controls)
	left.SetMinSize(fyne.NewSize(340, 0))
	mapBar := container.NewHBox(widget.NewLabel("Colour"), roomy(d.scale), layout.NewSpacer(), export)
	right := container.NewBorder(container.NewVBox(d.picker.banner, mapBar), d.hover, nil, nil, d.heat)
	split := container.NewHSplit(left, right)
	split.Offset = 0.3
	return split
}

// setBusy shows the job's bar and Cancel while it loads, and tells the
// workspace.
func (d *dataTab) setBusy(busy bool) {
	d.ws.loading = busy
	if busy {
		d.busyRow.Show()
	} else {
		d.busyRow.Hide()
	}
}

// gridOptions reads the box, cell and per-user controls. With fit, the
// box entries are not read and the zero Bound asks for the data's own box.
func (d *dataTab) gridOptions(fit bool) (geo.GridOptions, error) {
	var opt geo.GridOptions
	if !fit {
		b, err := geo.ParseBBox(d.boxText())
		if err != nil {
			return opt, err
		}
		opt.Bound = b
	}
	cell, err := strconv.ParseFloat(strings.TrimSpace(d.cell.Text), 64)
	if err != nil || !(cell > 0) || math.IsInf(cell, 0) {
		return opt, fmt.Errorf("cell size %q must be a positive number of kilometres", d.cell.Text)
	}
	// Each datum's home cell, which a PUM of the population protects.
	opt.CellKm, opt.Home = cell, true
	if d.perUser.Selected == perUserAll {
		opt.PerUser = geo.All
	}
	return opt, nil
}

func (d *dataTab) setBoxEntries(b orb.Bound) {
	// Shown to six decimals of a degree (0.1 m, finer than any cell);
	// read back exactly while unchanged, so that a box fitted to the data
	// keeps its outermost check-ins.
	for i, e := range []*widget.Entry{d.south, d.west, d.north, d.east} {
		v := [4]float64{b.Min[1], b.Min[0], b.Max[1], b.Max[0]}[i]
		d.boxShown[i] = shownNumber{text: degreesText(v), value: v}
		e.SetText(d.boxShown[i].text)
	}
}

// degreesText writes degrees to at most six decimals.
func degreesText(v float64) string {
	return strings.TrimRight(strings.TrimRight(strconv.FormatFloat(v, 'f', 6, 64), "0"), ".")
}

// boxText returns the box entries as south,west,north,east, each exact
// while it shows what setBoxEntries put there.
func (d *dataTab) boxText() string {
	parts := make([]string, 4)
	for i, e := range []*widget.Entry{d.south, d.west, d.north, d.east} {
		parts[i] = e.Text
		if v, err := d.boxShown[i].read(e.Text); err == nil {
			parts[i] = strconv.FormatFloat(v, 'g', -1, 64)
		}
	}
	return strings.Join(parts, ",")
}

// load reads src off the UI goroutine and shows it; the current data stay
// until the new data are ready, and stay for good if loading fails or is
// cancelled.
func (d *dataTab) load(src source, skipBad bool) {
	opt, err := d.gridOptions(false)
	if err != nil {
		showError(d.win, err, "Correct the box or cell size on the Data screen, then open the file again.")
		return
	}
	ch := d.census.choice()
	d.start("Reading "+src.name+"…", func(ctx context.Context, report func(float64)) (*dataset, error) {
		return readSource(ctx, src, skipBad, opt, ch, report)
	}, func(err error) { d.loadFailed(src, skipBad, err) })
}

// start runs work off the UI goroutine with the controls in their busy
// state, then shows its data set, or hands its error to failed, on the UI
// goroutine. Cancel discards the result of work that cannot stop early.
func (d *dataTab) start(status string, work func(context.Context, func(float64)) (*dataset, error), failed func(error)) {
	d.status.SetText(status)
	progress := d.job.progress()
	d.job.start(d.ctx, func(ctx context.Context) func() {
		ds, err := guarded(func() (*dataset, error) { return work(ctx, progress) })
		if err == nil {
			err = ctx.Err()
		}
		return func() {
			if err != nil {
				d.afterLoad = nil
				failed(err)
				return
			}
			d.show(ds)
		}
	})
}

func (d *dataTab) loadFailed(src source, skipBad bool, err error) {
	// Say that the previous data stay only when there are some.
	stay := "; the previous data stay loaded."
	advice := "The previous data stay loaded. "
	if d.ws.data == nil {
		stay, advice = ".", ""
	}
	if errors.Is(err, context.Canceled) {
		d.status.SetText("Loading " + src.name + " cancelled" + stay)
		return
	}
	d.status.SetText("Could not load " + src.name + stay)
	var pe *geo.ParseError
	if !skipBad && errors.As(err, &pe) {
		msg := fmt.Sprintf("%s: %v\n\nLoad it anyway, skipping malformed lines?\nSkipped lines are counted and listed.", src.name, err)
		dialog.ShowConfirm("Malformed line", msg, func(ok bool) {
			if ok {
				d.load(src, true)
			}
		}, d.win)
		return
	}
	showError(d.win, fmt.Errorf("%s: %w", src.name, err),
		advice+"Check that the file is a check-in file (Gowalla, Foursquare, SNAP or CSV with lat and lon columns) or a census file (UCI Adult, US Census 1990), then open it again.")
}

// show makes ds the current data, and then tells the workspace.
func (d *dataTab) show(ds *dataset) {
	d.ws.data = ds
	d.picker.stop() // the cells may have changed
	if f := d.afterLoad; f != nil {
		d.afterLoad = nil
		defer f(ds) // after the workspace is told
	}
	defer d.ws.setData(ds)
	if ds.isCensus() {
		d.gridCard.Hide()
		d.census.show(ds)
		d.status.SetText(fmt.Sprintf("Loaded %s: %s people over %s.", ds.src.name, app.Thousands(len(ds.table.Data)), ds.choice.attrs))
		d.refreshSummary()
		d.refreshMap()
		return
	}
	d.census.card.Hide()
	d.gridCard.Show()
	g := ds.grid.Grid
	msg := fmt.Sprintf("Loaded %s.", ds.src.name)
	switch {
	case ds.regridded && ds.fitted:
		msg = fmt.Sprintf("Gridded %s over the data's own box.", ds.src.name)
	case ds.regridded:
		msg = fmt.Sprintf("Gridded %s.", ds.src.name)
	case ds.fitted:
		msg += " Most data lay outside the box, so the box was fitted to the data."
	}
	if ds.fitted {
		d.setBoxEntries(g.Bound)
	}
	d.status.SetText(msg)
	d.refreshSummary()
	d.refreshMap()
}

// setSummaryLabels names the summary's last two rows, which describe the
// alphabet: cells and their size, or categories and attributes.
func (d *dataTab) setSummaryLabels(alphabet, detail string) {
	n := len(d.summary.Items)
	if d.summary.Items[n-2].Text == alphabet && d.summary.Items[n-1].Text == detail {
		return
	}
	d.summary.Items[n-2].Text, d.summary.Items[n-1].Text = alphabet, detail
	d.summary.Refresh()
}

func (d *dataTab) refreshSummary() {
	ds := d.ws.data
	if ds.isCensus() {
		d.censusSummary(ds)
		d.showSkipped()
		return
	}
	d.setSummaryLabels("Cells", "Cell size")
	res, gd, g := ds.res, ds.grid, ds.grid.Grid
	set := func(k, v string) { d.fields[k].SetText(v) }
	set("File", ds.src.name)
	set("Read", fmt.Sprintf("%v format · %s lines · %s skipped", res.Format, app.Thousands(res.Lines), app.Thousands(res.Skipped)))
	set("Records", fmt.Sprintf("%s check-ins · %s users", app.Thousands(gd.Records), app.Thousands(gd.Users)))
	set("Data", fmt.Sprintf("%s (%v per user) · %s outside box", app.Thousands(gd.Data), gd.Rule, app.Thousands(gd.Outside)))
	set("Cells", fmt.Sprintf("%d × %d = %s · %s non-empty", g.Cols, g.Rows, app.Thousands(g.Len()), app.Thousands(gd.NonEmpty())))
	set("Cell size", fmt.Sprintf("%.4f × %.4f km", g.CellWidthKm(), g.CellHeightKm()))
	d.showSkipped()
}

func (d *dataTab) showSkipped() {
	if n, _ := d.ws.data.skippedLines(); n > 0 {
		d.skipped.Show()
	} else {
		d.skipped.Hide()
	}
}

// mapScale returns the colour scale chosen.
func (d *dataTab) mapScale() mapplot.Scale {
	if d.scale.Selected == scaleSqrt {
		return mapplot.Sqrt
	}
	return mapplot.Linear
}

func (d *dataTab) refreshMap() {
	if ds := d.ws.data; ds.isCensus() {
		counts := make([]float64, ds.table.Len())
		for i, c := range ds.table.Counts() {
			counts[i] = float64(c)
		}
		row, col := d.census.view(ds.alphabet)
		d.heat.SetMap(censusMap(ds, counts, row, col, d.mapScale(), "True distribution · "+ds.src.name, "people"))
		return
	}
	gd := d.ws.data.grid
	v := make([]float64, len(gd.Counts))
	for i, c := range gd.Counts {
		v[i] = float64(c)
	}
	label := "users (first check-in)"
	if gd.Rule == geo.All {
		label = "check-ins"
	}
	m := gridMap(gd.Grid, v, d.mapScale(), "True distribution · "+d.ws.data.src.name, label)
	d.ws.tiles.under(m)
	d.heat.SetMap(m)
}

// gridMap draws values over the cells of g at the grid's true aspect.
func gridMap(g *geo.Grid, values []float64, scale mapplot.Scale, title, label string) *mapplot.Map {
	return &mapplot.Map{
		Cols: g.Cols, Rows: g.Rows, Bound: g.Bound, Values: values,
		Aspect: g.CellWidthKm() * float64(g.Cols) / (g.CellHeightKm() * float64(g.Rows)),
		Title:  title, Label: label, Scale: scale,
	}
}

// regrid grids the loaded data again with the current controls, off the
// UI goroutine, reading the source again as it streams past (privmap
// keeps no record in memory; see gridSource). With fit the box is the
// data's own, and the box entries are set from the grid made.
func (d *dataTab) regrid(fit bool) {
	if d.ws.data == nil || d.ws.loading || d.ws.data.isCensus() {
		return
	}
	opt, err := d.gridOptions(fit)
	if err != nil {
		showError(d.win, err, "Correct the box or cell size, then grid again; the current grid stays.")
		return
	}
	p := d.app.Preferences()
	p.SetFloat(prefCellKm, opt.CellKm)
	p.SetString(prefPerUser, d.perUser.Selected)
	old := d.ws.data
	d.start("Gridding "+old.src.name+"…", func(ctx context.Context, report func(float64)) (*dataset, error) {
		ds, err := gridSource(ctx, old.src, old.skipBad, opt, report)
		if err != nil {
			return nil, err
		}
		ds.regridded, ds.fitted = true, fit
		return ds, nil
	}, d.regridFailed)
}

func (d *dataTab) regridFailed(err error) {
	if errors.Is(err, context.Canceled) {
		d.status.SetText("Gridding cancelled; the previous grid stays.")
		return
	}
	d.status.SetText("Could not grid the data; the previous grid stays.")
	showError(d.win, err, "The previous grid stays; change the box or cell size and grid again.")
}

func (d *dataTab) onOpen() {
	showFileOpen(d.win, d.app, dataExts, func(rc fyne.URIReadCloser) {
		u := rc.URI()
		_ = rc.Close()
		d.load(uriSource(u), false)
	})
}

func (d *dataTab) onDropped(_ fyne.Position, uris []fyne.URI) {
	if len(uris) == 0 || d.ws.loading {
		return
	}
	d.load(uriSource(uris[0]), false)
}

// onCancel stops reading or gridding.
func (d *dataTab) onCancel() { d.job.onCancel() }

// tab names the Data screen.
func (d *dataTab) tab() (string, fyne.Resource) { return "Data", theme.FileIcon() }

func (d *dataTab) shown() {}

func (d *dataTab) onFit() { d.regrid(true) }

func (d *dataTab) onApply()         { d.regrid(false) }
func (d *dataTab) onSubmit(string)  { d.regrid(false) }
func (d *dataTab) onPerUser(string) { d.regrid(false) }

// Basemap choices.
const (
	baseOSM      = "OpenStreetMap"
	baseNone     = "None"
	baseMBTiles  = "MBTiles file…"
	baseServer   = "Tile server…"
	baseOutlines = "GeoJSON outlines…"
	baseNoLines  = "No outlines"
)

// setBaseOptions lists the basemaps, with the current MBTiles file or
// URL template (set in the preferences) as a choice of its own.
func (d *dataTab) setBaseOptions() {
	opts := []string{baseOSM, baseNone, baseMBTiles, baseServer, baseOutlines}
	if d.app.Preferences().String(prefOverlay) != "" {
		opts = append(opts, baseNoLines)
	}
	sel := baseOSM
	switch src := d.ws.tiles.source(); src {
	case basemap.OSMTemplate:
	case basemapNone:
		sel = baseNone
	default:
		sel = src
		if strings.HasSuffix(strings.ToLower(src), ".mbtiles") {
			sel = filepath.Base(src)
		}
		opts = append([]string{sel}, opts...)
	}
	d.base.Options = opts
	d.base.Selected = sel
	d.base.Refresh()
}

// onBase changes the basemap.
func (d *dataTab) onBase(sel string) {
	p := d.app.Preferences()
	switch sel {
	case baseOSM:
		p.SetString(prefBasemap, basemap.OSMTemplate)
	case baseNone:
		p.SetString(prefBasemap, basemapNone)
	case baseMBTiles:
		d.chooseLocal([]string{".mbtiles"}, "an MBTiles file", "The basemap stays as it was.", func(path string) {
			p.SetString(prefBasemap, path)
			d.setBaseOptions()
			d.resetBasemap()
		})
		return
	case baseServer:
		d.chooseServer()
		return
	case baseOutlines:
		d.chooseLocal([]string{".geojson", ".json"}, "a GeoJSON file", "The outlines stay as they were.", d.setOverlay)
		return
	case baseNoLines:
		d.setOverlay("")
		return
	default:
		return // the current custom source
	}
	d.resetBasemap()
}

// chooseLocal asks for a local file of the kinds exts and gives its path
// to use; the basemap choices show the current one meanwhile.
func (d *dataTab) chooseLocal(exts []string, kind, keep string, use func(path string)) {
	showFileOpen(d.win, d.app, exts, func(rc fyne.URIReadCloser) {
		rc.Close()
		if rc.URI().Scheme() != "file" {
			showError(d.win, fmt.Errorf("%s: %s must be a local file", rc.URI().Name(), kind), keep)
			return
		}
		use(rc.URI().Path())
	})
	d.setBaseOptions() // until a file is chosen
}

// chooseServer asks for an XYZ tile server's URL template and the credit
// its tiles' licence asks for, and draws the maps over its tiles.
func (d *dataTab) chooseServer() {
	p := d.app.Preferences()
	url := widget.NewEntry()
	url.SetPlaceHolder(basemap.OSMTemplate)
	if src := d.ws.tiles.source(); strings.Contains(src, "://") && src != basemap.OSMTemplate {
		url.SetText(src)
	}
	url.Validator = func(s string) error {
		_, err := basemap.NewXYZ(strings.TrimSpace(s), basemap.Options{})
		return err
	}
	credit := widget.NewEntry()
	credit.SetText(p.String(prefCredit))
	credit.SetPlaceHolder("the tiles' credit, e.g. © OpenStreetMap contributors")
	items := []*widget.FormItem{
		{Text: "URL template", Widget: url, HintText: "with {z}, {x} and {y}; tiles are cached for 7 days and fetched two at a time"},
		{Text: "Credit", Widget: credit, HintText: "shown on every map and export; blank: the server's name"},
	}
	dlg := dialog.NewForm("Tile server", "Use", "Cancel", items, func(ok bool) {
		if !ok {
			return
		}
		p.SetString(prefCredit, strings.TrimSpace(credit.Text))
		p.SetString(prefBasemap, strings.TrimSpace(url.Text))
		d.setBaseOptions()
		d.resetBasemap()
	}, d.win)
	dlg.Resize(fyne.NewSize(640, dlg.MinSize().Height))
	dlg.Show()
	d.setBaseOptions() // until a server is chosen
	d.win.Canvas().Focus(url)
}

// setOverlay draws the outlines of the GeoJSON file name over the maps
// ("" for none) and remembers it.
func (d *dataTab) setOverlay(name string) {
	d.ws.tiles.loadOverlay(name, func(err error) {
		if err != nil {
			showError(d.win, err, "The outlines stay as they were.") // err names the file
			d.setBaseOptions()
			return
		}
		d.app.Preferences().SetString(prefOverlay, name)
		d.setBaseOptions()
	})
}

// resetBasemap drops the layer fetched and draws the maps again, which
// asks the new source for tiles.
func (d *dataTab) resetBasemap() {
	d.ws.tiles.reset()
	d.ws.tiles.redraw()
}

// onOpacity sets the heat maps' opacity over the basemap.
func (d *dataTab) onOpacity(v float64) {
	d.app.Preferences().SetFloat(prefOpacity, v)
	d.ws.tiles.redraw()
}

func (d *dataTab) onScale(sel string) {
	d.app.Preferences().SetString(prefScale, sel)
	d.onScaleChanged()
}

func (d *dataTab) onScaleChanged() {
	if d.ws.data != nil {
		d.refreshMap()
	}
}

func (d *dataTab) onShowSkipped() {
	skipped, errs := d.ws.data.skippedLines()
	var b strings.Builder
	for _, e := range errs {
		fmt.Fprintln(&b, e)
	}
	if more := skipped - len(errs); more > 0 {
		fmt.Fprintf(&b, "… and %s more", app.Thousands(more))
	}
	text := widget.NewLabel(b.String())
	dialog.ShowCustom(fmt.Sprintf("%s malformed lines skipped", app.Thousands(skipped)), "Close",
		container.NewVScroll(text), d.win)
}

// onHover shows the place and count of the cell under the mouse.
func (d *dataTab) onHover(cell int) {
	switch {
	case d.ws.data != nil && d.ws.data.isCensus() && cell >= 0 && d.heat.Map != nil:
		d.hover.SetText(censusCellInfo(d.ws.data, d.heat.Map, cell))
	case d.ws.data != nil && d.ws.data.isCensus():
		d.hover.SetText("Hover over a cell to see its categories and count.")
	case cell < 0 || d.ws.data == nil:
		d.hover.SetText("Hover over a cell to see its place and count.")
	default:
		d.hover.SetText(cellInfo(d.ws.data.grid, cell))
	}
}

// cellInfo describes a cell: index, row and column, its latitude and
// longitude range, and its count and share.
func cellInfo(gd *geo.Gridded, cell int) string {
	n := gd.Counts[cell]
	share := 0.0
	if gd.N() > 0 {
		share = 100 * float64(n) / float64(gd.N())
	}
	noun, nouns := "user", "users"
	if gd.Rule == geo.All {
		noun, nouns = "check-in", "check-ins"
	}
	return fmt.Sprintf("%s · %s (%.2f%%)", cellPlace(gd.Grid, cell), plural(n, noun, nouns), share)
}

// cellPlace names a cell of g: index, row and column, and its latitude
// and longitude range.
func cellPlace(g *geo.Grid, cell int) string {
	r, c := g.RowCol(cell)
	b := g.CellBound(cell)
	return fmt.Sprintf("cell %d (row %d, col %d) · %s–%s · %s–%s",
		cell, r, c, app.Lat(b.Min[1]), app.Lat(b.Max[1]), app.Lon(b.Min[0]), app.Lon(b.Max[0]))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return app.Thousands(n) + " " + many
}
