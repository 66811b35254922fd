package gui

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/paulmach/orb"

	"github.com/privmap/privmap/app/human"
	"github.com/privmap/privmap/app/mapplot"
	"github.com/privmap/privmap/geo"
)

// gridPanel is the Data screen's card for check-ins: which of each
// user's check-ins count, the box and the cell size of the grid, and
// the basemap under it; Fit and Grid grid the data again. It is the
// Data screen's view of check-ins (a dataView), as censusPanel is of a
// census table.
type gridPanel struct {
	d        *dataTab
	gridCard *widget.Card
	perUser  *widget.Select
	// bound is K, at most K check-ins of each person, when perUser
	// chooses a bound.
	bound              *widget.Entry
	south, west, north *widget.Entry
	east, cell         *widget.Entry
	// boxShown keeps the exact box behind the rounded entries.
	boxShown   [4]shownNumber
	fit, apply *widget.Button
	// fold counts person ids that differ only in case or Unicode form
	// as one person (grid's -person-key fold).
	fold *widget.Check
}

func newGridPanel(d *dataTab) *gridPanel {
	g := &gridPanel{d: d}
	p := d.app.Preferences()
	g.fit = &widget.Button{Text: "Fit box to data", Icon: theme.ZoomFitIcon(), OnTapped: g.onFit}
	g.apply = &widget.Button{Text: "Grid", Icon: theme.ViewRefreshIcon(), OnTapped: g.onApply}
	g.bound = widget.NewEntry()
	g.bound.SetPlaceHolder("K")
	g.bound.SetText(p.StringWithFallback(prefPerUserBound, "10"))
	g.bound.Validator = func(s string) error { _, err := boundValue(s); return err }
	g.bound.OnSubmitted = g.onSubmit
	g.perUser = widget.NewSelect([]string{perUserFirst, perUserAll, perUserBounded}, g.onPerUser)
	saved := p.String(prefPerUser)
	if saved == perUserBoundedOld {
		saved = perUserBounded
	}
	g.perUser.SetSelected(choice(saved, g.perUser.Options, perUserFirst))
	g.showBound()
	g.south, g.west = numberEntry(g.onSubmit), numberEntry(g.onSubmit)
	g.north, g.east = numberEntry(g.onSubmit), numberEntry(g.onSubmit)
	g.cell = numberEntry(g.onSubmit)
	g.cell.SetText(strconv.FormatFloat(p.FloatWithFallback(prefCellKm, 0.5), 'g', -1, 64))
	g.setBoxEntries(geo.FWBound)
	g.fold = widget.NewCheck("one person if they differ only in case", g.onFold)
	return g
}

// onFold grids again with person ids folded, or as written.
func (g *gridPanel) onFold(on bool) {
	ds := g.d.ws.data
	if ds == nil || ds.isCensus() || (ds.src.personKey == geo.PersonFold) == on {
		return
	}
	ds.src.personKey = geo.PersonExact
	if on {
		ds.src.personKey = geo.PersonFold
	}
	g.regrid(false)
}

// build makes the card, with the basemap's controls in its form.
func (g *gridPanel) build(b *basemapPanel) {
	grid := container.New(layout.NewFormLayout(),
		widget.NewLabel("Data"), container.NewBorder(nil, nil, nil, fixedWidth(g.bound, 64), g.perUser),
		widget.NewLabel("Person ids"), g.fold,
		// The box in two rows, so that the Summary fits below at the
		// window's default size.
		widget.NewLabel("North, South"), container.NewGridWithColumns(2, g.north, g.south),
		widget.NewLabel("West, East"), container.NewGridWithColumns(2, g.west, g.east),
		widget.NewLabel("Cell (km)"), g.cell,
		widget.NewLabel("Basemap"), b.base,
		widget.NewLabel("Opacity"), b.opacity,
	)
	g.gridCard = widget.NewCard("", "Grid", container.NewVBox(grid, container.NewGridWithColumns(2, g.fit, g.apply)))
}

func (g *gridPanel) onFit()           { g.regrid(true) }
func (g *gridPanel) onApply()         { g.regrid(false) }
func (g *gridPanel) onSubmit(string)  { g.regrid(false) }
func (g *gridPanel) onPerUser(string) { g.showBound(); g.regrid(false) }

