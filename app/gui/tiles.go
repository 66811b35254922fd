package gui

import (
	"context"
	"io"
	"os"
	"sync"

	"fyne.io/fyne/v2"
	"github.com/paulmach/orb"

	"github.com/privmap/privmap/app/basemap"
	"github.com/privmap/privmap/app/build"
	"github.com/privmap/privmap/app/mapplot"
	"github.com/privmap/privmap/geo"
)

// Preferences of the basemap: its source (an XYZ URL template, an
// MBTiles path, or basemapNone) and the heat maps' opacity over it.
const (
	prefBasemap = "basemap.source"
	prefOpacity = "basemap.opacity"
	prefOverlay = "basemap.overlay"
	// prefCredit is the credit of a tile server the user named, shown on
	// the maps and their exports ("" for the server's host).
	prefCredit  = "basemap.credit"
	basemapNone = "none"
)

// basemapEnv overrides the basemap's source preference, as for a test
// run that must not reach the network (PRIVMAP_BASEMAP=none).
const basemapEnv = "PRIVMAP_BASEMAP"

// layerW and layerH are the size a basemap layer is fetched for: tiles about
// one to one with the pixels of a map filling a large window.
const layerW, layerH = 1200, 800

// tiles keeps the window's basemap: the source the preferences name and
// the layer of tiles fetched, in the background, for the box of the maps
// shown. No job waits on it: maps are drawn without a basemap until the
// layer arrives, and then redrawn (onReady).
type tiles struct {
	app fyne.App
	// onReady redraws the maps once a layer has arrived; onNote shows
	// why there is none when a fetch fails ("" once one arrives), with
	// a Retry when retry is set.
	onReady []func()
	onNote  func(note string, retry bool)

	mu      sync.Mutex
	bound   orb.Bound // of the layer, or of the fetch under way
	layer   *basemap.Layer
	cancel  context.CancelFunc
	note    string // why there is no basemap, if there is none
	fetches sync.WaitGroup
	// outlines are the GeoJSON overlay's lines, drawn over every map.
	outlines []orb.LineString
}

func newTiles(a fyne.App) *tiles { return &tiles{app: a} }

// source returns the basemap's source setting: the environment's, else
// the preference's, else OpenStreetMap's standard tiles.
func (t *tiles) source() string {
	if s := os.Getenv(basemapEnv); s != "" {
		return s
	}
	return t.app.Preferences().StringWithFallback(prefBasemap, basemap.OSMTemplate)
}

// opacity returns the heat maps' opacity over the basemap.
func (t *tiles) opacity() float64 {
	return t.app.Preferences().FloatWithFallback(prefOpacity, mapplot.DefaultOpacity)
}

// under puts the layer under m when it covers m's box, at the chosen
// opacity, and asks for one when it does not.
func (t *tiles) under(m *mapplot.Map) {
	if m == nil || m.ColLabels != nil || m.RowLabels != nil || m.Bound.IsEmpty() {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	m.Outlines = t.outlines
	if t.layer != nil && t.bound == m.Bound {
		m.Basemap, m.Opacity = t.layer, t.opacity()
		return
	}
	t.fetchLocked(m.Bound)
}

// fetchLocked starts fetching the layer of b unless it is under way.
func (t *tiles) fetchLocked(b orb.Bound) {
	if t.cancel != nil && t.bound == b {
		return
	}
	if t.cancel != nil {
		t.cancel()
	}
	t.bound, t.layer, t.note = b, nil, ""
	name := t.source()
	if name == "" || name == basemapNone {
		t.cancel = func() {}
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.cancel = cancel
	t.fetches.Add(1)
	jobs.Go(func() {
		defer t.fetches.Done()
		l, err := t.fetch(ctx, name, b)
		jobs.Do(func() {
			t.mu.Lock()
			if ctx.Err() != nil || t.bound != b {
				t.mu.Unlock()
				return
			}
			t.layer = l
			if err != nil {
				// One readable line: the reason in a word, never the
				// machine's DNS server or a tile's numbers.
				t.note = "Map tiles unavailable (" + basemap.Reason(err) + ") — maps are drawn without a basemap"
			}
			note := t.note
			t.mu.Unlock()
			if t.onNote != nil {
				t.onNote(note, err != nil)
			}
			if l != nil {
				t.redraw()
			}
		})
	})
}

// fetch opens the source and fetches its tiles over b.
func (t *tiles) fetch(ctx context.Context, name string, b orb.Bound) (*basemap.Layer, error) {
	credit := ""
	if name != basemap.OSMTemplate {
		credit = t.app.Preferences().String(prefCredit)
	}
	src, err := basemap.Open(name, basemap.Options{CacheDir: basemap.DefaultCacheDir(), UserAgent: build.UserAgent, Attribution: credit})
	if err != nil {
		return nil, err
	}
	if c, ok := src.(io.Closer); ok {
		defer c.Close()
	}
	return basemap.Fetch(ctx, src, b, layerW, layerH)
}

// loadOverlay reads the GeoJSON file name in the background and, once
// read, draws its outlines over the maps; "" clears them. done gets the
// error, on the UI goroutine.
func (t *tiles) loadOverlay(name string, done func(error)) {
	if name == "" {
		t.mu.Lock()
		t.outlines = nil
		t.mu.Unlock()
		t.redraw()
		done(nil)
		return
	}
	t.fetches.Add(1)
	jobs.Go(func() {
		defer t.fetches.Done()
		ls, err := geo.ReadOutlinesFile(context.Background(), name) // a few seconds at most: MaxOutlineBytes
		jobs.Do(func() {
			if err == nil {
				t.mu.Lock()
				t.outlines = ls
				t.mu.Unlock()
				t.redraw()
			}
			done(err)
		})
	})
}

// redraw draws the maps again.
func (t *tiles) redraw() {
	for _, f := range t.onReady {
		f()
	}
}

// reset drops the layer, cancelling a fetch under way, so that the next
// map asks the source anew.
func (t *tiles) reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cancel != nil {
		t.cancel()
	}
	t.cancel, t.layer, t.note, t.bound = nil, nil, "", orb.Bound{}
}

// retry asks the source again for the maps shown.
func (t *tiles) retry() {
	t.reset()
	if t.onNote != nil {
		t.onNote("", false)
	}
	t.redraw()
}

// stop cancels a fetch under way and waits for it.
func (t *tiles) stop() {
	t.mu.Lock()
	if t.cancel != nil {
		t.cancel()
	}
	t.mu.Unlock()
	t.fetches.Wait()
}

// Note says why the maps have no basemap, or "".
func (t *tiles) Note() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.note
}
