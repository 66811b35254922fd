package gui

import (
	"context"

	"fyne.io/fyne/v2"

	"github.com/privmap/privmap/core"
)

// A workspace is what the window's screens share: the data set loaded,
// the basemap under every map, the population of mechanisms, and the
// audits' slots that a run holds. A screen reads it and subscribes to
// its changes; it never reaches into another screen
// (docs/ARCHITECTURE.md, "Adding to privmap").
type workspace struct {
	ctx context.Context
	app fyne.App
	win fyne.Window

	// tiles is the basemap (and outlines) every map is drawn over; a
	// screen that draws maps appends its redraw to tiles.onReady.
	tiles *tiles
	// audits are the slots the population's audits run in; a run holds
	// them while it runs.
	audits *auditSlots

	data    *dataset // the data set shown, nil until one is
	loading bool     // a data set is being read or gridded

	// population returns the population of mechanisms as a study on the
	// data's alphabet, or why it is not one; the Population screen sets
	// it.
	population func() (*core.Study, error)
	// guarantees says in words what each mechanism's reports reveal,
	// for a figure's header; the Population screen sets it.
	guarantees func() []string

	dataShown         []func(*dataset)
	populationChanged []func(*core.Study, error)
	results           []func(*runResult)
	// runStages are told a run's stage as it goes ("" once it has
	// ended), so that a screen without results says a run is under way.
	runStages []func(stage string)

	// show selects a screen's tab, and current returns the screen
	// shown; the window sets them.
	show    func(screen)
	current func() screen
	// pick lets the user pick a mechanism's sensitive cells on the data
	// map, returning to the screen back when done, and regrid grids the
	// data again on cells of cellKm, selecting the Data screen; the Data
	// screen offers both.
	pick   func(t *pickTarget, back screen)
	regrid func(cellKm float64)
}

func newWorkspace(ctx context.Context, a fyne.App, w fyne.Window) *workspace {
	return &workspace{ctx: ctx, app: a, win: w, tiles: newTiles(a), audits: newAuditSlots(),
		population: func() (*core.Study, error) { return nil, errNoPopulation },
		guarantees: func() []string { return nil },
		show:       func(screen) {}, current: func() screen { return nil }}
}

// setData makes ds the data set shown and tells the screens, in the
// order they subscribed.
func (ws *workspace) setData(ds *dataset) {
	ws.data = ds
	for _, f := range ws.dataShown {
		f(ds)
	}
}

// changedPopulation tells the screens that the population changed.
func (ws *workspace) changedPopulation() {
	s, err := ws.population()
	for _, f := range ws.populationChanged {
		f(s, err)
	}
}

// runStage tells the screens a run's stage, "" once it has ended.
func (ws *workspace) runStage(stage string) {
	for _, f := range ws.runStages {
		f(stage)
	}
}

// published hands a finished run to the screens that show results.
func (ws *workspace) published(res *runResult) {
	for _, f := range ws.results {
		f(res)
	}
}
