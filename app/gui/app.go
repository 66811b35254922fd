package gui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/widget"

	"github.com/privmap/privmap/app/build"
	"github.com/privmap/privmap/assets"
)

// DefaultSize is the window's initial size.
var DefaultSize = fyne.NewSize(1200, 760)

// Preference keys.
const (
	prefCellKm       = "grid.cellKm"
	prefPerUser      = "grid.perUser"
	prefPerUserBound = "grid.perUserBound"
	prefScale        = "map.scale"

	prefCensusAttrs   = "census.attrs"
	prefCensusMissing = "census.missing"

	prefPopulation = "population.mechanisms"

	// prefSize is the window's size, "WxH"; prefWidth and prefHeight
	// held it before, and are still read.
	prefSize   = "window.size"
	prefWidth  = "window.width"
	prefHeight = "window.height"
)

// WindowSize returns the size the window last had (sizeKeeper), or
// DefaultSize.
func WindowSize(a fyne.App) fyne.Size {
	p := a.Preferences()
	w, h := p.Float(prefWidth), p.Float(prefHeight)
	if s := p.String(prefSize); s != "" {
		if _, err := fmt.Sscanf(s, "%gx%g", &w, &h); err != nil {
			return DefaultSize
		}
	}
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
func New(a fyne.App, w fyne.Window, file ...string) fyne.CanvasObject {
	u := newUI(a, w, file...)
	return u.content
}

// ui is the window: its workspace and its screens, in the order of
// their tabs.
type ui struct {
	app     fyne.App
	win     fyne.Window
	ws      *workspace
	tabs    *container.AppTabs
	screens []screen
	// content is the tabs in the sizeKeeper that remembers the window's
	// size as it changes.
	content *fyne.Container
	size    *sizeKeeper
	place   *placeKeeper
	// welcome is the welcome panel while it is shown.
	welcome *dialog.CustomDialog
	// help is Help's dialog shown (the shortcuts, About), which Escape
	// closes.
	help *dialog.CustomDialog
	// closed ends the window's work when it closes.
	closed func()
	// The screens by type, for the menu's defaults and the tests.
	data *dataTab
	pop  *populationTab
	run  *runTab
	cmp  *compareTab
	rel  *releaseTab
	exp  *experimentsTab
}

func newUI(a fyne.App, w fyne.Window, file ...string) *ui {
	ctx, cancel := context.WithCancel(context.Background())
	ws := newWorkspace(ctx, a, w)
	u := &ui{app: a, win: w, ws: ws}
	u.size = &sizeKeeper{prefs: a.Preferences(), canvas: func() fyne.Size { return w.Canvas().Size() }}
	u.place = &placeKeeper{prefs: a.Preferences(), win: w}
	u.closed = func() {
		cancel()
		ws.tiles.stop()
		u.size.flush()  // a size not yet written
		u.place.check() // a move since the last reading
	}
	w.SetOnClosed(u.closed)
	w.SetIcon(fyne.NewStaticResource("icon.png", assets.Icon))
	u.data, u.pop, u.run = newDataTab(ws), newPopulationTab(ws), newRunTab(ws)
	u.cmp, u.rel, u.exp = newCompareTab(ws), newReleaseTab(ws), newExperimentsTab(ws)
	// The tabs, in order: adding a screen is one more here.
	u.screens = []screen{u.data, u.pop, u.run, u.cmp, u.rel, u.exp}
	u.tabs = container.NewAppTabs()
	u.content = container.New(u.size, u.tabs)
	for _, sc := range u.screens {
		title, icon := sc.tab()
		u.tabs.Append(container.NewTabItemWithIcon(title, icon, sc.buildUI()))
	}
	ws.show = func(sc screen) { u.tabs.SelectIndex(slices.Index(u.screens, sc)) }
	ws.current = func() screen { return u.screens[max(u.tabs.SelectedIndex(), 0)] }
	u.tabs.OnSelected = func(*container.TabItem) { ws.current().shown() }
	w.SetOnDropped(u.data.onDropped)
	u.addMenuAndShortcuts()
	u.place.keep(ctx)
	if len(file) == 0 {
		u.data.load(defaultSource(), false)
		if !a.Preferences().Bool(prefWelcomed) {
			// The first start: shown once the window has its size.
			jobs.Go(func() { jobs.Do(u.showWelcome) })
		}
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
	// Through the import dialog for a delimited file, shown once the
	// window has its size.
	src := uriSource(storage.NewFileURI(abs))
	jobs.Go(func() { jobs.Do(func() { u.data.openFile(src) }) })
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
	view := make([]command, len(u.screens))
	for i, sc := range u.screens {
		title, _ := sc.tab()
		view[i] = command{label: title, key: fyne.KeyName(strconv.Itoa(i + 1)), action: func() { u.ws.show(sc) }}
	}
	return map[string][]command{
		"File": {
			{label: "Open data…", key: fyne.KeyO, action: u.data.onOpen},
			{label: "Open study…", key: fyne.KeyO, shift: true, action: u.onOpenStudy},
			{label: "Save study…", key: fyne.KeyS, action: u.onSaveStudy},
			{label: "Export PNG…", key: fyne.KeyE, action: u.onExportPNG, separate: true},
			{label: "Export CSV…", key: fyne.KeyE, shift: true, action: u.onExportCSV},
			{label: "Export GIS layer…", key: fyne.KeyG, action: u.onExportLayer},
			{label: "Export report…", key: fyne.KeyR, shift: true, action: u.onExportReport},
		},
		"Population": {
			{label: "Choose a preset", key: fyne.KeyP, action: u.pop.onChoosePreset},
			{label: "Apply the preset", key: fyne.KeyP, shift: true, action: u.pop.onApplyPreset},
		},
		"Run": {
			{label: "Run estimators", key: fyne.KeyR, action: u.onRun},
			{label: "Plan users for an accuracy", key: fyne.KeyL, action: u.onPlan},
			{label: "Cancel", key: fyne.KeyPeriod, action: u.onCancel},
		},
		"View": view,
	}
}

// addMenuAndShortcuts sets the main menu and binds each command's
// shortcut; Escape also cancels.
func (u *ui) addMenuAndShortcuts() {
	cmds := u.commands()
	var menus []*fyne.Menu
	for _, name := range menuOrder {
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
	menus = append(menus, fyne.NewMenu("Help", fyne.NewMenuItem("Welcome", u.showWelcome), fyne.NewMenuItem("Keyboard shortcuts", u.showShortcuts),
		fyne.NewMenuItem("About privmap", u.showAbout)))
	u.win.SetMainMenu(fyne.NewMainMenu(menus...))
	u.win.Canvas().SetOnTypedKey(func(e *fyne.KeyEvent) {
		switch {
		case e.Name == fyne.KeyEscape && u.welcome != nil:
			u.welcome.Hide()
		case e.Name == fyne.KeyEscape && u.help != nil:
			u.help.Hide()
		case e.Name == fyne.KeyEscape:
			u.onCancel()
		}
	})
}

// menuOrder is the order of the menus that hold commands.
var menuOrder = []string{"File", "Population", "Run", "View"}

// shortcutText writes a command's keys as a person presses them: Ctrl
// (⌘ on a Mac), Shift, then the key.
func shortcutText(c command) string {
	mod := "Ctrl+"
	if runtime.GOOS == "darwin" {
		mod = "⌘"
	}
	if c.shift {
		mod += "Shift+"
	}
	key := string(c.key)
	if c.key == fyne.KeyPeriod {
		key = "."
	}
	return mod + key
}

// shortcutRows lists every command's keys and what they do, menu by
// menu, from the table the menus are made of (commands), and Escape.
func (u *ui) shortcutRows() [][2]string {
	cmds := u.commands()
	var rows [][2]string
	for _, menu := range menuOrder {
		for _, c := range cmds[menu] {
			rows = append(rows, [2]string{shortcutText(c), menu + " › " + strings.TrimSuffix(c.label, "…")})
		}
	}
	return append(rows, [2]string{"Escape", "Cancel the job under way, or close the welcome panel or a Help dialog"})
}

// showShortcuts lists the keyboard shortcuts (Help › Keyboard
// shortcuts).
func (u *ui) showShortcuts() {
	grid := container.New(layout.NewFormLayout())
	for _, r := range u.shortcutRows() {
		grid.Add(widget.NewLabelWithStyle(r[0], fyne.TextAlignTrailing, fyne.TextStyle{Monospace: true}))
		grid.Add(widget.NewLabel(r[1]))
	}
	d := dialog.NewCustom("Keyboard shortcuts", "Close", container.NewVScroll(grid), u.win)
	d.Resize(fyne.NewSize(560, min(u.win.Canvas().Size().Height-80, 640)))
	u.showHelp(d)
}

// showAbout shows privmap's build, the data's licences, OpenStreetMap's
// credit and the linked modules' licences (build.About), as privmap
// version prints them.
func (u *ui) showAbout() {
	text := widget.NewLabelWithStyle(build.About()+"\nThe licences' full texts: privmap version -licences, or THIRD_PARTY.txt beside the program in its package.",
		fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	text.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustom("About privmap", "Close", container.NewVScroll(text), u.win)
	d.Resize(importSize(u.win.Canvas().Size()))
	u.showHelp(d)
}

// showHelp shows Help's dialog d, which Escape closes.
func (u *ui) showHelp(d *dialog.CustomDialog) {
	u.help = d
	d.SetOnClosed(func() { u.help = nil })
	d.Show()
}

// onExportPNG exports what the screen shown draws, else the compared
// maps.
func (u *ui) onExportPNG() {
	if e, ok := u.ws.current().(pngExporter); ok {
		e.onExportPNG()
		return
	}
	u.cmp.onExportPNG()
}

// onExportCSV exports what the screen shown holds, else the estimate
// compared.
func (u *ui) onExportCSV() {
	if e, ok := u.ws.current().(csvExporter); ok {
		e.onExportCSV()
		return
	}
	u.cmp.onExportCSV()
}

// onExportLayer exports the maps of the screen shown as a GIS layer,
// else the estimate compared.
func (u *ui) onExportLayer() {
	if e, ok := u.ws.current().(layerExporter); ok {
		e.onExportLayer()
		return
	}
	u.cmp.onExportLayer()
}

// onRun starts the job of the screen shown, else shows the Run screen and
// starts a run.
func (u *ui) onRun() {
	if r, ok := u.ws.current().(runner); ok {
		r.onRun()
		return
	}
	u.ws.show(u.run)
	u.run.onRun()
}

// onPlan shows the Run screen and plans the users (or ε) its Plan asks
// for.
func (u *ui) onPlan() {
	u.ws.show(u.run)
	u.run.plan.onPlan()
}

// onCancel cancels whatever runs on every screen: a run, a release, an
// experiment, loading data, the audits of the population.
func (u *ui) onCancel() {
	for _, sc := range u.screens {
		if c, ok := sc.(canceller); ok {
			c.onCancel()
		}
	}
}
