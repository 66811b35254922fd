package gui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/privmap/privmap/app"
	"github.com/privmap/privmap/core"
)

// TestReleaseScreen previews a geometric-mixture release of the embedded
// data: the screen shows the noise's privacy and accuracy as typed, with
// the geometric mechanism of the same budget; the maps are the true and
// released counts and their difference; the errors are the release's;
// the CSV is what privmap release writes.
func TestReleaseScreen(t *testing.T) {
	_, u := newTestWindow(t)
	r := u.rel
	u.tabs.SelectIndex(tabRelease)
	r.mech.SetSelected(releaseNames[app.PMGeometric])
	r.epsIn.SetText("0.25")
	r.epsOut.SetText("2.5")
	r.brk.SetText("6")
	r.sens.SetText("1")
	spec := app.ReleaseSpec{Mechanism: app.PMGeometric, EpsIn: 0.25, EpsOut: 2.5, Break: 6, Sensitivity: 1}
	sum, err := spec.Summary()
	require.NoError(t, err)
	assert.Equal(t, summaryText(sum), r.summary.Text)
	assert.Contains(t, r.summary.Text, "general privacy budget 0.3409 (PM Table I's reading: 0.5449)")
	assert.Contains(t, r.matching.Text, "The geometric mechanism with the same budget has ε = 0.3409")
	assert.True(t, r.pmForm.Visible())
	assert.False(t, r.stdForm.Visible(), "ε alone is for the standard mechanisms")

	r.seed.SetText("4")
	r.onRelease()
	r.wg.Wait()
	res := r.last
	require.NotNil(t, res)
	truth := u.data.data.grid.Counts
	require.Len(t, res.raw, len(truth))
	for x, c := range truth {
		require.Equal(t, float64(c), r.maps[0].Map.Values[x])
		require.Equal(t, res.released[x], r.maps[1].Map.Values[x])
		require.Equal(t, max(res.raw[x], 0), res.released[x])
	}
	// The same seed draws the same release as privmap release.
	want, err := app.ReleaseCounts(t.Context(), res.counts.Counts, spec, 4, false)
	require.NoError(t, err)
	assert.Equal(t, want, res.raw)
	mae, _, within := core.ReleaseErrors(res.counts.Counts, res.released, 6)
	assert.Contains(t, r.errs.Text, "Mean absolute error "+roundText(mae, 4))
	assert.Contains(t, r.errs.Text, roundText(100*within, 4)+"% of the 384 cells")
	assert.Contains(t, r.errs.Text, "A preview")

	name := filepath.Join(t.TempDir(), "r.csv")
	require.NoError(t, r.writeCSV(name))
	b, err := os.ReadFile(name)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	assert.Equal(t, "cell,probability,count,raw_count,row,col,lat,lon", lines[0])
	assert.Len(t, lines, 385)

	// Hover reads the counts of a cell on all three maps.
	r.maps[2].hover(100)
	assert.Contains(t, r.hover.Text, "cell 100 (row 4, col 4)")
	assert.Contains(t, r.hover.Text, "true "+app.Thousands(truth[100]))
}

// TestReleaseEntries checks the entries: Laplace cannot be drawn for
// publication, a secure draw needs no seed, and bad values are said where
// the summary would be.
func TestReleaseEntries(t *testing.T) {
	_, u := newTestWindow(t)
	r := u.rel
	r.mech.SetSelected(releaseNames[app.Laplace])
	assert.True(t, r.secure.Disabled())
	assert.True(t, r.stdForm.Visible())
	r.eps.SetText("0")
	assert.Contains(t, r.summary.Text, "epsilon must be positive")
	r.eps.SetText("1")
	r.sens.SetText("1.5")
	assert.Contains(t, r.summary.Text, "Sensitivity \"1.5\": want a whole number")
	r.sens.SetText("1")
	r.mech.SetSelected(releaseNames[app.Geometric])
	assert.False(t, r.secure.Disabled())
	r.secure.SetChecked(true)
	assert.True(t, r.seed.Disabled())
	r.onRelease()
	r.wg.Wait()
	require.NotNil(t, r.last)
	assert.True(t, r.last.secure)
	assert.Contains(t, r.errs.Text, "crypto/rand, fit for publication")
}
