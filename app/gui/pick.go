package gui

import (
	"fmt"
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/privmap/privmap/app/human"
	"github.com/privmap/privmap/core"
)

// picker lets the user pick a mechanism's sensitive cells by clicking
// them on the data map: a banner over the map names the mechanism and
// offers Clear, Import… and Done; the cells picked are outlined.
type picker struct {
	d      *dataTab
	row    *pickTarget // being picked, or nil
	label  *widget.Label
	banner *fyne.Container
	// onDone returns to the screen picking started from (Population).
	onDone func()
}

// A pickTarget is what the picker needs of the mechanism whose sensitive
// cells it picks: the entry that holds them, the mechanism's name, and
// whether it is still in the population.
type pickTarget struct {
	cells *widget.Entry
	name  func() string
	alive func() bool
}

func newPicker(d *dataTab) *picker {
	k := &picker{d: d, label: widget.NewLabel("")}
	k.label.Wrapping = fyne.TextWrapWord
	clearBtn := &widget.Button{Text: "Clear", Icon: theme.ContentClearIcon(), OnTapped: func() { k.set(nil) }}
	imp := &widget.Button{Text: "Import…", Icon: theme.FolderOpenIcon(), OnTapped: k.onImport}
	done := &widget.Button{Text: "Done", Icon: theme.ConfirmIcon(), Importance: widget.HighImportance, OnTapped: k.done}
	k.banner = container.NewBorder(nil, nil, nil, container.NewHBox(clearBtn, imp, done), k.label)
	k.banner.Hide()
	return k
}

// start picks the sensitive cells of r on the map.
func (k *picker) start(r *pickTarget) {
	ds := k.d.ws.data
	if ds == nil || ds.isCensus() {
		dialog.ShowInformation("Sensitive categories",
			"Cells are picked on a map of check-ins. For census categories, type their numbers in the row (e.g. 5, 17, 20-25) or import a list.", k.d.win)
		return
	}
	k.row = r
	k.banner.Show()
	k.show()
}

// done ends picking and returns to the Population screen.
func (k *picker) done() {
	k.stop()
	if k.onDone != nil {
		k.onDone()
	}
}

// stop ends picking.
func (k *picker) stop() {
	k.row = nil
	k.banner.Hide()
	k.d.heat.SetSelected(nil)
}

// cells returns the cells of the row being picked; an entry that does not
// parse counts as none.
func (k *picker) cells() []int {
	xs, err := core.ParseSymbols(k.row.cells.Text, k.d.ws.data.studyAlphabet().Len())
	if err != nil {
		return nil
	}
	slices.Sort(xs)
	return slices.Compact(xs)
}

// set makes cells the row's sensitive cells.
func (k *picker) set(cells []int) {
	if k.row == nil {
		return
	}
	slices.Sort(cells)
	k.row.cells.SetText(core.FormatSymbols(slices.Compact(cells)))
	k.show()
}

// show outlines the cells and describes them.
func (k *picker) show() {
	cells := k.cells()
	k.d.heat.SetSelected(cells)
	k.label.SetText(fmt.Sprintf("Picking the sensitive cells of %s: click cells to add or remove them (%s).",
		k.row.name(), human.Plural(len(cells), "cell", "cells")))
}

// tapped toggles a cell; it reports whether picking took the tap.
func (k *picker) tapped(cell int) bool {
	if k.row != nil && !k.row.alive() {
		k.stop() // the row was removed
	}
	if k.row == nil || cell < 0 {
		return k.row != nil
	}
	cells := k.cells()
	if i, found := slices.BinarySearch(cells, cell); found {
		cells = slices.Delete(cells, i, i+1)
	} else {
		cells = slices.Insert(cells, i, cell)
	}
	k.set(cells)
	return true
}

// onImport reads a list of cells from a file.
func (k *picker) onImport() {
	showFileOpen(k.d.win, k.d.app, []string{".txt", ".csv"}, func(rc fyne.URIReadCloser) {
		defer rc.Close()
		cells, err := core.ReadSymbols(rc, k.d.ws.data.studyAlphabet().Len())
		if err != nil {
			showError(k.d.win, fmt.Errorf("%s: %w", rc.URI().Name(), err), "The cells picked so far stay; correct the file and import it again.")
			return
		}
		k.set(cells)
	})
}
