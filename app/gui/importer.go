package gui

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/privmap/privmap/app/human"
	"github.com/privmap/privmap/app/studyfile"
	"github.com/privmap/privmap/geo"
	"github.com/privmap/privmap/geo/census"
)

// prefImports remembers the column mappings chosen in the import dialog,
// by file-name pattern (importPattern), most recent first.
const prefImports = "import.mappings"

// previewRows is how many rows the import dialog shows.
const previewRows = 20

// maxRemembered bounds the mappings remembered.
const maxRemembered = 50

// importKinds are the columns the import dialog picks, with their names
// as shown.
var importKinds = []struct{ kind, label string }{
	{"user", "Person"}, {"lat", "Latitude"}, {"lon", "Longitude"}, {"time", "Time"}, {"loc", "Place"},
}

// The import dialog's choices as shown.
const (
	noColumn     = "—"
	choiceAuto   = "guess"
	encodingUTF8 = "UTF-8"
	encodingL1   = "Latin-1"
)

var (
	delimChoices  = []string{choiceAuto, "comma", "semicolon", "tab", "pipe"}
	headerChoices = []string{choiceAuto, "yes", "no"}
	encChoices    = []string{choiceAuto, encodingUTF8, encodingL1}
)

// An importer is the import dialog of a delimited file, after QGIS's
// "Add Delimited Text Layer": the file's first rows read as they will be
// read (geo.PreviewDelimited), with pickers for the delimiter, the header
// line, the encoding, the time layout and each column, the guesses
// pre-selected and the rows that would fail marked with their reason.
// Load reads the whole file by the mapping chosen, and remembers it for
// files named alike.
type importer struct {
	d   *dataTab
	src source
	dlg dialog.Dialog

	delim, header, encoding *widget.Select
	// sheet picks a workbook's sheet; shown for workbooks only, where
	// the delimiter and encoding are not asked.
	sheet            *widget.Select
	timeFormat       *widget.Entry
	cols             map[string]*widget.Select
	xy               *widget.Check
	table            *widget.Table
	problem, summary *widget.Label
	load             *widget.Button

	// mapping is what the controls say; preview what it reads.
	mapping geo.Mapping
	preview *geo.Preview
	// setting is true while the controls are set from a preview, so
	// that their OnChanged do not read the file again.
	setting bool
}

// openFile opens a file chosen or dropped: a census table or a SNAP or
// TSMC file is loaded at once; a delimited file, or one whose name
// matches a mapping chosen before, goes through the import dialog.
func (d *dataTab) openFile(src source) {
	m := rememberedMapping(d.app.Preferences(), src.name)
	if m == nil && !needsImport(src) {
		d.load(src, false)
		return
	}
	d.showImport(src, m)
}

// needsImport reports whether src is a delimited file (or one whose
// format cannot be told), which the import dialog should show first.
func needsImport(src source) bool {
	rc, _, err := src.open()
	if err != nil {
		return false // load says why
	}
	defer rc.Close()
	br := bufio.NewReaderSize(rc, 64<<10)
	if _, ok := census.DetectReader(br); ok {
		return false
	}
	f, err := geo.DetectFormat(br)
	if err != nil {
		return false // binary or empty: load says so
	}
	l, ok := geo.LayoutOf(f)
	return ok && l.Import
}

// showImport shows the import dialog of src, its controls set from m
// (nil: the guesses).
func (d *dataTab) showImport(src source, m *geo.Mapping) {
	im := &importer{d: d, src: src, cols: map[string]*widget.Select{}}
	if m != nil {
		im.mapping = *m
	}
	body, err := im.build()
	if err != nil {
		showError(d.win, fmt.Errorf("%s: %w", src.name, err), "Check that the file is a check-in file, then open it again.")
		return
	}
	d.importer = im
	im.dlg = dialog.NewCustomWithoutButtons("Import "+src.name, body, d.win)
	im.dlg.Resize(importSize(d.win.Canvas().Size()))
	im.dlg.Show()
}

