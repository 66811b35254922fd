// Package gui is privmap's window: a privacy officer's desk that loads
// check-in or census data, sets the population of mechanisms the users
// choose, simulates their reports and runs the estimators off the UI
// goroutine, compares true and estimated maps, and exports them. It
// receives the fyne.App and fyne.Window from main, so every screen can be
// tested headless with fyne.io/fyne/v2/test.
package gui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"

	"github.com/privmap/privmap/app"
	"github.com/privmap/privmap/assets"
	"github.com/privmap/privmap/core"
)

// DefaultSize is the window's initial size.
var DefaultSize = fyne.NewSize(1200, 760)

// Preference keys.
const (
	prefCellKm  = "grid.cellKm"
	prefPerUser = "grid.perUser"
	prefScale   = "map.scale"

	prefCensusAttrs   = "census.attrs"
	prefCensusMissing = "census.missing"

	prefPopulation = "population.mechanisms"

	prefWidth  = "window.width"
	prefHeight = "window.height"
)

// WindowSize returns the size the window had when last closed, or
// DefaultSize.
func WindowSize(a fyne.App) fyne.Size {
	p := a.Preferences()
	w, h := p.Float(prefWidth), p.Float(prefHeight)
	if w < 400 || h < 300 {
		return DefaultSize
	}
	return fyne.NewSize(float32(w), float32(h))
}

// New builds privmap's content for w, with its main menu and keyboard
// shortcuts, and returns the tabs. It opens file, if given, as a study
// (a .json file) or a data file, else the embedded default data. Work
// still running is cancelled when w closes, and the window's size is
// remembered.
func New(a fyne.App, w fyne.Window, file ...string) *container.AppTabs {
	u := newUI(a, w, file...)
	return u.tabs
}

// ui is the window's screens.
type ui struct {
	app  fyne.App
	win  fyne.Window
	tabs *container.AppTabs
	data *dataTab
	pop  *populationTab
	run  *runTab
	cmp  *compareTab
	rel  *releaseTab
	exp  *experimentsTab
}

// Tab indices.
const (
	tabData = iota
	tabPopulation
	tabRun
	tabCompare
	tabRelease
	tabExperiments
)

func newUI(a fyne.App, w fyne.Window, file ...string) *ui {
	ctx, cancel := context.WithCancel(context.Background())
	u := &ui{app: a, win: w}
	w.SetOnClosed(func() {
		cancel()
		if u.data != nil {
			u.data.tiles.stop()
		}
		if sz := w.Canvas().Size(); sz.Width > 0 {
			a.Preferences().SetFloat(prefWidth, float64(sz.Width))
			a.Preferences().SetFloat(prefHeight, float64(sz.Height))
		}
	})
	w.SetIcon(fyne.NewStaticResource("icon.png", assets.Icon))
	u.data = newDataTab(ctx, a, w)
	u.pop = newPopulationTab(ctx)
	u.run = newRunTab(ctx, a, w)
	u.cmp = newCompareTab(a, w)
	u.rel = newReleaseTab(ctx, a, w)
	u.rel.tiles = u.data.tiles
	u.rel.data = func() *dataset { return u.data.data }
	u.exp = newExperimentsTab(ctx, a, w)
	u.cmp.tiles = u.data.tiles
	// A basemap that arrives, or a new opacity, redraws the maps.
	u.data.tiles.onReady = []func(){
		func() {
			if u.data.data != nil && !u.data.data.isCensus() {
				u.data.refreshMap()
			}
		},
		func() {
			if u.cmp.res != nil {
				u.cmp.refresh()
			}
		},
		func() {
			if u.rel.last != nil {
				u.rel.refresh()
			}
		},
	}
	u.run.input = u.runInput
	u.run.hold = u.pop.slots.hold
	u.run.coarser = func(cellKm float64) {
		u.tabs.SelectIndex(tabData)
		u.data.cell.SetText(strconv.FormatFloat(cellKm, 'g', 4, 64))
		u.data.regrid(false)
	}
	u.pop.OnPick = func(r *mechRow) {
		u.tabs.SelectIndex(tabData)
		u.data.picker.start(r)
	}
	u.data.picker.onDone = func() { u.tabs.SelectIndex(tabPopulation) }
	u.run.OnResult = func(res *runResult) {
		u.win.SetTitle(fmt.Sprintf("privmap — %s compared", plural(len(res.Results), "estimator", "estimators")))
		u.cmp.show(res)
		u.tabs.SelectIndex(tabCompare)
	}
	u.data.onShown = func(ds *dataset) {
		prev, a := u.pop.alphabet, ds.studyAlphabet()
		u.pop.setAlphabet(a)
		// A first population to start from, or a new one when the data
		// changed kind (map to census, say) and the old one does not fit.
		switch {
		case u.pop.rows == nil && u.restorePopulation():
		case u.pop.rows == nil || prev.Kind != a.Kind && !u.pop.fits():
			u.pop.applyDefault()
		}
	}
	if name := a.Preferences().String(prefOverlay); name != "" {
		u.data.tiles.loadOverlay(name, func(err error) {
			if err != nil {
				u.data.tiles.onNote("no outlines: " + shortText(err.Error(), 80))
			}
		})
	}
	u.pop.OnChanged = u.savePopulation
	w.SetOnDropped(u.data.onDropped)
	u.tabs = container.NewAppTabs(
		container.NewTabItemWithIcon("Data", theme.FileIcon(), u.data.buildUI()),
		container.NewTabItemWithIcon("Population", theme.AccountIcon(), u.pop.buildUI()),
		container.NewTabItemWithIcon("Run", theme.MediaPlayIcon(), u.run.buildUI()),
		container.NewTabItemWithIcon("Compare", theme.GridIcon(), u.cmp.buildUI()),
		container.NewTabItemWithIcon("Release", theme.UploadIcon(), u.rel.buildUI()),
		container.NewTabItemWithIcon("Experiments", theme.ListIcon(), u.exp.buildUI()),
	)
	u.tabs.OnSelected = u.onTab
	u.addMenuAndShortcuts()
	if len(file) == 0 {
		u.data.load(defaultSource(), false)
		return u
	}
	u.openFile(file[0])
	return u
}

