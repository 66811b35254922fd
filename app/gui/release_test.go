package gui

import (
	"github.com/paulmach/orb/geojson"

	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"

	"github.com/privmap/privmap/app/guarantee"
	"github.com/privmap/privmap/app/human"
	"github.com/privmap/privmap/app/ledger"
	"github.com/privmap/privmap/app/mapplot"
	"github.com/privmap/privmap/app/pipeline"
	"github.com/privmap/privmap/app/release"
	"github.com/privmap/privmap/app/studyfile"
)

// TestReleaseScreen previews a geometric-mixture release of the embedded
// data: the screen shows the noise's privacy and accuracy as typed, with
// the geometric mechanism of the same budget; the maps are the true and
// released counts and their difference; the errors are the release's;
// the CSV is what privmap release writes.
func TestReleaseScreen(t *testing.T) {
	_, u := newTestWindow(t)
	r := u.rel
	u.ws.show(u.rel)
	r.mech.SetSelected(releaseNames[release.PMGeometric])
	r.epsIn.SetText("0.25")
	r.epsOut.SetText("2.5")
	r.brk.SetText("6")
	r.sens.SetText("1")
	spec := release.Spec{Mechanism: release.PMGeometric, EpsIn: 0.25, EpsOut: 2.5, Break: 6, Sensitivity: 1}
	sum, err := spec.Summary()
	require.NoError(t, err)
	assert.Equal(t, summaryText(sum)+"\n"+release.Reading(sum, guarantee.Contribution{Sensitivity: 1, Known: true}), r.summary.Text)
	assert.Contains(t, r.summary.Text, "general privacy budget 0.3409 (PM Table I's reading: 0.5449)")
	assert.Contains(t, r.matching.Text, "The geometric mechanism with the same budget has ε = 0.3409")
	// The same budget is not the same guarantee: both worst cases said.
	assert.Contains(t, r.matching.Text, "But its worst case is ε 2.5 against the geometric mechanism's 0.340907: a weaker guarantee.")
	assert.True(t, r.pmForm.Visible())
	assert.False(t, r.stdForm.Visible(), "ε alone is for the standard mechanisms")
	// Before any release: the summary shows beside the form, the maps'
	// place holds the placeholder, and the noise's PMF is drawn, the
	// mixture's and the same-budget mechanism's.
	assert.True(t, r.summary.Visible() && r.placeholder.Visible())
	assert.False(t, r.top.Visible(), "maps before a release")
	r.pmf.Resize(fyne.NewSize(400, 260))
	img := r.pmf.draw(400, 260)
	colours := map[color.RGBA]bool{}
	for y := range 260 {
		for x := range 400 {
			colours[color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)] = true
		}
	}
	for _, c := range mapplot.Palette[:2] {
		assert.True(t, colours[color.RGBAModel.Convert(c).(color.RGBA)], "curve colour %v", c)
	}
	curves, err := noiseCurves(spec, release.Spec{Mechanism: release.Geometric, EpsIn: 0.3409, EpsOut: 0.3409, Sensitivity: 1}, true)
	require.NoError(t, err)
	n, _ := spec.Noise()
	ks := curves[0].K
	assert.LessOrEqual(t, len(ks), noisePoints)
	assert.Equal(t, 0, ks[len(ks)/2], "the curve is centred on 0")
	assert.InDelta(t, n.PMF(0), curves[0].P[len(ks)/2], 1e-15)
	assert.GreaterOrEqual(t, ks[len(ks)-1], release.Span(n, 0.999))
	r.epsIn.SetText("x")
	assert.Nil(t, r.pmf.make, "no PMF of a bad ε")
	r.epsIn.SetText("0.25")

	r.seed.SetText("4")
	r.onRelease()
	settle(t)
	assert.True(t, r.top.Visible() && !r.placeholder.Visible(), "the maps in the placeholder's place")
	res := r.last
	require.NotNil(t, res)
	truth := u.ws.data.grid.Counts
	require.Len(t, res.raw, len(truth))
	for x, c := range truth {
		require.Equal(t, float64(c), r.maps[0].Map.Values[x])
		require.Equal(t, res.released[x], r.maps[1].Map.Values[x])
		require.Equal(t, max(res.raw[x], 0), res.released[x])
	}
	// The same seed draws the same release as privmap release.
	want, err := release.Counts(t.Context(), res.counts.Counts, spec, 4, false)
	require.NoError(t, err)
	assert.Equal(t, want, res.raw)
	mae, _, within := release.Errors(res.counts.Counts, res.released, 6)
	assert.Contains(t, r.errs.Text, "Mean absolute error "+roundText(mae, 4))
	assert.Contains(t, r.errs.Text, roundText(100*within, 4)+"% of the 384 cells")
	assert.Contains(t, r.errs.Text, "A preview")

	name := filepath.Join(t.TempDir(), "r.csv")
	require.NoError(t, r.writeCSV(name))
	b, err := os.ReadFile(name)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	assert.Equal(t, "cell,probability,count,raw_count,row,col,lat,lon,lo,hi,band_lo,band_hi", lines[0])
	assert.Len(t, lines, 385)
	// The GIS layer holds the release's columns and, asked, the truth.
	lm, err := r.layerMaps(true)
	require.NoError(t, err)
	gj := filepath.Join(t.TempDir(), "r.geojson")
	require.NoError(t, writeLayer(gj, u.ws.data.personStudy().Alphabet, lm, ""))
	b, err = os.ReadFile(gj)
	require.NoError(t, err)
	fc, err := geojson.UnmarshalFeatureCollection(b)
	require.NoError(t, err)
	require.Len(t, fc.Features, len(truth))
	for x, f := range fc.Features {
		require.Equal(t, res.released[x], f.Properties.MustFloat64("released"), "cell %d", x)
		require.Equal(t, res.raw[x], f.Properties.MustFloat64("released_raw"), "cell %d", x)
		require.Equal(t, float64(truth[x]), f.Properties.MustFloat64("count"), "cell %d", x)
	}

	// Hover reads the counts of a cell on all three maps, and the true
	// count's interval.
	iv, err := spec.Interval(384, 0.95)
	require.NoError(t, err)
	bd := iv.Bounds(res.raw, nil, 0)
	r.maps[2].hover(100)
	assert.Contains(t, r.hover.Text, "cell 100 (row 4, col 4)")
	assert.Contains(t, r.hover.Text, "true "+human.Thousands(truth[100]))
	assert.Contains(t, r.hover.Text, fmt.Sprintf("the true count %g–%g at 95%%", bd.Lo[100], bd.Hi[100]))

	// The uncertainty map beside the three: each count's half-width, ±Each
	// but where the interval meets 0; the band toggle keeps the cells
	// whose band is above 0.
	assert.Nil(t, r.extra.Map, "three maps until the uncertainty map is asked for")
	r.uncertain.SetChecked(true)
	require.NotNil(t, r.extra.Map)
	for x := range truth {
		require.Equal(t, (bd.Hi[x]-bd.Lo[x])/2, r.extra.Map.Values[x])
		require.LessOrEqual(t, r.extra.Map.Values[x], float64(iv.Each))
	}
	r.surely.SetChecked(true)
	for x := range truth {
		require.Equal(t, bd.BandLo[x] > 0, !math.IsNaN(r.extra.Map.Values[x]), "cell %d", x)
	}
	r.surely.SetChecked(false)
}