// importSize is the dialog's size in a window of size s: nearly all of
// it, so that the rows show without scrolling.
func importSize(s fyne.Size) fyne.Size {
	return fyne.NewSize(max(600, s.Width-60), max(420, s.Height-60))
}

// build makes the dialog's content from a first preview.
func (im *importer) build() (fyne.CanvasObject, error) {
	onChange := func(string) { im.changed(false) }
	im.delim = widget.NewSelect(delimChoices, onChange)
	im.header = widget.NewSelect(headerChoices, onChange)
	im.encoding = widget.NewSelect(encChoices, onChange)
	im.sheet = widget.NewSelect(nil, onChange)
	im.timeFormat = widget.NewEntry()
	im.timeFormat.SetPlaceHolder("guess (ISO 8601, RFC 1123, Unix…)")
	im.timeFormat.OnSubmitted = onChange
	// Each picker under its name, the five across the dialog.
	pickers := container.NewGridWithColumns(len(importKinds))
	for _, k := range importKinds {
		s := widget.NewSelect(nil, func(string) { im.changed(true) })
		im.cols[k.kind] = s
		pickers.Add(container.NewVBox(widget.NewLabelWithStyle(k.label+" column", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), s))
	}
	im.xy = widget.NewCheck("", func(on bool) {
		if on && !im.setting {
			im.useXY()
		}
	})
	im.xy.Hide()
	im.problem = widget.NewLabel("")
	im.problem.Importance = widget.DangerImportance
	im.problem.Wrapping = fyne.TextWrapWord
	im.summary = widget.NewLabel("")
	im.summary.Wrapping = fyne.TextWrapWord
	im.table = widget.NewTable(im.tableSize, im.newCell, im.updateCell)
	im.load = &widget.Button{Text: "Load", Icon: theme.ConfirmIcon(), Importance: widget.HighImportance, OnTapped: im.onLoad}
	cancel := &widget.Button{Text: "Cancel", Icon: theme.CancelIcon(), OnTapped: func() { im.dlg.Hide() }}
	if err := im.read(); err != nil {
		return nil, err
	}
	im.setControls()
	sheetLabel, delimLabel, encLabel := widget.NewLabel("Sheet"), widget.NewLabel("Delimiter"), widget.NewLabel("Encoding")
	sheet, delim, enc := roomy(im.sheet), roomy(im.delim), roomy(im.encoding)
	settings := container.NewHBox(
		sheetLabel, sheet,
		delimLabel, delim,
		widget.NewLabel("Header line"), roomy(im.header),
		encLabel, enc,
		widget.NewLabel("Time format"), fixedWidth(im.timeFormat, 260),
	)
	textOnly := []fyne.CanvasObject{delimLabel, delim, im.delim, encLabel, enc, im.encoding}
	workbook := []fyne.CanvasObject{sheetLabel, sheet, im.sheet}
	show := func(objs []fyne.CanvasObject, on bool) {
		for _, o := range objs {
			if on {
				o.Show()
			} else {
				o.Hide()
			}
		}
	}
	show(textOnly, im.preview.Sheet == "")
	show(workbook, im.preview.Sheet != "")
	top := container.NewVBox(settings, pickers, im.xy, im.problem)
	bottom := container.NewBorder(nil, nil, nil, container.NewHBox(cancel, im.load), im.summary)
	return container.NewBorder(top, bottom, nil, nil, im.table), nil
}

// read previews the file by the mapping.
func (im *importer) read() error {
	rc, _, err := im.src.open()
	if err != nil {
		return err
	}
	defer rc.Close()
	m := im.mapping
	p, err := geo.PreviewDelimited(rc, &m, previewRows)
	if err != nil {
		return err
	}
	im.preview = p
	// The controls show what was settled on: the delimiter sniffed (or
	// the sheet read), and the header line found once the file reads.
	im.mapping.Delim, im.mapping.Sheet = p.Delimiter, p.Sheet
	if p.Err == nil {
		im.mapping.Header = geo.HeaderNo
		if p.Header != nil {
			im.mapping.Header = geo.HeaderYes
		}
	}
	return nil
}

