package gui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/privmap/privmap/app/human"
	"github.com/privmap/privmap/app/mapplot"
	"github.com/privmap/privmap/core"
	"github.com/privmap/privmap/geo"
	"github.com/privmap/privmap/geo/census"
)

// censusChoice is how a census file is tabulated: the attributes, as
// privmap grid's -attrs, and the missing-value policy.
type censusChoice struct {
	attrs   string
	missing census.Missing
}

// defaultAttrs are CEM Table 2's attributes.
const defaultAttrs = "age,sex,income,marital"

// Missing-value policies as shown, and the view of no second attribute.
const (
	missingDrop     = "drop the record"
	missingCategory = "count as category “missing”"
	noAttribute     = "(none)"
)

// readCensus tabulates a census file read from r.
func readCensus(r io.Reader, src source, f census.Format, ch censusChoice, skipBad bool) (*dataset, error) {
	cr, err := census.NewReader(r, f)
	if err != nil {
		return nil, err
	}
	attrs, err := census.Attributes(f, cr.Columns(), ch.attrs)
	if err != nil {
		return nil, err
	}
	tab, err := census.Tabulate(cr, attrs, census.Options{Missing: ch.missing, SkipBad: skipBad})
	if err != nil {
		return nil, err
	}
	a, err := tab.Alphabet(false)
	if err != nil {
		return nil, err
	}
	return &dataset{src: src, tabulated: &tabulated{table: tab, alphabet: a, choice: ch}}, nil
}

// censusPanel is the data tab's card for census files: which attributes
// make the alphabet, and which pair of them the heat map shows.
type censusPanel struct {
	d         *dataTab
	card      *widget.Card
	attrs     *widget.Entry
	missing   *widget.Select
	tabulate  *widget.Button
	rows, col *widget.Select
}

func newCensusPanel(d *dataTab) *censusPanel {
	c := &censusPanel{d: d}
	p := d.app.Preferences()
	c.attrs = widget.NewEntry()
	c.attrs.SetText(p.StringWithFallback(prefCensusAttrs, defaultAttrs))
	c.attrs.OnSubmitted = func(string) { c.onTabulate() }
	c.missing = widget.NewSelect([]string{missingDrop, missingCategory}, nil)
	c.missing.SetSelected(choice(p.String(prefCensusMissing), c.missing.Options, missingDrop))
	c.tabulate = &widget.Button{Text: "Tabulate", Icon: theme.ViewRefreshIcon(), OnTapped: c.onTabulate}
	c.rows = widget.NewSelect(nil, c.onView)
	c.col = widget.NewSelect(nil, c.onView)
	form := container.New(layout.NewFormLayout(),
		widget.NewLabel("Attributes"), c.attrs,
		widget.NewLabel("Missing"), c.missing,
		widget.NewLabel("Rows"), c.rows,
		widget.NewLabel("Columns"), c.col,
	)
	help := widget.NewLabel("Presets age, sex, income, marital (CEM Table 2) or column names, comma-separated.")
	help.Wrapping = fyne.TextWrapWord
	help.Importance = widget.LowImportance
	c.card = widget.NewCard("", "Attributes", container.NewVBox(form, help, c.tabulate))
	c.card.Hide()
	return c
}

// choice returns the tabulation the controls ask for.
func (c *censusPanel) choice() censusChoice {
	ch := censusChoice{attrs: strings.TrimSpace(c.attrs.Text), missing: census.Drop}
	if ch.attrs == "" {
		ch.attrs = defaultAttrs
	}
	if c.missing.Selected == missingCategory {
		ch.missing = census.Category
	}
	return ch
}

// show sets the view selects for a newly shown table, keeping the
// attributes viewed when the new table still has them.
func (c *censusPanel) show(ds *dataset) {
	names := make([]string, len(ds.table.Axes))
	for i, ax := range ds.table.Axes {
		names[i] = ax.Name
	}
	row, col := c.rows.Selected, c.col.Selected
	if !slices.Contains(names, row) {
		row = names[0]
	}
	if !slices.Contains(names, col) || col == row {
		col = noAttribute
		if len(names) > 1 {
			col = names[1]
			if col == row {
				col = names[0]
			}
		}
	}
	c.rows.OnChanged, c.col.OnChanged = nil, nil
	c.rows.SetOptions(names)
	c.col.SetOptions(append([]string{noAttribute}, names...))
	c.rows.SetSelected(row)
	c.col.SetSelected(col)
	c.rows.OnChanged, c.col.OnChanged = c.onView, c.onView
	c.card.Show()
}

// view returns the attribute indices shown as rows and columns, col −1
// for a single attribute.
func (c *censusPanel) view(a core.Alphabet) (row, col int) {
	return attrAxes(a, c.rows.Selected, c.col.Selected)
}

// attrAxes returns the indices of the attributes named as rows and
// columns of a view of a, col −1 for none (or the rows' own).
func attrAxes(a core.Alphabet, rows, cols string) (row, col int) {
	row = max(0, a.Attribute(rows))
	col = a.Attribute(cols)
	if col == row {
		col = -1
	}
	return row, col
}