// showBound enables K only for a bound on each person's check-ins.
func (g *gridPanel) showBound() {
	if g.perUser.Selected == perUserBounded {
		g.bound.Enable()
	} else {
		g.bound.Disable()
	}
}

// boundValue reads K: a whole number from 1 to geo.MaxPerUserLimit.
func boundValue(s string) (int, error) {
	k, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || k < 1 || k > geo.MaxPerUserLimit {
		return 0, fmt.Errorf("at most K check-ins per person: K %q must be a whole number from 1 to %s", s, human.Thousands(geo.MaxPerUserLimit))
	}
	return k, nil
}

// gridOptions reads the box, cell and per-user controls. With fit, the
// box entries are not read and the zero Bound asks for the data's own box.
func (g *gridPanel) gridOptions(fit bool) (geo.GridOptions, error) {
	var opt geo.GridOptions
	if !fit {
		b, err := geo.ParseBBox(g.boxText())
		if err != nil {
			return opt, err
		}
		opt.Bound = b
	}
	cell, err := strconv.ParseFloat(strings.TrimSpace(g.cell.Text), 64)
	if err != nil || !(cell > 0) || math.IsInf(cell, 0) {
		return opt, fmt.Errorf("cell size %q must be a positive number of kilometres", g.cell.Text)
	}
	// Each datum's home cell, which a PUM of the population protects.
	opt.CellKm, opt.Home = cell, true
	switch g.perUser.Selected {
	case perUserAll:
		opt.PerUser = geo.All
	case perUserBounded:
		k, err := boundValue(g.bound.Text)
		if err != nil {
			return opt, err
		}
		if k > 1 { // K = 1 is the first check-in
			opt.PerUser, opt.MaxPerUser = geo.All, k
		}
	}
	return opt, nil
}

func (g *gridPanel) setBoxEntries(b orb.Bound) {
	// Shown to six decimals of a degree (0.1 m, finer than any cell);
	// read back exactly while unchanged, so that a box fitted to the data
	// keeps its outermost check-ins.
	for i, e := range []*widget.Entry{g.south, g.west, g.north, g.east} {
		v := [4]float64{b.Min[1], b.Min[0], b.Max[1], b.Max[0]}[i]
		g.boxShown[i] = shownNumber{text: degreesText(v), value: v}
		e.SetText(g.boxShown[i].text)
	}
}

// degreesText writes degrees to at most six decimals.
func degreesText(v float64) string {
	return strings.TrimRight(strings.TrimRight(strconv.FormatFloat(v, 'f', 6, 64), "0"), ".")
}

// boxText returns the box entries as south,west,north,east, each exact
// while it shows what setBoxEntries put there.
func (g *gridPanel) boxText() string {
	parts := make([]string, 4)
	for i, e := range []*widget.Entry{g.south, g.west, g.north, g.east} {
		parts[i] = e.Text
		if v, err := g.boxShown[i].read(e.Text); err == nil {
			parts[i] = strconv.FormatFloat(v, 'g', -1, 64)
		}
	}
	return strings.Join(parts, ",")
}

// regrid grids the loaded data again with the current controls, off the
// UI goroutine, reading the source again as it streams past (privmap
// keeps no record in memory; see gridSource). With fit the box is the
// data's own, and the box entries are set from the grid made.
func (g *gridPanel) regrid(fit bool) {
	if g.d.ws.data == nil || g.d.ws.loading || g.d.ws.data.isCensus() {
		return
	}
	opt, err := g.gridOptions(fit)
	if err != nil {
		showError(g.d.win, err, "Correct the box or cell size, then grid again; the current grid stays.")
		return
	}
	p := g.d.app.Preferences()
	p.SetFloat(prefCellKm, opt.CellKm)
	p.SetString(prefPerUser, g.perUser.Selected)
	p.SetString(prefPerUserBound, strings.TrimSpace(g.bound.Text))
	old := g.d.ws.data
	g.d.start("Gridding "+old.src.name+"…", func(ctx context.Context, report func(float64)) (*dataset, error) {
		ds, err := gridSource(ctx, old.src, old.skipBad, opt, report)
		if err != nil {
			return nil, err
		}
		ds.regridded, ds.fitted = true, fit
		return ds, nil
	}, g.regridFailed)
}

