package gui

import (
	"fmt"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/privmap/privmap/app/basemap"
)

// basemapPanel chooses the basemap under every map of the window — none,
// OpenStreetMap, an MBTiles file or a tile server — with GeoJSON outlines
// over it and the heat maps' opacity, and shows the basemap's notes (a
// tile missing, no network). The Data screen shows it; the choice is the
// workspace's (ws.tiles) and every screen's.
type basemapPanel struct {
	ws      *workspace
	base    *widget.Select
	opacity *widget.Slider
	// baseNote shows the basemap's note, hidden while there is none,
	// and Retry beside it when tiles could not be had.
	baseNote *fyne.Container
	noteText *widget.Label
	retry    *widget.Button
	// relayout lays out again the container that holds baseNote, so that
	// a note shown or hidden takes or gives back its room at once.
	relayout func()
}

func newBasemapPanel(ws *workspace) *basemapPanel {
	b := &basemapPanel{ws: ws}
	b.base = widget.NewSelect(nil, nil)
	b.setBaseOptions()
	b.base.OnChanged = b.onBase
	b.opacity = widget.NewSlider(0.1, 1)
	b.opacity.Step = 0.05
	b.opacity.SetValue(ws.tiles.opacity())
	b.opacity.OnChangeEnded = b.onOpacity
	b.noteText = widget.NewLabel("")
	b.noteText.Wrapping = fyne.TextWrapWord
	b.noteText.Importance = widget.WarningImportance
	b.retry = &widget.Button{Text: "Retry", Icon: theme.ViewRefreshIcon(), OnTapped: ws.tiles.retry}
	b.retry.Hide()
	b.baseNote = container.NewBorder(nil, nil, nil, container.NewCenter(b.retry), b.noteText)
	b.baseNote.Hide()
	ws.tiles.onNote = func(s string, retry bool) {
		b.noteText.SetText(s)
		b.baseNote.Hidden = s == ""
		b.retry.Hidden = !retry
		b.baseNote.Refresh()
		if b.relayout != nil {
			b.relayout()
		}
	}
	return b
}

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
func (b *basemapPanel) setBaseOptions() {
	opts := []string{baseOSM, baseNone, baseMBTiles, baseServer, baseOutlines}
	if b.ws.app.Preferences().String(prefOverlay) != "" {
		opts = append(opts, baseNoLines)
	}
	sel := baseOSM
	switch src := b.ws.tiles.source(); src {
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
	b.base.Options = opts
	b.base.Selected = sel
	b.base.Refresh()
}

// onBase changes the basemap.
func (b *basemapPanel) onBase(sel string) {
	p := b.ws.app.Preferences()
	switch sel {
	case baseOSM:
		p.SetString(prefBasemap, basemap.OSMTemplate)
	case baseNone:
		p.SetString(prefBasemap, basemapNone)
	case baseMBTiles:
		b.chooseLocal([]string{".mbtiles"}, "an MBTiles file", "The basemap stays as it was.", func(path string) {
			p.SetString(prefBasemap, path)
			b.setBaseOptions()
			b.resetBasemap()
		})
		return
	case baseServer:
		b.chooseServer()
		return
	case baseOutlines:
		b.chooseLocal([]string{".geojson", ".json"}, "a GeoJSON file", "The outlines stay as they were.", b.setOverlay)
		return
	case baseNoLines:
		b.setOverlay("")
		return
	default:
		return // the current custom source
	}
	b.resetBasemap()
}

// chooseLocal asks for a local file of the kinds exts and gives its path
// to use; the basemap choices show the current one meanwhile.
func (b *basemapPanel) chooseLocal(exts []string, kind, keep string, use func(path string)) {
	showFileOpen(b.ws.win, b.ws.app, exts, func(rc fyne.URIReadCloser) {
		rc.Close()
		if rc.URI().Scheme() != "file" {
			showError(b.ws.win, fmt.Errorf("%s: %s must be a local file", rc.URI().Name(), kind), keep)
			return
		}
		use(rc.URI().Path())
	})
	b.setBaseOptions() // until a file is chosen
}

// chooseServer asks for an XYZ tile server's URL template and the credit
// its tiles' licence asks for, and draws the maps over its tiles.
func (b *basemapPanel) chooseServer() {
	p := b.ws.app.Preferences()
	url := widget.NewEntry()
	url.SetPlaceHolder(basemap.OSMTemplate)
	if src := b.ws.tiles.source(); strings.Contains(src, "://") && src != basemap.OSMTemplate {
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
		b.setBaseOptions()
		b.resetBasemap()
	}, b.ws.win)
	dlg.Resize(fyne.NewSize(640, dlg.MinSize().Height))
	dlg.Show()
	b.setBaseOptions() // until a server is chosen
	b.ws.win.Canvas().Focus(url)
}

// setOverlay draws the outlines of the GeoJSON file name over the maps
// ("" for none) and remembers it.
func (b *basemapPanel) setOverlay(name string) {
	b.ws.tiles.loadOverlay(name, func(err error) {
		if err != nil {
			showError(b.ws.win, err, "The outlines stay as they were.") // err names the file
			b.setBaseOptions()
			return
		}
		b.ws.app.Preferences().SetString(prefOverlay, name)
		b.setBaseOptions()
	})
}

// resetBasemap drops the layer fetched and draws the maps again, which
// asks the new source for tiles.
func (b *basemapPanel) resetBasemap() {
	b.ws.tiles.reset()
	b.ws.tiles.redraw()
}

// onOpacity sets the heat maps' opacity over the basemap.
func (b *basemapPanel) onOpacity(v float64) {
	b.ws.app.Preferences().SetFloat(prefOpacity, v)
	b.ws.tiles.redraw()
}