// TestReleaseEntries checks the entries: Laplace cannot be drawn for
// publication, a secure draw needs no seed, and bad values are said where
// the summary would be.
func TestReleaseEntries(t *testing.T) {
	_, u := newTestWindow(t)
	r := u.rel
	r.mech.SetSelected(releaseNames[release.Laplace])
	assert.True(t, r.secure.Disabled())
	assert.True(t, r.stdForm.Visible())
	r.eps.SetText("0")
	assert.Contains(t, r.summary.Text, "epsilon must be positive")
	r.eps.SetText("1")
	r.sens.SetText("1.5")
	assert.Contains(t, r.summary.Text, "Sensitivity \"1.5\": want a whole number")
	r.sens.SetText("1")
	r.mech.SetSelected(releaseNames[release.Geometric])
	assert.False(t, r.secure.Disabled())
	r.secure.SetChecked(true)
	assert.True(t, r.seed.Disabled())
	r.onRelease()
	settle(t)
	require.NotNil(t, r.last)
	assert.True(t, r.last.secure)
	assert.Contains(t, r.errs.Text, "crypto/rand, fit for publication")
}

// TestReleasePeople releases every check-in of the embedded data, whose
// busiest person has 51: Δ comes from the data (51); at Δ = 1 the
// release is refused, and with each person kept to Δ records it is
// drawn; two publications at ε = 1 against a budget of 1.5 spend 1 and
// refuse the second; the ledger is saved with the study and comes back
// when it is opened.
func TestReleasePeople(t *testing.T) {
	w, u := newTestWindow(t)
	r := u.rel
	u.data.perUser.SetSelected(perUserAll)
	settle(t)
	assert.Equal(t, "51", r.sens.Text, "Δ from the data: the most records of one person")
	u.ws.show(u.rel)
	r.mech.SetSelected(releaseNames[release.Geometric])
	r.eps.SetText("1")
	r.sens.SetText("1")
	assert.Contains(t, r.people.Text, "2,000 people, at most 51 records of one")
	assert.Contains(t, r.people.Text, "more than Δ = 1: the release is refused")
	r.onRelease()
	settle(t)
	top := w.Canvas().Overlays().Top()
	require.NotNil(t, top, "a release below a person's records is refused")
	assert.Contains(t, overlayTexts(top), "1 is below the 51 records one person contributes")
	top.Hide()
	w.Canvas().Overlays().Remove(top)
	assert.Nil(t, r.last)

	// Issue 44's fifth finding: Δ = 51 read off the data is no bound
	// fixed in advance: a preview, and a publication is refused.
	r.sens.SetText("51")
	assert.Contains(t, r.people.Text, "a preview only, not a differential-privacy guarantee")
	r.secure.SetChecked(true)
	r.onRelease()
	settle(t)
	top = w.Canvas().Overlays().Top()
	require.NotNil(t, top, "a publication with Δ read off the data is refused")
	assert.Contains(t, overlayTexts(top), "bound was read from the data, so this is not a differential-privacy guarantee")
	top.Hide()
	w.Canvas().Overlays().Remove(top)
	assert.Nil(t, r.last)
	r.sens.SetText("1")

	r.clip.SetChecked(true)
	r.secure.SetChecked(true)
	r.budget.SetText("1.5")
	r.onRelease()
	settle(t)
	require.NotNil(t, r.last)
	assert.Equal(t, 2000.0, floats.Sum(r.last.counts.Counts), "one record of each of 2,000 people")
	_, c, err := guarantee.StudyCounts(u.ws.data.personStudy(), 1, true, pipeline.NewRand(1))
	require.NoError(t, err)
	require.Positive(t, c.SmallCells)
	assert.Equal(t, c.SmallCells, r.last.small)
	assert.Contains(t, r.errs.Text, human.Plural(c.SmallCells, "cell", "cells")+" hold only one or two people")
	iv, err := r.last.spec.Interval(len(r.last.raw), 0.95)
	require.NoError(t, err)
	assert.Contains(t, r.errs.Text, iv.Statement(r.last.accuracy()))
	assert.Contains(t, r.errs.Text, "of its count after clipping", "the interval is of the clipped counts (issue 44)")
	assert.Contains(t, r.errs.Text, "The uncertainty map gives each clipped count's interval")
	// The ledger's database (issue 44): one publication of ε 1, spent in
	// the data set's account, shown with the database's path.
	db, err := r.openLedger()
	require.NoError(t, err)
	st, err := db.Status(t.Context(), r.dataset())
	require.NoError(t, err)
	assert.Equal(t, 1, st.Publications)
	assert.Equal(t, "1", ledger.RatString(st.Spent))
	require.NotNil(t, r.last.entry)
	assert.Contains(t, r.errs.Text, fmt.Sprintf("(ledger entry %d)", r.last.entry.Seq))
	assert.Contains(t, r.spent.Text, "spent ε = 1 in all (1 published")
	assert.Contains(t, r.spent.Text, "Budget: ε = 1.5, 0.5 left.")
	assert.Contains(t, r.spent.Text, "Ledger "+db.Path())
	r.onRelease()
	settle(t)
	top = w.Canvas().Overlays().Top()
	require.NotNil(t, top, "a publication beyond the budget is refused")
	assert.Contains(t, overlayTexts(top), "beyond the budget of 1.5")
	top.Hide()
	w.Canvas().Overlays().Remove(top)
	st, err = db.Status(t.Context(), r.dataset())
	require.NoError(t, err)
	assert.Equal(t, 1, st.Publications)

	// A raise must be confirmed, and is an entry of its own.
	r.budget.SetText("5")
	r.onRelease()
	settle(t)
	top = w.Canvas().Overlays().Top()
	require.NotNil(t, top, "a raise is asked")
	assert.Contains(t, overlayTexts(top), "raising it needs -raise-budget")
	top.Hide()
	w.Canvas().Overlays().Remove(top)
	st, err = db.Status(t.Context(), r.dataset())
	require.NoError(t, err)
	assert.Equal(t, "1.5", ledger.RatString(st.Budget), "not raised unconfirmed")

	// The study keeps no ledger; an older study's member is imported
	// once, under its data file's name.
	s, err := u.study()
	require.NoError(t, err)
	assert.Nil(t, s.Ledger)
	old := &studyfile.Study{Source: &studyfile.Source{Path: "/data/older.csv"}, Ledger: &studyfile.Ledger{Budget: 3, Entries: []studyfile.LedgerEntry{{Date: "2026-01-01T00:00:00Z", Mechanism: "geometric", Epsilon: 1, Sensitivity: 1, Draw: "secure", Output: "o.csv", SHA256: "00"}}}}
	r.takeStudy(old)
	r.takeStudy(old)
	st, err = db.Status(t.Context(), "older.csv")
	require.NoError(t, err)
	assert.Equal(t, 1, st.Publications, "imported once")
	assert.Equal(t, "3", ledger.RatString(st.Budget))
}

