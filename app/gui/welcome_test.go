package gui

import (
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/privmap/privmap/geo"
)

// TestWelcome checks the first start: the welcome panel opens by itself
// once (three sentences, the three ways to start, the README's links),
// Escape closes it, it does not open again, and its New York button
// writes the generated sample and loads it on the Data screen.
func TestWelcome(t *testing.T) {
	a := test.NewTempApp(t)
	a.Preferences().SetString(prefBasemap, basemapNone)
	a.Preferences().SetBool(prefRunIntervals, false)
	w := a.NewWindow("privmap")
	u := newUI(a, w)
	w.SetContent(u.content)
	w.Resize(DefaultSize)
	t.Cleanup(w.Close)
	settle(t)
	require.NotNil(t, u.welcome, "no welcome panel on the first start")
	assert.True(t, a.Preferences().Bool(prefWelcomed))
	assert.Equal(t, 3, strings.Count(welcomeText, ". ")+1, "three sentences")
	texts := overlayTexts(w.Canvas().Overlays().Top())
	for _, want := range []string{"Welcome to privmap", "Explore the embedded data", "Make a New York–like sample", "Open your own file…", "2,000 made-up people", "7,000 made-up people"} {
		assert.Contains(t, texts, want)
	}
	for _, want := range []string{"install", "using-the-gui", "command-line", "data-formats"} {
		assert.True(t, hasLink(w.Canvas().Overlays().Top(), readme+want), "no link to the README's %s", want)
	}
	w.Canvas().OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyEscape})
	assert.Nil(t, u.welcome, "Escape left the panel open")
	assert.Nil(t, w.Canvas().Overlays().Top())

	// A second start of the same app: no panel.
	w2 := a.NewWindow("privmap")
	u2 := newUI(a, w2)
	w2.SetContent(u2.content)
	t.Cleanup(w2.Close)
	settle(t)
	assert.Nil(t, u2.welcome, "the panel opened on a later start")

	u.showWelcome() // Help › Welcome
	b := findButton(w.Canvas().Overlays().Top(), "Make a New York–like sample")
	require.NotNil(t, b)
	test.Tap(b)
	settleUntil(t, "the sample loaded", func() bool {
		ds := u.ws.data
		return !u.ws.loading && ds != nil && ds.src.name == nycSampleName
	})
	ds := u.ws.data
	require.NotNil(t, ds.res)
	require.NotNil(t, ds.grid)
	assert.Equal(t, geo.NYCSynth.Users, ds.grid.Users)
	assert.InDelta(t, float64(geo.NYCSynth.Users)*geo.NYCSynth.MeanCheckins, ds.grid.Records, 0.07*140000)
	assert.Equal(t, filepath.Join(a.Storage().RootURI().Path(), nycSampleName), ds.src.path)
	assert.Nil(t, u.welcome)
}

// hasLink reports whether a hyperlink under o leads to address.
func hasLink(o fyne.CanvasObject, address string) bool {
	return findObject(o, func(c fyne.CanvasObject) bool {
		l, ok := c.(*widget.Hyperlink)
		return ok && l.URL != nil && l.URL.String() == address
	}) != nil
}
