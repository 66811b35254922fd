package gui

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/privmap/privmap/app/human"
	"github.com/privmap/privmap/app/mapplot"
	"github.com/privmap/privmap/geo"
)

// Per-user choices as shown.
const (
	perUserFirst = "first per person"
	perUserAll   = "every check-in"
	// perUserBounded keeps at most K check-ins of each person, K typed
	// beside it.
	perUserBounded = "≤ K per person"
	// perUserBoundedOld is perUserBounded's former text, which the
	// preferences may hold still (truncated at 1200 px: "at most K per
	// per…").
	perUserBoundedOld = "at most K per person"
	scaleLinear       = "linear"
	scaleSqrt         = "square root"
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

	open, stop *widget.Button
	// columns reopens the import dialog of the check-in file shown.
	columns *widget.Button
	// importer is the import dialog shown last.
	importer *importer
	scale    *widget.Select
	// basemapPanel chooses the window's basemap and its opacity.
	*basemapPanel
	// gridPanel grids check-ins (a dataView); census tabulates a census
	// file (the other).
	*gridPanel
	census  *censusPanel
	bar     *widget.ProgressBar
	busyRow *fyne.Container
	status  *widget.Label
	summary *widget.Form
	skipped *widget.Button
	hover   *widget.Label
	heat    *Heatmap
	fields  map[string]*widget.Label
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
	d.stop = &widget.Button{Text: "Cancel", Icon: theme.CancelIcon()}
	d.columns = &widget.Button{Text: "Columns…", Icon: theme.ListIcon(), OnTapped: d.onColumns}
	d.columns.Disable()
	d.scale = widget.NewSelect([]string{scaleLinear, scaleSqrt}, d.onScale)
	d.scale.SetSelected(choice(p.String(prefScale), d.scale.Options, scaleSqrt))
	d.basemapPanel = newBasemapPanel(ws)
	d.gridPanel = newGridPanel(d)
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
		if ds := ws.data; ds != nil && ds.checkins != nil {
			d.refreshMap()
		}
	})
	ws.pick = func(t *pickTarget, back screen) {
		d.picker.onDone = func() { ws.show(back) }
		ws.show(d)
		d.picker.start(t)
	}
	ws.regrid = func(cellKm float64) {
		ws.show(d)
		d.cell.SetText(strconv.FormatFloat(cellKm, 'g', 4, 64))
		d.regrid(false)
	}
	if name := p.String(prefOverlay); name != "" {
		ws.tiles.loadOverlay(name, func(err error) {
			if err != nil {
				ws.tiles.onNote("no outlines: "+shortText(err.Error(), 80), false)
			}
		})
	}
	return d
}

func (d *dataTab) buildUI() fyne.CanvasObject {
	d.gridPanel.build(d.basemapPanel)
	d.busyRow = container.NewBorder(nil, nil, nil, d.stop, d.bar)
	d.busyRow.Hide()
	export := &widget.Button{Text: "Export PNG…", Icon: theme.DownloadIcon(), OnTapped: d.onExportPNG}
	// The status beside Open…, and the colour and export above the map,
	// so that the Summary fits without scrolling at the default size.
	controls := container.NewVBox(
		container.NewBorder(nil, nil, container.NewVBox(d.open, d.columns), nil, d.status),
		d.busyRow,
		d.gridCard,
		d.census.card,
		widget.NewCard("", "Summary", container.NewVBox(d.summary, d.skipped)),
	)
	left := container.NewVScroll(controls)
	left.SetMinSize(fyne.NewSize(340, 0))
	mapBar := container.NewHBox(widget.NewLabel("Colour"), roomy(d.scale), layout.NewSpacer(), export)
	// The basemap's note (tiles unavailable, with Retry) under the map.
	right := container.NewBorder(container.NewVBox(d.picker.banner, mapBar), container.NewVBox(d.baseNote, d.hover), nil, nil, d.heat)
	d.relayout = right.Refresh
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
	d.enableColumns()
}

