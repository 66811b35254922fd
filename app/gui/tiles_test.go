package gui

import (
	"os"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/privmap/privmap/app/basemap/basemaptest"
)

// TestBasemapInWindow opens the window with a local tile server as its
// basemap: the data map is drawn at once without one, gets it when the
// tiles arrive, takes a new opacity, and loses it when None is chosen.
func TestBasemapInWindow(t *testing.T) {
	srv := basemaptest.NewServer()
	defer srv.Close()
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	a := test.NewTempApp(t)
	a.Preferences().SetString(prefBasemap, srv.Template())
	_, u := openTestWindow(t, a)
	settle(t)
	require.NotNil(t, u.data.heat.Map)
	assert.NotNil(t, u.data.heat.Map.Basemap, "the data map has its basemap once the tiles arrived")
	assert.Equal(t, "", u.ws.tiles.Note())
	assert.Positive(t, srv.Requests.Load())
	assert.LessOrEqual(t, srv.Requests.Load(), int64(64))

	u.data.opacity.SetValue(0.4)
	u.data.onOpacity(0.4)
	assert.InDelta(t, 0.4, u.data.heat.Map.Opacity, 1e-12)

	u.data.base.SetSelected(baseNone)
	assert.Nil(t, u.data.heat.Map.Basemap, "None draws no basemap")
	assert.Equal(t, basemapNone, a.Preferences().String(prefBasemap))
}

// TestBasemapOffline checks that a basemap that cannot be reached
// leaves the maps drawn, with a note.
func TestBasemapOffline(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	a := test.NewTempApp(t)
	a.Preferences().SetString(prefBasemap, "http://127.0.0.1:1/{z}/{x}/{y}.png")
	_, u := openTestWindow(t, a)
	settle(t)
	require.NotNil(t, u.data.heat.Map)
	assert.Nil(t, u.data.heat.Map.Basemap)
	assert.Equal(t, "Map tiles unavailable (offline) — maps are drawn without a basemap", u.ws.tiles.Note())
	assert.True(t, u.data.baseNote.Visible())
	assert.Equal(t, u.ws.tiles.Note(), u.data.noteText.Text)
	assert.NotContains(t, u.data.noteText.Text, "127.0.0.1", "an address in the note")
	require.True(t, u.data.retry.Visible(), "no Retry")
	// Retry asks again, and says the same while the server stays away.
	test.Tap(u.data.retry)
	settle(t)
	assert.Nil(t, u.data.heat.Map.Basemap)
	assert.Equal(t, "Map tiles unavailable (offline) — maps are drawn without a basemap", u.data.noteText.Text)
	assert.True(t, u.data.retry.Visible())
	// The server back (here, another one named): Retry draws its tiles.
	srv := basemaptest.NewServer()
	defer srv.Close()
	a.Preferences().SetString(prefBasemap, srv.Template())
	test.Tap(u.data.retry)
	settle(t)
	assert.NotNil(t, u.data.heat.Map.Basemap, "no basemap after Retry")
	assert.False(t, u.data.baseNote.Visible(), "the note stayed")
}

// TestOutlinesInWindow draws a GeoJSON file's outlines over the maps,
// remembers the file, and clears them.
func TestOutlinesInWindow(t *testing.T) {
	_, u := newTestWindow(t)
	name := filepath.Join(t.TempDir(), "d.geojson")
	os.WriteFile(name, []byte(`{"type": "Polygon", "coordinates": [[[-122.5, 37.75], [-122.4, 37.75], [-122.4, 37.78], [-122.5, 37.75]]]}`), 0o644)
	u.data.setOverlay(name)
	settle(t)
	require.NotNil(t, u.data.heat.Map)
	assert.Len(t, u.data.heat.Map.Outlines, 1)
	assert.Equal(t, name, u.app.Preferences().String(prefOverlay))
	assert.Contains(t, u.data.base.Options, baseNoLines)
	u.data.base.SetSelected(baseNoLines)
	assert.Empty(t, u.data.heat.Map.Outlines)
	assert.Equal(t, "", u.app.Preferences().String(prefOverlay))
}

// TestFirstLoadFails checks that a window opened on a file it cannot
// read does not speak of previous data that were never loaded.
func TestFirstLoadFails(t *testing.T) {
	name := filepath.Join(t.TempDir(), "bad.txt")
	os.WriteFile(name, []byte("u\t2010-08-19T20:51:29Z\t95\t-122.42\t1\n"), 0o644)
	_, u := openTestWindow(t, test.NewTempApp(t), name)
	settle(t)
	assert.Contains(t, u.data.status.Text, "Could not load bad.txt")
	assert.NotContains(t, u.data.status.Text, "previous data")
}

// TestTileServerChoice names a tile server (a local one) and its credit
// in the Tile server… form: the maps are drawn over its tiles with the
// credit, a template without {x} is refused, and a server without a
// credit is credited with its host.
func TestTileServerChoice(t *testing.T) {
	srv := basemaptest.NewServer()
	defer srv.Close()
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	w, u := newTestWindow(t)
	u.data.base.SetSelected(baseServer)
	form := w.Canvas().Overlays().Top()
	require.NotNil(t, form)
	url, ok := w.Canvas().Focused().(*widget.Entry)
	require.True(t, ok, "the URL is focused")
	url.SetText("http://127.0.0.1/{z}/{y}.png")
	assert.Error(t, url.Validate(), "no {x}")
	url.SetText(srv.Template())
	assert.NoError(t, url.Validate())
	test.FocusNext(w.Canvas())
	w.Canvas().Focused().(*widget.Entry).SetText("© local test tiles")
	for _, b := range test.LaidOutObjects(form) {
		if btn, ok := b.(*widget.Button); ok && btn.Text == "Use" {
			test.Tap(btn)
		}
	}
	assert.Equal(t, srv.Template(), u.app.Preferences().String(prefBasemap))
	settle(t)
	require.NotNil(t, u.data.heat.Map)
	require.NotNil(t, u.data.heat.Map.Basemap, "drawn over the server's tiles")
	assert.Equal(t, "© local test tiles", u.data.heat.Map.Basemap.Attribution())
	assert.Contains(t, u.data.base.Options, srv.Template(), "the server is a choice of its own")
}