func (g *gridPanel) regridFailed(err error) {
	if errors.Is(err, context.Canceled) {
		g.d.status.SetText("Gridding cancelled; the previous grid stays.")
		return
	}
	g.d.status.SetText("Could not grid the data; the previous grid stays.")
	showError(g.d.win, err, "The previous grid stays; change the box or cell size and grid again.")
}

// present shows the grid's card and says what was loaded or gridded.
func (g *gridPanel) present(ds *dataset) string {
	g.gridCard.Show()
	// Without a person column every row is its own person: the
	// per-person choices mean nothing then.
	if ds.res.NoPerson {
		g.perUser.Disable()
		g.bound.Disable()
		g.fold.Disable()
	} else {
		g.perUser.Enable()
		g.fold.Enable()
		g.showBound()
	}
	g.fold.SetChecked(ds.src.personKey == geo.PersonFold)
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
		g.setBoxEntries(ds.grid.Grid.Bound)
	}
	return msg
}

func (g *gridPanel) hideCard() { g.gridCard.Hide() }

// summarise fills the summary for check-ins on a grid.
func (g *gridPanel) summarise(ds *dataset) {
	d := g.d
	d.setSummaryLabels("Cells", "Cell size")
	res, gd, gr := ds.res, ds.grid, ds.grid.Grid
	set := func(k, v string) { d.fields[k].SetText(v) }
	set("File", ds.src.name)
	note := ""
	if res.Latin1 {
		note = " · read as Latin-1 (not UTF-8)"
	}
	if res.Sheet != "" {
		note = fmt.Sprintf(" (sheet %q)", res.Sheet)
	}
	set("Read", fmt.Sprintf("%v format%s%s · %s %s · %s skipped", res.Format, delimiterNote(res.Delimiter), note, human.Thousands(res.Lines), res.LineUnit(), human.Thousands(res.Skipped)))
	records := fmt.Sprintf("%s check-ins · %s users", human.Thousands(gd.Records), human.Thousands(gd.Users))
	if res.NoPerson {
		records += " · " + geo.NoPersonNote
	}
	if res.BlankPerson > 0 {
		what := "each a person of its own"
		if ds.src.blank == geo.BlankSkip {
			what = "left out"
		}
		records += fmt.Sprintf(" · %s naming no person, %s", human.Thousands(res.BlankPerson), what)
	}
	if gd.Alike > 0 {
		how := "counted as different people"
		if ds.src.personKey == geo.PersonFold {
			how = "counted as one"
		}
		records += fmt.Sprintf(" · %s from another only in case or Unicode form (%q, %q): %s", human.Plural(gd.Alike, "id differs", "ids differ"), gd.AlikeExample[0], gd.AlikeExample[1], how)
	}
	set("Records", records)
	rule := gd.RuleText()
	if gd.Limit > 0 {
		rule = "at most " + rule
	}
	set("Data", fmt.Sprintf("%s (%s per user) · %s outside box · at most %s of one person", human.Thousands(gd.Data), rule, human.Thousands(gd.Outside), human.Thousands(gd.MaxPerPerson)))
	set("Cells", fmt.Sprintf("%d × %d = %s · %s non-empty", gr.Cols, gr.Rows, human.Thousands(gr.Len()), human.Thousands(gd.NonEmpty())))
	set("Cell size", fmt.Sprintf("%.4f × %.4f km", gr.CellWidthKm(), gr.CellHeightKm()))
}

// trueMap draws the counts of the grid's cells over the basemap.
func (g *gridPanel) trueMap(ds *dataset, scale mapplot.Scale) *mapplot.Map {
	gd := ds.grid
	v := make([]float64, len(gd.Counts))
	for i, c := range gd.Counts {
		v[i] = float64(c)
	}
	label := "users (first check-in)"
	if gd.Rule == geo.All {
		label = "check-ins"
	}
	m := gridMap(gd.Grid, v, scale, "True distribution · "+ds.src.name, label)
	g.d.ws.tiles.under(m)
	return m
}

// hoverText describes a cell's place and count.
func (g *gridPanel) hoverText(ds *dataset, _ *mapplot.Map, cell int) string {
	if cell < 0 {
		return "Hover over a cell to see its place and count."
	}
	return cellInfo(ds.grid, cell)
}

// delimiterNote names a delimited file's separator for the summary:
// " (semicolons)", "" for the other formats.
func delimiterNote(r rune) string {
	if r == 0 {
		return ""
	}
	return " (" + geo.DelimiterName(r) + ")"
}