// changed reads the controls into the mapping and previews it again.
// A new delimiter, header, encoding or sheet splits the rows anew, so the
// columns are guessed again (and, but for a new header, the header
// line); a column picked keeps the others.
func (im *importer) changed(column bool) {
	if im.setting {
		return
	}
	m := geo.Mapping{TimeLayout: strings.TrimSpace(im.timeFormat.Text)}
	m.Delim, _ = geo.ParseDelimiter(strings.Replace(im.delim.Selected, choiceAuto, "auto", 1))
	m.Header, _ = geo.ParseHeader(strings.Replace(im.header.Selected, choiceAuto, "auto", 1))
	m.Latin1 = im.encoding.Selected == encodingL1
	m.Sheet = im.sheet.Selected
	if column {
		m.Columns = im.pickedColumns()
	}
	if m.Delim != im.mapping.Delim || m.Sheet != im.mapping.Sheet {
		m.Header = geo.HeaderAuto // rows split anew, or another sheet's
	}
	if m.Delim != im.mapping.Delim || m.Header != im.mapping.Header || m.Latin1 != im.mapping.Latin1 || m.Sheet != im.mapping.Sheet {
		m.Columns = nil
	} else if !column {
		m.Columns = im.mapping.Columns
	}
	im.mapping = m
	if err := im.read(); err != nil {
		im.setProblem(err.Error())
		return
	}
	im.setControls()
}

// pickedColumns returns the columns picked, by header name where the
// header names each once (so that a remembered mapping fits files whose
// columns move), else by number; "none" for a kind picked as none.
func (im *importer) pickedColumns() map[string]string {
	cols := map[string]string{}
	hdr := im.preview.Header
	for _, k := range importKinds {
		i := slices.Index(im.cols[k.kind].Options, im.cols[k.kind].Selected) - 1
		switch {
		case i < 0:
			cols[k.kind] = "none"
		case i < len(hdr) && uniqueName(hdr, i):
			cols[k.kind] = strings.TrimSpace(hdr[i])
		default:
			cols[k.kind] = geo.ColumnNumber(i)
		}
	}
	return cols
}

// uniqueName reports whether hdr[i] is a name no other field of hdr
// has, and one a -cols value can hold (no comma nor equals sign).
func uniqueName(hdr []string, i int) bool {
	name := strings.TrimSpace(hdr[i])
	if name == "" || strings.ContainsAny(name, ",=") || strings.EqualFold(name, "none") {
		return false
	}
	if _, err := strconv.Atoi(name); err == nil {
		return false
	}
	for j, h := range hdr {
		if j != i && strings.EqualFold(strings.TrimSpace(h), name) {
			return false
		}
	}
	return true
}

// useXY reads the header's x as longitude and y as latitude, which the
// person confirmed: x and y may be projected metres, so they are never
// guessed.
func (im *importer) useXY() {
	x, y := im.xyColumns()
	if x < 0 || y < 0 {
		return
	}
	cols := map[string]string{"lat": geo.ColumnNumber(y), "lon": geo.ColumnNumber(x)}
	for kind, c := range im.mapping.Columns {
		if kind != "lat" && kind != "lon" {
			cols[kind] = c
		}
	}
	im.mapping.Columns = cols
	if err := im.read(); err != nil {
		im.setProblem(err.Error())
		return
	}
	im.setControls()
}

// xyColumns returns the x and y columns of a header without coordinate
// columns (the first row shown, which the guesses took for a header),
// −1 when absent.
func (im *importer) xyColumns() (x, y int) {
	p := im.preview
	if p.Err == nil || im.mapping.Header == geo.HeaderNo || len(p.Rows) == 0 {
		return -1, -1
	}
	return geo.XYColumns(p.Rows[0].Fields)
}