// openFile opens a study (.json) or a data file given on the command
// line; if it cannot, the embedded data are loaded and the error shown.
func (u *ui) openFile(name string) {
	if strings.EqualFold(filepath.Ext(name), ".json") {
		b, err := os.ReadFile(name)
		if err == nil {
			err = u.openStudy(b, filepath.Base(name))
		}
		if err != nil {
			u.data.load(defaultSource(), false)
			// Shown once the window has its size: a dialog laid out
			// before that is one word wide.
			jobs.Go(func() {
				jobs.Do(func() {
					showError(u.win, fmt.Errorf("%s: %w", name, err), "The embedded data are shown instead; open the study again from the File menu.")
				})
			})
		}
		return
	}
	abs, err := filepath.Abs(name)
	if err != nil {
		abs = name
	}
	u.data.load(uriSource(storage.NewFileURI(abs)), false)
}

// command is an action of the main menu with its keyboard shortcut.
type command struct {
	label    string
	key      fyne.KeyName
	shift    bool
	action   func()
	separate bool // a separator before it
}

// commands returns the menus' actions.
func (u *ui) commands() map[string][]command {
	return map[string][]command{
		"File": {
			{label: "Open data…", key: fyne.KeyO, action: u.data.onOpen},
			{label: "Open study…", key: fyne.KeyO, shift: true, action: u.onOpenStudy},
			{label: "Save study…", key: fyne.KeyS, action: u.onSaveStudy},
			{label: "Export PNG…", key: fyne.KeyE, action: u.onExportPNG, separate: true},
			{label: "Export CSV…", key: fyne.KeyE, shift: true, action: u.onExportCSV},
		},
		"Population": {
			{label: "Choose a preset", key: fyne.KeyP, action: u.onChoosePreset},
			{label: "Apply the preset", key: fyne.KeyP, shift: true, action: u.pop.onApplyPreset},
		},
		"Run": {
			{label: "Run estimators", key: fyne.KeyR, action: u.onRun},
			{label: "Cancel", key: fyne.KeyPeriod, action: u.onCancel},
		},
		"View": {
			{label: "Data", key: fyne.Key1, action: func() { u.tabs.SelectIndex(tabData) }},
			{label: "Population", key: fyne.Key2, action: func() { u.tabs.SelectIndex(tabPopulation) }},
			{label: "Run", key: fyne.Key3, action: func() { u.tabs.SelectIndex(tabRun) }},
			{label: "Compare", key: fyne.Key4, action: func() { u.tabs.SelectIndex(tabCompare) }},
			{label: "Release", key: fyne.Key5, action: func() { u.tabs.SelectIndex(tabRelease) }},
			{label: "Experiments", key: fyne.Key6, action: func() { u.tabs.SelectIndex(tabExperiments) }},
		},
	}
}

// addMenuAndShortcuts sets the main menu and binds each command's
// shortcut; Escape also cancels.
func (u *ui) addMenuAndShortcuts() {
	cmds := u.commands()
	var menus []*fyne.Menu
	for _, name := range []string{"File", "Population", "Run", "View"} {
		var items []*fyne.MenuItem
		for _, c := range cmds[name] {
			if c.separate {
				items = append(items, fyne.NewMenuItemSeparator())
			}
			mod := fyne.KeyModifierShortcutDefault
			if c.shift {
				mod |= fyne.KeyModifierShift
			}
			sc := &desktop.CustomShortcut{KeyName: c.key, Modifier: mod}
			item := fyne.NewMenuItem(c.label, c.action)
			item.Shortcut = sc
			items = append(items, item)
			u.win.Canvas().AddShortcut(sc, func(fyne.Shortcut) { c.action() })
		}
		menus = append(menus, fyne.NewMenu(name, items...))
	}
	u.win.SetMainMenu(fyne.NewMainMenu(menus...))
	u.win.Canvas().SetOnTypedKey(func(e *fyne.KeyEvent) {
		if e.Name == fyne.KeyEscape {
			u.onCancel()
		}
	})
}