// TestReleaseSuppress suppresses released counts of at most 3: no
// released count of the file is between 0 and 3, the errors say how many
// were set to 0 and that it is post-processing, and the CSV begins with
// the same note.
func TestReleaseSuppress(t *testing.T) {
	_, u := newTestWindow(t)
	r := u.rel
	u.ws.show(u.rel)
	r.mech.SetSelected(releaseNames[release.Geometric])
	r.eps.SetText("0.5")
	r.suppress.SetText("3")
	r.onRelease()
	settle(t)
	require.NotNil(t, r.last)
	require.Positive(t, r.last.suppressed)
	for _, v := range r.last.raw {
		assert.False(t, v > 0 && v <= 3, "a released count of %v", v)
	}
	assert.Contains(t, r.errs.Text, human.Plural(r.last.suppressed, "released count", "released counts")+" of at most 3 set to 0: post-processing")
	name := filepath.Join(t.TempDir(), "r.csv")
	require.NoError(t, r.writeCSV(name))
	b, err := os.ReadFile(name)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(b), fmt.Sprintf("# suppressed: %d released counts of at most 3 set to 0", r.last.suppressed)), "%.80q", b)
}

// TestReleasePlan checks the Release screen's plan as typed: the ε that
// keeps every one of the embedded data's 384 counts within ±10, and a
// refusal of a target that is not a whole number.
func TestReleasePlan(t *testing.T) {
	_, u := newTestWindow(t)
	settle(t)
	r := u.rel
	r.mech.SetSelected(releaseNames[release.Laplace])
	r.sens.SetText("1")
	r.within.SetText("10")
	want, err := release.PlanFor(release.Spec{Mechanism: release.Laplace, EpsIn: 1, EpsOut: 1, Sensitivity: 1}, 384, 0.95, 10)
	require.NoError(t, err)
	assert.Equal(t, want.Sentence(), r.plan.Text)
	assert.Contains(t, r.plan.Text, "For every one of the 384 released counts to lie within ±10 of its true count with probability 95%")
	r.within.SetText("ten")
	assert.Contains(t, r.plan.Text, "want a whole number")
}