// setControls sets the controls, the table and the summary from the
// preview.
func (im *importer) setControls() {
	im.setting = true
	defer func() { im.setting = false }()
	p, m := im.preview, im.mapping
	im.delim.SetSelected(delimChoice(m.Delim))
	im.header.SetSelected(headerChoices[m.Header])
	enc := choiceAuto
	if m.Latin1 {
		enc = encodingL1
	}
	im.encoding.SetSelected(enc)
	im.sheet.Options = p.Sheets
	im.sheet.SetSelected(p.Sheet)
	im.timeFormat.SetText(m.TimeLayout)
	options := []string{noColumn}
	for i := range p.Width {
		options = append(options, columnName(p.Header, i))
	}
	for _, k := range importKinds {
		s := im.cols[k.kind]
		s.Options = options
		s.Selected = noColumn
		i, ok := p.Columns[k.kind]
		if p.Err != nil { // nothing was read: keep what was picked
			n, err := strconv.Atoi(m.Columns[k.kind])
			i, ok = n-1, err == nil
		}
		if ok && i >= 0 && i+1 < len(options) {
			s.Selected = options[i+1]
		}
		s.Refresh()
	}
	if x, y := im.xyColumns(); x >= 0 && y >= 0 {
		hdr := p.Rows[0].Fields
		im.xy.Text = fmt.Sprintf("Read %q as longitude and %q as latitude: they are degrees (WGS 84), not projected metres", strings.TrimSpace(hdr[x]), strings.TrimSpace(hdr[y]))
		im.xy.SetChecked(false)
		im.xy.Show()
	} else {
		im.xy.Hide()
	}
	im.setProblem("")
	if p.Err != nil {
		im.setProblem("The file cannot be read this way: " + importReason(p.Err))
	}
	im.summary.SetText(previewSummary(p, m.Header != geo.HeaderNo))
	if p.Err != nil {
		im.load.Disable()
	} else {
		im.load.Enable()
	}
	im.sizeColumns()
	im.table.Refresh()
}

// setProblem says what keeps the file from being read, hidden when
// nothing does.
func (im *importer) setProblem(text string) {
	im.problem.SetText(text)
	if text == "" {
		im.problem.Hide()
	} else {
		im.problem.Show()
	}
}

// importReason is an error as the dialog says it: the -cols advice of
// the command line put as the pickers' words.
func importReason(err error) string {
	s := strings.TrimPrefix(err.Error(), "geo: ")
	if i := strings.Index(s, ": give lat and lon by number"); i >= 0 {
		s = s[:i] + ": pick the latitude and longitude columns"
	}
	if i := strings.Index(s, "; if "); i >= 0 {
		s = s[:i] // the x/y advice is the check box
	}
	return s
}

// delimChoice is a delimiter's name among delimChoices: grid's -delim
// name (geo.Mapping.Text), or the guess for none or another character.
func delimChoice(r rune) string {
	_, name, _, _, _ := (&geo.Mapping{Delim: r}).Text()
	if slices.Contains(delimChoices[1:], name) {
		return name
	}
	return choiceAuto
}

// columnName names column i (0-based) of a file with header hdr (nil:
// none): its number and header name.
func columnName(hdr []string, i int) string {
	if i < len(hdr) {
		return fmt.Sprintf("%d · %s", i+1, shortText(strings.TrimSpace(hdr[i]), 28))
	}
	return fmt.Sprintf("column %d", i+1)
}