// enableColumns enables Columns… when check-ins of a tabular format are
// shown and nothing loads.
func (d *dataTab) enableColumns() {
	if ds := d.ws.data; ds != nil && !ds.isCensus() && !d.ws.loading && tabular(ds.res.Format) {
		d.columns.Enable()
	} else {
		d.columns.Disable()
	}
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
	if errors.Is(err, geo.ErrNoColumns) || errors.Is(err, geo.ErrMapping) {
		// The columns were not found or not met: pick them.
		d.showImport(src, src.mapping)
		return
	}
	if errors.Is(err, geo.ErrBlankPerson) {
		d.askBlank(src, skipBad, err)
		return
	}
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

// askBlank asks how to read the records of src that name no person, in
// a file that names people, and loads it again so: each a person of its
// own, or left out (grid's -blank-person own|skip).
func (d *dataTab) askBlank(src source, skipBad bool, err error) {
	msg := widget.NewLabel(fmt.Sprintf("%s: %v.\n\nA record without a person id may be anyone's: counted as a person of its own it may\nbe one of the people already named, whose guarantee then holds for less than a person.",
		src.name, strings.TrimPrefix(err.Error(), "geo: ")))
	msg.Wrapping = fyne.TextWrapWord
	var dlg dialog.Dialog
	choose := func(rule string) func() {
		return func() {
			dlg.Hide()
			src.blank = rule
			d.load(src, skipBad)
		}
	}
	own := widget.NewButton("Count each as a person of its own", choose(geo.BlankOwn))
	skip := widget.NewButton("Leave them out", choose(geo.BlankSkip))
	dlg = dialog.NewCustom("Records without a person", "Cancel", container.NewVBox(msg, container.NewHBox(own, skip)), d.win)
	dlg.Resize(fyne.NewSize(720, 260))
	dlg.Show()
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
	v := d.view(ds)
	for _, other := range []dataView{d.gridPanel, d.census} {
		if other != v {
			other.hideCard()
		}
	}
	d.status.SetText(v.present(ds))
	d.enableColumns()
	d.refreshSummary()
	d.refreshMap()
}

// A dataView is how the Data screen shows one kind of data set: the grid
// panel shows check-ins on a map, the census panel a table.
type dataView interface {
	// present shows ds in the view's card and returns the status line.
	present(ds *dataset) string
	// hideCard hides the view's card.
	hideCard()
	// summarise fills the summary's rows.
	summarise(ds *dataset)
	// trueMap draws ds's true counts on scale.
	trueMap(ds *dataset, scale mapplot.Scale) *mapplot.Map
	// hoverText describes the cell of m under the mouse (−1: none).
	hoverText(ds *dataset, m *mapplot.Map, cell int) string
}

// view returns the view of ds's kind.
func (d *dataTab) view(ds *dataset) dataView {
	if ds.isCensus() {
		return d.census
	}
	return d.gridPanel
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
	d.view(d.ws.data).summarise(d.ws.data)
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
	ds := d.ws.data
	d.heat.SetMap(d.view(ds).trueMap(ds, d.mapScale()))
}

// gridMap draws values over the cells of g at the grid's true aspect.
func gridMap(g *geo.Grid, values []float64, scale mapplot.Scale, title, label string) *mapplot.Map {
	return &mapplot.Map{
		Cols: g.Cols, Rows: g.Rows, Bound: g.Bound, Values: values,
		Aspect: g.CellWidthKm() * float64(g.Cols) / (g.CellHeightKm() * float64(g.Rows)),
		Title:  title, Label: label, Scale: scale,
	}
}

func (d *dataTab) onOpen() {
	showFileOpen(d.win, d.app, dataExts, func(rc fyne.URIReadCloser) {
		u := rc.URI()
		_ = rc.Close()
		d.openFile(uriSource(u))
	})
}

func (d *dataTab) onDropped(_ fyne.Position, uris []fyne.URI) {
	if len(uris) == 0 || d.ws.loading {
		return
	}
	d.openFile(uriSource(uris[0]))
}

// tabular reports whether files of format f are tables of columns, which
// the import dialog maps (not GeoJSON's named properties, say).
func tabular(f geo.Format) bool {
	l, ok := geo.LayoutOf(f)
	return ok && l.Tabular
}

// onColumns shows the import dialog of the check-ins shown, to read
// them again by other columns.
func (d *dataTab) onColumns() {
	if ds := d.ws.data; ds != nil && !ds.isCensus() {
		m := ds.src.mapping
		if m == nil { // read in a known layout: its columns
			m = geo.LayoutMapping(ds.res.Format)
		}
		d.showImport(ds.src, m)
	}
}

// onCancel stops reading or gridding.
func (d *dataTab) onCancel() { d.job.onCancel() }

// tab names the Data screen.
func (d *dataTab) tab() (string, fyne.Resource) { return "Data", theme.FileIcon() }

func (d *dataTab) shown() {}

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
		fmt.Fprintf(&b, "… and %s more", human.Thousands(more))
	}
	text := widget.NewLabel(b.String())
	dialog.ShowCustom(fmt.Sprintf("%s malformed lines skipped", human.Thousands(skipped)), "Close",
		container.NewVScroll(text), d.win)
}

// onHover shows the place and count of the cell under the mouse.
func (d *dataTab) onHover(cell int) {
	if ds := d.ws.data; ds != nil {
		d.hover.SetText(d.view(ds).hoverText(ds, d.heat.Map, cell))
		return
	}
	d.hover.SetText("Hover over a cell to see its place and count.")
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
	return fmt.Sprintf("%s · %s (%.2f%%)", cellPlace(gd.Grid, cell), human.Plural(n, noun, nouns), share)
}

// cellPlace names a cell of g: index, row and column, and its latitude
// and longitude range.
func cellPlace(g *geo.Grid, cell int) string {
	r, c := g.RowCol(cell)
	b := g.CellBound(cell)
	return fmt.Sprintf("cell %d (row %d, col %d) · %s–%s · %s–%s",
		cell, r, c, human.Lat(b.Min[1]), human.Lat(b.Max[1]), human.Lon(b.Min[0]), human.Lon(b.Max[0]))
}
