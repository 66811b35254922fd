// Package app is privmap's window: tabs that load and grid check-in data,
// or tabulate census files over chosen attributes, and draw them as maps
// or attribute-pair tables. It receives the fyne.App and fyne.Window from
// main, so every screen can be tested headless with fyne.io/fyne/v2/test.
package app

import (
	"context"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"

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
)

// New builds privmap's content for w, loads the embedded default data and
// returns the tabs. Work still running is cancelled when w closes.
func New(a fyne.App, w fyne.Window) *container.AppTabs {
	tabs, _ := build(a, w)
	return tabs
}

// build is New, also returning the data tab for tests.
func build(a fyne.App, w fyne.Window) (*container.AppTabs, *dataTab) {
	tabs, d, _ := buildAll(a, w)
	return tabs, d
}

// buildAll is New, also returning the screens for tests.
func buildAll(a fyne.App, w fyne.Window) (*container.AppTabs, *dataTab, *populationTab) {
	ctx, cancel := context.WithCancel(context.Background())
	w.SetOnClosed(cancel)
	w.SetIcon(fyne.NewStaticResource("icon.png", assets.Icon))
	d := newDataTab(ctx, a, w)
	p := newPopulationTab(ctx)
	d.onShown = func(ds *dataset) {
		p.setAlphabet(ds.studyAlphabet())
		if p.rows == nil {
			// A first population to start from: FW Table 6's geometric
			// mechanisms suit both the map and ordinal alphabets.
			if ms, err := core.PresetMechanisms("fw-t6", p.alphabet); err == nil {
				p.setSpecs(ms)
			}
		}
	}
	w.SetOnDropped(d.onDropped)
	tabs := container.NewAppTabs(
		container.NewTabItemWithIcon("Data", theme.FileIcon(), d.buildUI()),
		container.NewTabItemWithIcon("Population", theme.AccountIcon(), p.buildUI()),
	)
	d.load(bytesSource(assets.DefaultName, assets.DefaultCheckins), false)
	return tabs, d, p
}