// previewSummary says how the rows shown read, and what the file lacks;
// header says whether the first line is taken as a header when the file
// cannot be read (p.Err).
func previewSummary(p *geo.Preview, header bool) string {
	var b strings.Builder
	how := fmt.Sprintf("Fields split at %s", geo.DelimiterName(p.Delimiter))
	first := "line"
	if p.Sheet != "" {
		how, first = fmt.Sprintf("Sheet %q, one of %d", p.Sheet, len(p.Sheets)), "row"
	}
	switch {
	case p.Header != nil:
		how += "; " + first + " 1 is the header"
	case p.Err != nil && header:
		how += "; " + first + " 1 taken as the header"
	default:
		how += "; no header " + first
	}
	if p.Latin1 {
		how += "; read as Latin-1 (not UTF-8)"
	}
	b.WriteString(how + ". ")
	if p.Err != nil {
		fmt.Fprintf(&b, "The first %s rows are shown as split.", human.Thousands(len(p.Rows)))
		return b.String()
	}
	bad := 0
	for _, r := range p.Rows {
		if r.Err != nil {
			bad++
		}
	}
	fmt.Fprintf(&b, "%s of the first %s rows read", human.Thousands(len(p.Rows)-bad), human.Thousands(len(p.Rows)))
	if bad > 0 {
		fmt.Fprintf(&b, "; %s would fail (marked): loading stops at the first, unless you choose to skip them", human.Thousands(bad))
	}
	b.WriteString(".")
	if _, ok := p.Columns["user"]; !ok {
		b.WriteString(" No person column: every row is treated as a person, and the per-person choices are off.")
	}
	return b.String()
}

// The table: a header row, then one row per previewed row; a column for
// the line number, the row's outcome (before the fields, so that it shows
// however many fields there are), then one per field.

func (im *importer) tableSize() (int, int) {
	return len(im.preview.Rows) + 1, im.preview.Width + 2
}

func (im *importer) newCell() fyne.CanvasObject {
	l := widget.NewLabel("")
	l.Truncation = fyne.TextTruncateEllipsis
	return l
}

func (im *importer) updateCell(id widget.TableCellID, o fyne.CanvasObject) {
	l := o.(*widget.Label)
	text, style, imp := im.cellText(id.Row, id.Col)
	l.Text, l.TextStyle, l.Importance = text, style, imp
	l.Refresh()
}

// cellText is the text of a cell of the table, its style and colour.
func (im *importer) cellText(row, col int) (string, fyne.TextStyle, widget.Importance) {
	p := im.preview
	const fields = 2 // the first field's column
	if row == 0 {
		bold := fyne.TextStyle{Bold: true}
		switch col {
		case 0:
			if p.Sheet != "" {
				return "Row", bold, widget.MediumImportance
			}
			return "Line", bold, widget.MediumImportance
		case 1:
			return "Read as", bold, widget.MediumImportance
		}
		name := columnName(p.Header, col-fields)
		for _, k := range importKinds {
			if i, ok := p.Columns[k.kind]; ok && i == col-fields {
				return name + " → " + strings.ToLower(k.label), bold, widget.HighImportance
			}
		}
		return name, bold, widget.MediumImportance
	}
	r := p.Rows[row-1]
	plain := fyne.TextStyle{}
	switch col {
	case 0:
		if r.Line == 0 {
			return "", plain, widget.MediumImportance
		}
		if r.Err != nil {
			return "✗ " + strconv.Itoa(r.Line), plain, widget.DangerImportance
		}
		return strconv.Itoa(r.Line), plain, widget.MediumImportance
	case 1:
		if p.Err != nil {
			return "", plain, widget.MediumImportance
		}
		if r.Err != nil {
			return "✗ " + rowReason(r.Err), plain, widget.DangerImportance
		}
		return "✓ " + checkinText(r.Checkin), plain, widget.SuccessImportance
	}
	if col-fields < len(r.Fields) {
		return r.Fields[col-fields], plain, widget.MediumImportance
	}
	return "", plain, widget.MediumImportance
}

// rowReason is a row's error without its line number, which the table
// shows beside it.
func rowReason(err error) string {
	var pe *geo.ParseError
	if errors.As(err, &pe) {
		if pe.Column > 0 {
			return fmt.Sprintf("field %d: %v", pe.Column, pe.Err)
		}
		return pe.Err.Error()
	}
	return err.Error()
}

