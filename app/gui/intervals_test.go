package gui

import (
	"github.com/paulmach/orb/geojson"

	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/privmap/privmap/core"
)

// TestIntervals runs GIBU with the Run screen's Intervals ticked: the
// Compare screen shows the estimate at once and its intervals when they
// end — GIBU's by the windowed profile likelihood, [IBU]_M's by the
// bootstrap;
// the uncertainty map beside the three (each cell's half-width), the
// hover's "(lo–hi)", the sentence — the band toggle shows only the cells whose band excludes
// 0, and the CSV export carries the columns.
func TestIntervals(t *testing.T) {
	_, u := newTestWindow(t)
	settle(t)
	u.run.intervals.SetChecked(true)
	u.run.checks[core.MethodGIBU].SetChecked(true)
	u.run.checks[core.MethodIBUM].SetChecked(true)
	u.run.onRun()
	settle(t)
	m := u.cmp.current()
	require.NotNil(t, m)
	require.Equal(t, core.MethodGIBU, m.Method)
	iv := u.cmp.iv.of(m.Method)
	require.NotNil(t, iv, u.cmp.iv.status.Text)
	// GIBU's on 384 cells of planar users: the windowed profile
	// likelihood (interval.CI.MethodFor), which bounds no error figure;
	// [IBU]_M's: the bootstrap.
	assert.Equal(t, core.IntervalLocalProfile, iv.Method)
	assert.Contains(t, u.cmp.iv.status.Text, "With 95% confidence (the profile likelihood in a window: the values each cell can take")
	assert.NotContains(t, u.cmp.metrics["TV"].Text, "at most")
	ibu := u.cmp.iv.of(core.MethodIBUM)
	require.NotNil(t, ibu, u.cmp.iv.status.Text)
	assert.Equal(t, core.IntervalBootstrap, ibu.Method)
	assert.Equal(t, core.DefaultReplicates, ibu.Replicates)
	assert.Equal(t, " · at most 0.123 km (95%, bootstrap)", bound(0.1234, "km", 0.95))

	unc := u.cmp.extra
	require.NotNil(t, unc.Map)
	assert.True(t, unc.Visible())
	assert.Len(t, u.cmp.mapRow.Objects, 4)
	for x := range iv.Lo {
		require.InDelta(t, (iv.Hi[x]-iv.Lo[x])/2, unc.Map.Values[x], 1e-15)
	}
	// The legend names the method and what it held in the coverage
	// experiment on a population like this one (planar).
	assert.Equal(t, "95% windowed profile\nheld 98% with people", unc.Map.Title)

	u.cmp.maps[1].hover(100)
	assert.Contains(t, u.cmp.hover.Text, "GIBU")
	assert.Contains(t, u.cmp.hover.Text, " (")

	// The band toggle: the estimate on the cells whose band excludes 0,
	// nothing elsewhere. With 2,000 users no cell's band does; one made
	// to shows alone.
	u.cmp.iv.surely.SetChecked(true)
	for x, v := range u.cmp.extra.Map.Values {
		require.Equal(t, iv.BandLo[x] > 0, !math.IsNaN(v), "cell %d", x)
	}
	iv.BandLo[5], iv.BandLo[7] = 1e-4, 2e-4
	u.cmp.refresh()
	for x, v := range u.cmp.extra.Map.Values {
		if iv.BandLo[x] > 0 {
			require.Equal(t, m.Estimate.Theta[x], v, "cell %d", x)
		} else {
			require.True(t, math.IsNaN(v), "cell %d: band from 0, value %v", x, v)
		}
	}
	assert.Contains(t, u.cmp.extra.Map.Title, "Surely not empty")
	u.cmp.iv.surely.SetChecked(false)

	name := filepath.Join(t.TempDir(), "est.csv")
	require.NoError(t, u.cmp.writeCSV(name, m))
	b, err := os.ReadFile(name)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(b), "cell,probability,row,col,lat,lon,lo,hi,band_lo,band_hi\n"))
	back, biv, err := core.ReadEstimateOn(bytes.NewReader(b), u.cmp.res.Study.Alphabet)
	require.NoError(t, err)
	assert.Equal(t, m.Estimate.Theta, back)
	assert.Equal(t, iv.Lo, biv.Lo)

	// The GIS layer: a polygon a cell with the estimate, its intervals
	// and, asked, the truth.
	gj := filepath.Join(t.TempDir(), "est.geojson")
	require.NoError(t, writeLayer(gj, u.cmp.res.Study.Alphabet, u.cmp.layerMaps(m, true), ""))
	b, err = os.ReadFile(gj)
	require.NoError(t, err)
	fc, err := geojson.UnmarshalFeatureCollection(b)
	require.NoError(t, err)
	require.Len(t, fc.Features, len(m.Estimate.Theta))
	for x, f := range fc.Features {
		require.Equal(t, m.Estimate.Theta[x], f.Properties.MustFloat64("probability"), "cell %d", x)
		require.Equal(t, iv.BandHi[x], f.Properties.MustFloat64("band_hi"), "cell %d", x)
		require.Equal(t, u.cmp.res.Users.Truth[x], f.Properties.MustFloat64("true_probability"), "cell %d", x)
	}
	assert.ErrorIs(t, writeLayer(filepath.Join(t.TempDir(), "est.kml"), u.cmp.res.Study.Alphabet, u.cmp.layerMaps(m, false), ""), errLayerKind)

	png := filepath.Join(t.TempDir(), "u.png")
	require.NoError(t, u.cmp.writePNG(png, m, viewUnc, 600, 400))
	require.NoError(t, u.cmp.writePNG(png, m, viewSide, 1600, 500))
}

// TestIntervalLegend checks the uncertainty map's title: the method in
// words, and the measured coverage on a line of its own.
func TestIntervalLegend(t *testing.T) {
	for _, tc := range []struct {
		method core.IntervalMethod
		held   string
		want   string
	}{
		{core.IntervalLocalProfile, "held 95%", "windowed profile\nheld 95% with people"},
		{core.IntervalProfile, "held 99%", "profile interval\nheld 99% with people"},
		{core.IntervalBootstrap, "", "bootstrap interval"},
	} {
		if got := intervalLegend(tc.method, tc.held); got != tc.want {
			t.Errorf("%s, %q: %q, want %q", tc.method, tc.held, got, tc.want)
		}
	}
}