// savePopulation remembers a valid population for the next session.
func (u *ui) savePopulation() {
	s, err := u.pop.study()
	u.updateEstimators(s, err)
	if err != nil {
		return
	}
	if b, err := json.Marshal(s.Mechanisms); err == nil {
		u.app.Preferences().SetString(prefPopulation, string(b))
	}
}

// onTab brings a screen up to date as it is shown: the Run screen offers
// the estimators that apply to the population, and the Compare screen
// fits its maps now that it has its size.
func (u *ui) onTab(t *container.TabItem) {
	switch t.Text {
	case "Run":
		u.updateEstimators(u.pop.study())
	case "Compare":
		u.cmp.fitSplit()
	case "Release":
		u.rel.fitSplit()
	}
}

// updateEstimators offers the estimators that apply to the population s
// (all of them while it has an error: err says why on the Population
// screen and at Run).
func (u *ui) updateEstimators(s *core.Study, err error) {
	if err != nil {
		u.run.setApplicable(nil)
		return
	}
	u.run.setApplicable(s.Applicable)
}

// restorePopulation sets the population of the last session, if it fits
// the alphabet, and reports whether it did.
func (u *ui) restorePopulation() bool {
	var ms []core.MechanismSpec
	if err := json.Unmarshal([]byte(u.app.Preferences().String(prefPopulation)), &ms); err != nil || len(ms) == 0 {
		return false
	}
	if (&core.Study{Alphabet: u.pop.alphabet, Mechanisms: ms}).Validate() != nil {
		return false
	}
	u.pop.setSpecs(ms)
	return true
}

// onChoosePreset shows the Population screen with its preset list
// focused: the arrow keys choose, Ctrl+Shift+P applies.
func (u *ui) onChoosePreset() {
	u.tabs.SelectIndex(tabPopulation)
	u.win.Canvas().Focus(u.pop.preset)
}

// onExportPNG exports the data's map from the Data screen, else the
// compared maps.
func (u *ui) onExportPNG() {
	switch u.tabs.SelectedIndex() {
	case tabData:
		u.data.onExportPNG()
	case tabRelease:
		u.rel.onExportPNG()
	default:
		u.cmp.onExportPNG()
	}
}

// onExportCSV exports the release on the Release screen, else the
// estimate compared.
func (u *ui) onExportCSV() {
	if u.tabs.SelectedIndex() == tabRelease {
		u.rel.onExportCSV()
		return
	}
	u.cmp.onExportCSV()
}

// onRun starts the experiment on the Experiments screen or the release on
// the Release screen, else shows the Run screen and starts a run.
func (u *ui) onRun() {
	switch u.tabs.SelectedIndex() {
	case tabExperiments:
		u.exp.onRun()
		return
	case tabRelease:
		u.rel.onRelease()
		return
	}
	u.tabs.SelectIndex(tabRun)
	u.run.onRun()
}

// onCancel cancels whatever runs: a run, a release, an experiment, loading data,
// the audits of the population.
func (u *ui) onCancel() {
	u.run.onCancel()
	u.rel.onCancel()
	u.exp.onCancel()
	u.pop.stopAudits()
	if u.data.busy {
		u.data.onCancel()
	}
}

// runInput gathers a run's study, data and truth from the screens.
func (u *ui) runInput() (runRequest, error) {
	ds := u.data.data
	switch {
	case u.data.busy:
		return runRequest{}, errors.New("the data are still loading: wait for them (or cancel), then run")
	case ds == nil:
		return runRequest{}, errors.New("no data are loaded: open a check-in or census file on the Data screen")
	}
	s, err := u.pop.study()
	if err != nil {
		return runRequest{}, fmt.Errorf("the population of mechanisms: %w\n\nCorrect it on the Population screen, then run", err)
	}
	req := runRequest{ds: ds, Request: app.Request{Study: s}}
	if ds.isCensus() {
		req.Users.Data, req.Users.Truth = ds.table.Data, ds.table.Distribution()
	} else {
		req.Users.Data, req.Users.Truth = ds.grid.Cells, ds.grid.Distribution()
		if ds.grid.Homes != nil {
			// Each user's home cell: what a PUM maps to its tag "home",
			// and by default the background its estimator spreads the
			// tag's mass with (ULDP §5).
			s.Personal = map[string][]int{"home": ds.grid.Homes}
		}
	}
	return req, nil
}

// showError shows err in a dialog followed by what to do next.
func showError(w fyne.Window, err error, next string) {
	dialog.ShowError(advice{err, next}, w)
}

// advice is an error with what to do about it.
type advice struct {
	err  error
	next string
}

func (a advice) Error() string { return a.err.Error() + "\n\n" + a.next }
func (a advice) Unwrap() error { return a.err }