func (c *censusPanel) onView(string) {
	if ds := c.d.ws.data; ds != nil && ds.isCensus() {
		c.d.refreshMap()
		c.d.onHover(-1)
	}
}

// onTabulate reads the census file again with the chosen attributes.
func (c *censusPanel) onTabulate() {
	d := c.d
	if d.ws.data == nil || !d.ws.data.isCensus() || d.ws.loading {
		return
	}
	ch := c.choice()
	p := d.app.Preferences()
	p.SetString(prefCensusAttrs, ch.attrs)
	p.SetString(prefCensusMissing, c.missing.Selected)
	src := d.ws.data.src
	d.start("Tabulating "+src.name+"…", func(ctx context.Context, report func(float64)) (*dataset, error) {
		return readSource(ctx, src, false, geo.GridOptions{}, ch, report)
	}, func(err error) {
		if errors.Is(err, context.Canceled) {
			d.status.SetText("Tabulating cancelled; the previous table stays.")
			return
		}
		d.status.SetText("Could not tabulate " + src.name + "; the previous table stays.")
		showError(d.win, fmt.Errorf("%s: %w", src.name, err), "The previous table stays. Check the attribute list (e.g. age,sex,income,marital, or age=17,30,50) and tabulate again.")
	})
}

// censusMap draws the counts of ds's table as a heat map over the
// attributes row and col, or with col −1 as a bar chart of row's
// categories.
func censusMap(ds *dataset, values []float64, row, col int, scale mapplot.Scale, title, label string) *mapplot.Map {
	out, err := mapplot.Table(ds.alphabet, values, row, col)
	if err != nil {
		panic("app: census table: " + err.Error()) // the window tabulates at most mapplot's limit
	}
	out.Title, out.Label, out.Scale = title, label, scale
	return out
}

// censusCellInfo describes a cell of the census heat map: its categories
// and count and share of the people.
func censusCellInfo(ds *dataset, m *mapplot.Map, cell int) string {
	where := categoryPlace(m, cell)
	n := int(m.Values[cell])
	share := 0.0
	if k := len(ds.table.Data); k > 0 {
		share = 100 * float64(n) / float64(k)
	}
	return fmt.Sprintf("%s · %s (%.2f%%)", where, human.Plural(n, "person", "people"), share)
}

// categoryPlace names the categories of a cell of a census map.
func categoryPlace(m *mapplot.Map, cell int) string {
	r, c := cell/m.Cols, cell%m.Cols
	where := m.ColName + " " + m.ColLabels[c]
	if m.RowName != "" {
		where = m.RowName + " " + m.RowLabels[r] + " · " + where
	}
	return where
}

// censusSummary fills the summary rows for a census table.
func (d *dataTab) censusSummary(ds *dataset) {
	t := ds.table
	set := func(k, v string) { d.fields[k].SetText(v) }
	set("File", ds.src.name)
	set("Read", fmt.Sprintf("%v format · %s lines · %s skipped", t.Format, human.Thousands(t.Lines), human.Thousands(t.Skipped)))
	set("Records", human.Thousands(t.Records)+" records")
	data := human.Thousands(len(t.Data)) + " people (a record each)"
	if t.Dropped > 0 {
		data += fmt.Sprintf(" · %s dropped for a missing value", human.Thousands(t.Dropped))
	}
	set("Data", data)
	nonEmpty := 0
	for _, n := range t.Counts() {
		if n > 0 {
			nonEmpty++
		}
	}
	set("Cells", fmt.Sprintf("%s categories · %s non-empty", human.Thousands(t.Len()), human.Thousands(nonEmpty)))
	parts := make([]string, len(t.Axes))
	for i, ax := range t.Axes {
		parts[i] = fmt.Sprintf("%s %d", ax.Name, len(ax.Labels))
	}
	set("Cell size", strings.Join(parts, " × "))
	d.setSummaryLabels("Categories", "Attributes")
}

// present shows the census card for a newly shown table and says what
// was loaded.
func (c *censusPanel) present(ds *dataset) string {
	c.show(ds)
	return fmt.Sprintf("Loaded %s: %s people over %s.", ds.src.name, human.Thousands(len(ds.table.Data)), ds.choice.attrs)
}

func (c *censusPanel) hideCard() { c.card.Hide() }

// summarise fills the summary for a census table.
func (c *censusPanel) summarise(ds *dataset) { c.d.censusSummary(ds) }

// trueMap draws the table's counts over the attributes viewed.
func (c *censusPanel) trueMap(ds *dataset, scale mapplot.Scale) *mapplot.Map {
	counts := make([]float64, ds.table.Len())
	for i, n := range ds.table.Counts() {
		counts[i] = float64(n)
	}
	row, col := c.view(ds.alphabet)
	return censusMap(ds, counts, row, col, scale, "True distribution · "+ds.src.name, "people")
}

// hoverText describes a category's count.
func (c *censusPanel) hoverText(ds *dataset, m *mapplot.Map, cell int) string {
	if cell < 0 || m == nil {
		return "Hover over a cell to see its categories and count."
	}
	return censusCellInfo(ds, m, cell)
}