// checkinText is a check-in as the table shows what a row reads as.
func checkinText(c geo.Checkin) string {
	parts := []string{human.Lat(c.Lat()) + " " + human.Lon(c.Lon())}
	if c.User != "" {
		parts = append(parts, "person "+c.User)
	}
	if !c.Time.IsZero() {
		parts = append(parts, c.Time.UTC().Format("2006-01-02 15:04:05Z"))
	}
	if c.Location != "" {
		parts = append(parts, "at "+c.Location)
	}
	return strings.Join(parts, " · ")
}

// sizeColumns sets each column as wide as its widest text shown, within
// bounds, so that short fields do not waste the width.
func (im *importer) sizeColumns() {
	rows, cols := im.tableSize()
	probe := widget.NewLabel("")
	for c := range cols {
		w := float32(0)
		for r := range rows {
			text, style, _ := im.cellText(r, c)
			probe.TextStyle = style
			probe.SetText(text)
			w = max(w, probe.MinSize().Width)
		}
		limit := float32(300)
		if c == 1 { // the outcome
			limit = 560
		}
		// The table insets its cells by a padding or two.
		im.table.SetColumnWidth(c, min(limit, w+2*theme.Padding()))
	}
}

// onLoad remembers the mapping for files named alike and loads the file
// by it.
func (im *importer) onLoad() {
	if strings.TrimSpace(im.timeFormat.Text) != im.mapping.TimeLayout {
		im.changed(false) // a time format typed but not submitted
		if im.preview.Err != nil {
			return
		}
	}
	m := im.mapping
	if len(m.Columns) == 0 { // the guesses: record them as read
		m.Columns = im.pickedColumns()
	}
	rememberMapping(im.d.app.Preferences(), im.src.name, &m)
	im.dlg.Hide()
	src := im.src
	src.mapping = &m
	im.d.load(src, false)
}

// digits are the runs of digits importPattern replaces.
var digits = regexp.MustCompile(`[0-9]+`)

// importPattern is the pattern of a file name under which its mapping is
// remembered: its runs of digits as "*", case folded, so that
// checkins_2024-01.csv and checkins_2024-02.csv share one.
func importPattern(name string) string {
	return digits.ReplaceAllString(strings.ToLower(name), "*")
}

// rememberedImport is one remembered mapping, kept as a study's source
// keeps it (grid's flag values, the sheet too; studyfile.Source.SetMapping).
type rememberedImport struct {
	Pattern string `json:"pattern"`
	studyfile.Source
}

func remembered(p fyne.Preferences) []rememberedImport {
	var list []rememberedImport
	if json.Unmarshal([]byte(p.String(prefImports)), &list) != nil {
		return nil // none, or written by another version
	}
	return list
}

// rememberedMapping returns the mapping chosen last for a file named
// like name, nil if none (or one that no longer parses).
func rememberedMapping(p fyne.Preferences, name string) *geo.Mapping {
	pat := importPattern(name)
	for _, r := range remembered(p) {
		if r.Pattern != pat {
			continue
		}
		m, err := r.Mapping()
		if err != nil || m == nil {
			return nil
		}
		return m
	}
	return nil
}

// rememberMapping records m for files named like name, first in the
// list, which keeps the maxRemembered most recent.
func rememberMapping(p fyne.Preferences, name string, m *geo.Mapping) {
	r := rememberedImport{Pattern: importPattern(name)}
	r.SetMapping(m)
	list := slices.DeleteFunc(remembered(p), func(o rememberedImport) bool { return o.Pattern == r.Pattern })
	list = append([]rememberedImport{r}, list...)
	if len(list) > maxRemembered {
		list = list[:maxRemembered]
	}
	b, _ := json.Marshal(list)
	p.SetString(prefImports, string(b))
}
