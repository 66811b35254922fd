package gui

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/paulmach/orb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"

	"github.com/privmap/privmap/app/plan"
	"github.com/privmap/privmap/app/studyfile"
	"github.com/privmap/privmap/core"
	"github.com/privmap/privmap/core/emd"
)

// TestRunAndCompare runs GIBU and [INV]_M on the embedded data and checks
// the compare screen: the maps show the truth, the estimate and their
// difference on one scale, and the metrics are the estimate's.
func TestRunAndCompare(t *testing.T) {
	_, u := newTestWindow(t)
	settle(t)
	u.run.checks[core.MethodGIBU].SetChecked(true)
	u.run.checks[core.MethodINVM].SetChecked(true)
	// The bar shows only while a job runs: idle, it is not drawn.
	require.NotNil(t, u.run.barBox)
	assert.False(t, u.run.barBox.Visible(), "an idle bar on the Run screen")
	assert.False(t, u.exp.barBox.Visible(), "an idle bar on the Experiments screen")
	assert.Equal(t, compareIdle, u.cmp.empty.Text)
	u.run.onRun()
	assert.True(t, u.run.barBox.Visible(), "no bar while the run runs")
	// Issue 46: before its results, the Compare screen says a run is
	// under way, not "Nothing to compare yet … then Run".
	assert.True(t, strings.HasPrefix(u.cmp.empty.Text, "A run is under way (starting)."), u.cmp.empty.Text)
	settle(t)
	assert.Equal(t, compareIdle, u.cmp.empty.Text)
	assert.False(t, u.run.barBox.Visible(), "the bar stayed after the run")
	res := u.cmp.res
	require.NotNil(t, res)
	assert.Equal(t, screen(u.cmp), u.ws.current())
	assert.Equal(t, 2000, res.N())
	// Issue 44: the run says its reports in the data's unit, and that
	// its estimates preview a collection.
	assert.Contains(t, u.run.stage.Text, "on 2,000 reports from 2,000 people in")
	assert.Contains(t, u.run.stage.Text, "The estimates are a preview of a collection: simulated from the raw data — not for publication.")
	require.Len(t, res.Succeeded(), 2)
	gibu := res.Results[0]
	require.Equal(t, core.MethodGIBU, gibu.Method)
	assert.True(t, gibu.Estimate.Converged)
	assert.InDelta(t, 1, floats.Sum(gibu.Estimate.Theta), 1e-9)

	truth := u.ws.data.grid.Distribution()
	m := u.cmp.maps
	require.NotNil(t, m[0].Map)
	for i := range truth {
		require.Equal(t, truth[i], m[0].Map.Values[i])
		require.Equal(t, gibu.Estimate.Theta[i], m[1].Map.Values[i])
		require.InDelta(t, gibu.Estimate.Theta[i]-truth[i], m[2].Map.Values[i], 1e-15)
	}
	hi := math.Max(floats.Max(truth), floats.Max(gibu.Estimate.Theta))
	assert.Equal(t, [2]float64{0, hi}, [2]float64{m[0].Map.Lo, m[0].Map.Hi})
	assert.Equal(t, [2]float64{0, hi}, [2]float64{m[1].Map.Lo, m[1].Map.Hi})
	assert.True(t, m[2].Map.Diverging)

	want, err := emd.Compare(context.Background(), truth, gibu.Estimate.Theta, u.ws.data.studyAlphabet())
	require.NoError(t, err)
	assert.Equal(t, want, gibu.Metrics)
	assert.Equal(t, fmt.Sprintf("%.4g km", want.EMD), u.cmp.metrics["EMD"].Text)
	assert.Contains(t, u.cmp.reading.Text, fmt.Sprintf("TV %.3g: %.3g%% of the people would have to move", want.TV, 100*want.TV))
	assert.Equal(t, stepsText(&gibu), u.cmp.metrics["Steps"].Text)
	assert.True(t, strings.HasPrefix(stepsText(&gibu), fmt.Sprintf("%d · log-likelihood certified ", gibu.Estimate.Iterations)),
		u.cmp.metrics["Steps"].Text)

	// Hover on one map marks the cell on all three and describes it.
	u.cmp.maps[1].hover(100)
	for _, h := range u.cmp.maps {
		assert.Equal(t, 100, h.hovered)
	}
	assert.Contains(t, u.cmp.hover.Text, "cell 100 (row 4, col 4)")
	assert.Contains(t, u.cmp.hover.Text, "GIBU")

	// Zooming one map zooms the three, and a new estimate keeps the view.
	u.cmp.maps[0].TypedRune('+')
	v := u.cmp.maps[0].View()
	assert.NotEqual(t, orb.Bound{}, v)
	for _, h := range u.cmp.maps {
		assert.Equal(t, v, h.View())
		assert.Equal(t, v, h.Map.View)
	}

	// The ranking lists the better (lower EMD) estimator first.
	r := ranked(res)
	assert.LessOrEqual(t, r[0].Metrics.EMD, r[1].Metrics.EMD)

	// Choosing the other estimator redraws the estimate.
	u.cmp.pick.SetSelected(methodTitle(core.MethodINVM))
	assert.Equal(t, res.Results[1].Estimate.Theta[7], u.cmp.maps[1].Map.Values[7])
	assert.Equal(t, v, u.cmp.maps[2].Map.View)
}

// TestRunCancel runs a fake estimator that waits for cancel: the run
// screen shows its progress, Cancel ends it, the window keeps its last
// results and can run again.
func TestRunCancel(t *testing.T) {
	_, u := newTestWindow(t)
	settle(t)
	started := make(chan struct{})
	u.run.estimate = func(ctx context.Context, method core.Method, s *core.Study, mechs []core.Mechanism, g *core.Groups, opt core.EstimateOptions) (*core.Estimate, error) {
		opt.EM.Progress(7, -1234.5, 1e-3)
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	}
	u.run.onRun()
	<-started
	assert.True(t, u.run.running)
	assert.True(t, u.run.runBtn.Disabled())
	assert.False(t, u.run.cancelBtn.Disabled())
	settleUntil(t, "the step shown", func() bool { return strings.Contains(u.run.detail.Text, "step 7 · log-likelihood -1234.5") })
	assert.Contains(t, u.run.stage.Text, "GIBU")
	u.run.onRun() // a second Run while running does nothing
	// The window keeps working during the run: tabs switch, the map
	// answers the mouse, the data can be gridded again.
	u.ws.show(u.data)
	u.data.heat.hover(17)
	assert.Equal(t, cellInfo(u.ws.data.grid, 17), u.data.hover.Text)
	u.ws.show(u.run)
	test.Tap(u.run.cancelBtn)
	settle(t)
	assert.False(t, u.run.running)
	assert.False(t, u.run.runBtn.Disabled())
	assert.Contains(t, u.run.stage.Text, "cancelled")
	assert.Nil(t, u.cmp.res, "a cancelled run shows no results")
}

// TestIdleBar checks that the run's bar shows no percentage when no run
// goes.
func TestIdleBar(t *testing.T) {
	_, u := newTestWindow(t)
	assert.Equal(t, "", u.run.bar.TextFormatter())
	u.run.setRunning(true)
	u.run.bar.SetValue(0.42)
	assert.Equal(t, "42 %", u.run.bar.TextFormatter())
	u.run.setRunning(false)
	assert.Equal(t, "", u.run.bar.TextFormatter())
}

// TestRunOptionErrors checks validation of the run options: a bad
// option shows a dialog and starts nothing.
func TestRunOptionErrors(t *testing.T) {
	w, u := newTestWindow(t)
	for _, tc := range []struct {
		entry func() // sets one bad option
		want  string
	}{
		{func() { u.run.tol.SetText("abc") }, "EM tolerance"},
		{func() { u.run.maxIter.SetText("2.5") }, "whole number"},
		{func() { u.run.users.SetText("-3") }, "Users"},
		{func() { u.run.users.SetText("1e12") }, `Users "1e12": at most 4294967296 (2³²) users are simulated`},
		{func() { u.run.signif.SetText("1") }, "below 1"},
		{func() {
			for _, c := range u.run.checks {
				c.SetChecked(false)
			}
		}, "at least one estimator"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			u.run.setSettings(studyfile.RunSettings{Methods: []core.Method{core.MethodGIBU}, Seed: 1})
			tc.entry()
			_, err := u.run.settings()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			u.run.onRun()
			assert.False(t, u.run.running)
			assert.NotNil(t, w.Canvas().Overlays().Top(), "an error dialog")
			w.Canvas().Overlays().Remove(w.Canvas().Overlays().Top())
		})
	}
	set := studyfile.RunSettings{Methods: []core.Method{core.MethodCEM, core.MethodGIBU}, Users: 500, Seed: 9, Tol: 1e-9, MaxIter: 20, Post: core.PostNorm, Alpha: 0.3,
		PrintedHessian: true, Significance: 0.05}
	u.run.setSettings(set)
	got, err := u.run.settings()
	require.NoError(t, err)
	set.Methods = []core.Method{core.MethodGIBU, core.MethodCEM} // in screen order
	assert.Equal(t, set, got)

	// A study keeps the Intervals choice and the Plan's question too.
	off := false
	set.Intervals, set.Plan = &off, &studyfile.PlanSettings{Error: plan.EMD, Target: 0.25, Vary: plan.AxisEps, Runs: 30}
	u.run.setSettings(set)
	var st studyfile.Study
	require.NoError(t, u.run.putStudy(&st))
	require.NotNil(t, st.Run)
	assert.Equal(t, set.Intervals, st.Run.Intervals)
	assert.Equal(t, set.Plan, st.Run.Plan)
	assert.Equal(t, "0.25", u.run.plan.target.Text)
}

// TestRunBadPopulation checks that an invalid population stops a run
// with a dialog naming the problem.
func TestRunBadPopulation(t *testing.T) {
	w, u := newTestWindow(t)
	u.pop.setSpecs([]core.MechanismSpec{{ID: "k", Kind: core.KindKRR, Epsilon: -1}})
	settle(t)
	u.run.onRun()
	assert.False(t, u.run.running)
	require.NotNil(t, w.Canvas().Overlays().Top())
}

// TestExport runs GIBU and exports the side-by-side figure and one map
// as PNG within the requested sizes, and the estimate as a distribution CSV
// that reads back.
func TestExport(t *testing.T) {
	_, u := newTestWindow(t)
	settle(t)
	u.run.onRun()
	settle(t)
	m := u.cmp.current()
	require.NotNil(t, m)
	dir := t.TempDir()
	for _, tc := range []struct {
		view string
		w, h int
	}{{viewSide, 1500, 520}, {viewDiff, 640, 480}} {
		t.Run(tc.view, func(t *testing.T) {
			name := filepath.Join(dir, "map.png")
			require.NoError(t, u.cmp.writePNG(name, m, tc.view, tc.w, tc.h))
			f, err := os.Open(name)
			require.NoError(t, err)
			img, err := png.Decode(f)
			f.Close()
			require.NoError(t, err)
			// Trimmed to the maps: as wide or as high as asked, no larger.
			w, h := img.Bounds().Dx(), img.Bounds().Dy()
			assert.True(t, (w == tc.w && h <= tc.h) || (h == tc.h && w <= tc.w), "%d×%d for %d×%d", w, h, tc.w, tc.h)
			colours := map[[3]uint32]bool{}
			for y := 0; y < h; y += 3 {
				for x := 0; x < w; x += 3 {
					r, g, b, _ := img.At(x, y).RGBA()
					colours[[3]uint32{r, g, b}] = true
				}
			}
			assert.Greater(t, len(colours), 50, "%s: the picture is not blank", tc.view)
		})
	}
	assert.Error(t, u.cmp.writePNG(filepath.Join(dir, "x.png"), m, viewSide, 50, 400), "too small")
	assert.Error(t, u.cmp.writePNG(filepath.Join(dir, "no", "x.png"), m, viewSide, 800, 400), "no such folder")
	entries, _ := os.ReadDir(dir)
	assert.Len(t, entries, 1, "failed exports leave no files behind")

	csvName := filepath.Join(dir, "est.csv")
	require.NoError(t, u.cmp.writeCSV(csvName, m))
	b, err := os.ReadFile(csvName)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(b), "cell,probability,row,col,lat,lon\n"), string(b[:60]))
	back, err := core.ReadDistribution(bytes.NewReader(b), 384)
	require.NoError(t, err)
	assert.Equal(t, m.Estimate.Theta, back)

	notes := u.cmp.notes(m)
	assert.Contains(t, notes[0], "24×16 cells of 0.5 km")
	assert.Contains(t, strings.Join(notes, "\n"), "planar-0.19 (planar-geometric ε 0.19): 200 users")
	assert.Equal(t, "synthetic-san-francisco-check-ins-embedded", slug("synthetic San Francisco check-ins (embedded)"))
	assert.Contains(t, notes[len(notes)-2], "Estimator: GIBU")
	assert.Equal(t, "Colour scale: linear · no basemap", notes[len(notes)-1])
	assert.Contains(t, notes[0], "seed 1")
}

// TestStudySaveOpen saves the study, changes the population and the
// options, and opens the study again: everything comes back.
func TestStudySaveOpen(t *testing.T) {
	_, u := newTestWindow(t)
	settle(t)
	u.run.setSettings(studyfile.RunSettings{Methods: []core.Method{core.MethodGIBU, core.MethodIBUM}, Seed: 42, MaxIter: 500})
	s, err := u.study()
	require.NoError(t, err)
	require.NotNil(t, s.Source)
	assert.Equal(t, "", s.Source.Path, "the embedded data")
	assert.Equal(t, 0.5, s.Source.CellKm)
	var buf bytes.Buffer
	require.NoError(t, studyfile.Write(&buf, s))

	u.pop.setSpecs([]core.MechanismSpec{{ID: "k", Kind: core.KindKRR, Epsilon: 1}})
	settle(t)
	u.run.setSettings(studyfile.RunSettings{Methods: []core.Method{core.MethodCEM}, Seed: 3})
	u.data.cell.SetText("1")
	require.NoError(t, u.openStudy(buf.Bytes(), "study.json"))
	settle(t)
	got, err := u.study()
	require.NoError(t, err)
	assert.Equal(t, s, got)

	_, err = u.run.settings()
	require.NoError(t, err)
	bad := []byte(`{"alphabet": {"kind": "linear", "size": 5}, "mechanisms": [{"id": "a", "kind": "krr", "epsilon": 1}]}`)
	assert.ErrorContains(t, u.openStudy(bad, "x.json"), "does not fit")
	assert.Error(t, u.openStudy([]byte(`{"alphabet": 3}`), "y.json"))
}

// TestOpenFileArgument opens the window on a data file and on a broken
// study, as privmap gui FILE does: the data file is shown; the broken
// study leaves the embedded data and a dialog.
func TestOpenFileArgument(t *testing.T) {
	a := test.NewTempApp(t)
	_, u := openTestWindow(t, a, filepath.Join("..", "..", "geo", "census", "testdata", "adult_sample.data"))
	require.NotNil(t, u.ws.data)
	assert.True(t, u.ws.data.isCensus())
	assert.Equal(t, "adult_sample.data", u.ws.data.src.name)
	// Its study records the census file and its attributes.
	settle(t)
	s, err := u.study()
	require.NoError(t, err)
	assert.Equal(t, "adult", s.Source.Format)
	assert.Equal(t, u.ws.data.choice.attrs, s.Source.Attrs)
	assert.Equal(t, "drop", s.Source.Missing)
	assert.Nil(t, s.Source.BBox)

	bad := filepath.Join(t.TempDir(), "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"alphabet": {"kind": "grid"}}`), 0o644))
	w, u := openTestWindow(t, a, bad)
	require.NotNil(t, u.ws.data)
	assert.Equal(t, defaultSource().name, u.ws.data.src.name)
	assert.NotNil(t, w.Canvas().Overlays().Top(), "an error dialog")
}

// TestCensusRunAndCompare runs GIBU on a census table: the compare
// screen shows attribute-pair marginals of the truth and the estimate,
// with row and column selects, and exports them.
func TestCensusRunAndCompare(t *testing.T) {
	_, u := newTestWindow(t)
	b, err := os.ReadFile(filepath.Join("..", "..", "geo", "census", "testdata", "adult_sample.data"))
	require.NoError(t, err)
	u.data.load(bytesSource("adult_sample.data", b), false)
	settle(t)
	require.True(t, u.ws.data.isCensus())
	settle(t)
	u.run.onRun()
	settle(t)
	res := u.cmp.res
	require.NotNil(t, res)
	require.Len(t, res.Succeeded(), 1)
	assert.True(t, u.cmp.censusView.Visible())
	a := u.ws.data.alphabet
	assert.Equal(t, a.Attributes[0].Name, u.cmp.rows.Selected)
	assert.Equal(t, a.Attributes[1].Name, u.cmp.cols.Selected)
	want, err := a.Marginal(res.Results[0].Estimate.Theta, 0, 1)
	require.NoError(t, err)
	assert.Equal(t, want, u.cmp.maps[1].Map.Values)
	assert.True(t, math.IsNaN(res.Results[0].Metrics.EMD), "categories have no distance")
	assert.Contains(t, u.cmp.metrics["EMD"].Text, "no distance")

	u.cmp.cols.SetSelected(noAttribute)
	assert.Equal(t, 1, u.cmp.maps[0].Map.Rows)
	assert.True(t, u.cmp.maps[0].Map.Bars, "one attribute is a bar chart")
	u.cmp.onHover(0)
	assert.Contains(t, u.cmp.hover.Text, a.Attributes[0].Name+" "+a.Attributes[0].Labels[0])

	name := filepath.Join(t.TempDir(), "census.png")
	require.NoError(t, u.cmp.writePNG(name, u.cmp.current(), viewSide, 1200, 500))
	assert.Contains(t, u.cmp.notes(u.cmp.current())[0], "categories")
}

// TestRunPUM runs a PUM whose users protect their home cell, the cell of
// most of their check-ins, with the ULDP estimator.
func TestRunPUM(t *testing.T) {
	_, u := newTestWindow(t)
	require.Len(t, u.ws.data.grid.Homes, 2000)
	u.pop.setSpecs([]core.MechanismSpec{{ID: "p", Kind: core.KindPUM, Epsilon: 2, Sensitive: []int{0, 1, 2}}})
	settle(t)
	spec, err := u.pop.rows[0].spec()
	require.NoError(t, err)
	assert.Equal(t, []string{"home"}, spec.Tags)
	u.run.setSettings(studyfile.RunSettings{Methods: []core.Method{core.MethodULDP, core.MethodGIBU}, Seed: 1})
	// GIBU does not take PUM reports: it is offered disabled, with the
	// reason, before the run, and the run is ULDP's alone.
	assert.True(t, u.run.checks[core.MethodGIBU].Disabled())
	assert.False(t, u.run.checks[core.MethodULDP].Disabled())
	assert.True(t, u.run.why.Visible())
	assert.Contains(t, u.run.why.Text, `GIBU: mechanism "p" is a pum, whose reports live on the extended alphabet: estimate them with uldp.`)
	u.run.onRun()
	settle(t)
	res := u.cmp.res
	require.NotNil(t, res)
	require.Len(t, res.Results, 1)
	uldp := res.Results[0]
	require.Equal(t, core.MethodULDP, uldp.Method)
	require.NoError(t, uldp.Err)
	assert.InDelta(t, 1, floats.Sum(uldp.Estimate.Theta), 1e-9)
	assert.Contains(t, u.app.Preferences().String(prefRunMethods), "gibu", "GIBU stays ticked for the next population")

	// With only inapplicable estimators ticked, Run says so.
	u.run.setSettings(studyfile.RunSettings{Methods: []core.Method{core.MethodGIBU}, Seed: 1})
	_, err = u.run.settings()
	assert.ErrorContains(t, err, "none of the estimators ticked applies to this population")

	// A k-RR population enables GIBU again (once the audits held during
	// the run are done: the test driver runs their updates on their own
	// goroutines).
	settle(t)
	u.pop.setSpecs([]core.MechanismSpec{{ID: "k", Kind: core.KindKRR, Epsilon: 2}})
	settle(t)
	assert.False(t, u.run.checks[core.MethodGIBU].Disabled())
	assert.NotContains(t, u.run.why.Text, "GIBU:")
	assert.Contains(t, u.run.why.Text, "[RAP]_M: needs RAPPOR users; mechanism \"k\" is krr.")
}

// TestExportDialog exports through the form as a user does: Ctrl+E's
// form opens with its file name focused, the size comes from the
// preferences, and Enter writes the PNG.
func TestExportDialog(t *testing.T) {
	w, u := newTestWindow(t)
	settle(t)
	u.run.onRun()
	settle(t)
	u.app.Preferences().SetInt(prefPNGWidth, 900)
	u.app.Preferences().SetInt(prefPNGHeight, 400)
	u.onExportPNG()
	name := filepath.Join(t.TempDir(), "typed.png")
	got := submitExport(t, w, name)
	assert.True(t, got[0] == 900 && got[1] > 200 && got[1] < 400, "%v: 900 wide, trimmed to the maps' height", got)
	assert.Equal(t, filepath.Dir(name), u.app.Preferences().String(prefFolder), "the folder is remembered")
}

// TestDataExport exports the Data screen's true map through its form.
func TestDataExport(t *testing.T) {
	w, u := newTestWindow(t)
	u.ws.show(u.data)
	u.onExportPNG()
	e := w.Canvas().Focused().(*widget.Entry)
	assert.True(t, strings.HasSuffix(e.Text, "synthetic-san-francisco-check-ins-embedded-true.png"), e.Text)
	got := submitExport(t, w, filepath.Join(t.TempDir(), "true.png"))
	assert.True(t, got[1] == 700 && got[0] > 800 && got[0] < 1800, "%v: 700 high, trimmed to the map's width", got)
}

// submitExport types name into the export form's focused file entry,
// presses Enter, and returns the size of the PNG written.
func submitExport(t *testing.T, w fyne.Window, name string) [2]int {
	t.Helper()
	e, ok := w.Canvas().Focused().(*widget.Entry)
	require.True(t, ok, "the file name is focused")
	// A picture with the true map is raw data: the user says she knows.
	tickRawData(w.Canvas().Overlays().Top())
	e.SetText(name)
	e.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	f, err := os.Open(name)
	require.NoError(t, err)
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	require.NoError(t, err)
	// The export is confirmed with its folder, its size and Open folder.
	shown := overlayTexts(w.Canvas().Overlays().Top())
	assert.Contains(t, shown, "Wrote "+filepath.Base(name)+"\nin "+filepath.Dir(name))
	assert.Contains(t, shown, fmt.Sprintf("(%d × %d pixels)", cfg.Width, cfg.Height))
	assert.Contains(t, shown, "Open folder")
	return [2]int{cfg.Width, cfg.Height}
}

// overlayTexts returns the text of every label and button in o.
func overlayTexts(o fyne.CanvasObject) string {
	var b strings.Builder
	walkObjects(o, func(o fyne.CanvasObject) bool {
		switch v := o.(type) {
		case *widget.Label:
			b.WriteString(v.Text + "\n")
			return false
		case *widget.Button:
			b.WriteString(v.Text + "\n")
			return false
		}
		return true
	})
	return b.String()
}

// tickRawData ticks the export form's Raw data check in o.
func tickRawData(o fyne.CanvasObject) {
	walkObjects(o, func(o fyne.CanvasObject) bool {
		if v, ok := o.(*widget.Check); ok {
			if v.Text == rawConsent {
				v.SetChecked(true)
			}
			return false
		}
		return true
	})
}

// walkObjects calls visit on o (when not nil) and, while visit returns
// true, on what it holds: a container's objects, a widget's renderer's.
func walkObjects(o fyne.CanvasObject, visit func(fyne.CanvasObject) bool) {
	if o == nil || !visit(o) {
		return
	}
	switch v := o.(type) {
	case *fyne.Container:
		for _, c := range v.Objects {
			walkObjects(c, visit)
		}
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(v).Objects() {
			walkObjects(c, visit)
		}
	}
}

// TestStepsText checks how the Compare screen words an estimator's steps.
func TestStepsText(t *testing.T) {
	for _, tc := range []struct {
		est  core.Estimate
		want string
	}{
		{core.Estimate{Iterations: 12, Converged: true, Gap: 0}, "12 · log-likelihood certified at the MLE's, to rounding"},
		{core.Estimate{Iterations: 12, Converged: true, Gap: 3e-12}, "12 · log-likelihood certified within 3e-12 of the MLE"},
		{core.Estimate{Iterations: 900, Gap: 2e-7}, "900 · not converged: up to 2e-07 below the MLE"},
	} {
		m := methodResult{Method: core.MethodGIBU, Estimate: &tc.est}
		assert.Equal(t, tc.want, stepsText(&m))
	}
}

// TestRunPanic runs an estimator that panics: the window does not die,
// the run ends as failed with the panic in its error, and Run works
// again.
func TestRunPanic(t *testing.T) {
	_, u := newTestWindow(t)
	settle(t)
	u.run.estimate = func(context.Context, core.Method, *core.Study, []core.Mechanism, *core.Groups, core.EstimateOptions) (*core.Estimate, error) {
		panic("boom")
	}
	u.run.onRun()
	settle(t)
	assert.False(t, u.run.running)
	assert.False(t, u.run.runBtn.Disabled())
	assert.Contains(t, u.run.stage.Text, "The run failed")
	assert.Nil(t, u.cmp.res)
}

// TestGuarded checks that guarded turns a panic into an error carrying
// its value and passes results through otherwise.
func TestGuarded(t *testing.T) {
	v, err := guarded(func() (int, error) { return 7, nil })
	assert.Equal(t, 7, v)
	assert.NoError(t, err)
	v, err = guarded(func() (int, error) { panic("boom") })
	assert.Equal(t, 0, v)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "internal error: boom")
}

// TestCheckGivesBackKeys checks that ticking an estimator leaves no
// check box with the keyboard focus, so that Escape reaches the window
// and cancels a run.
func TestCheckGivesBackKeys(t *testing.T) {
	w, u := newTestWindow(t)
	u.ws.show(u.run)
	c := u.run.checks[core.MethodGIBU]
	w.Canvas().Focus(c)
	require.Equal(t, c, w.Canvas().Focused())
	test.Tap(c)
	assert.Nil(t, w.Canvas().Focused())
}

// creditOnly is a basemap of one colour with a credit.
type creditOnly string

func (c creditOnly) Image(_ orb.Bound, w, h int) *image.NRGBA {
	return image.NewNRGBA(image.Rect(0, 0, w, h))
}
func (c creditOnly) Attribution() string { return string(c) }

// TestExportHeader checks what an exported figure's header records: the
// seed, corrected EM's α, the colour scale and the basemap's credit.
func TestExportHeader(t *testing.T) {
	_, u := newTestWindow(t)
	settle(t)
	u.run.setSettings(studyfile.RunSettings{Methods: []core.Method{core.MethodCEM}, Seed: 42, Alpha: 0.3})
	u.run.onRun()
	settle(t)
	m := u.cmp.current()
	require.NotNil(t, m)
	require.NoError(t, m.Err)
	u.cmp.scale.SetSelected(compareSqrt)
	u.cmp.maps[0].Map.Basemap = creditOnly("© OpenStreetMap contributors")
	notes := u.cmp.notes(m)
	assert.Contains(t, notes[0], "seed 42")
	assert.Contains(t, notes[len(notes)-2], "Estimator: Corrected EM (α = 0.3)")
	assert.Equal(t, "Colour scale: square root · basemap © OpenStreetMap contributors", notes[len(notes)-1])
}

// TestFolders checks that opening and exporting keep their own last
// folders, and that a folder since removed falls back to the home folder.
func TestFolders(t *testing.T) {
	a := test.NewTempApp(t)
	in, out := t.TempDir(), t.TempDir()
	rememberOpened(a, storage.NewFileURI(filepath.Join(in, "checkins.txt")))
	rememberFolder(a, filepath.Join(out, "map.png"))
	assert.Equal(t, in, folderPref(a, prefOpened))
	assert.Equal(t, out, lastFolder(a))
	require.NoError(t, os.Remove(in))
	home, _ := os.UserHomeDir()
	assert.Equal(t, home, folderPref(a, prefOpened))
	assert.Contains(t, dataExts, ".test", "UCI's adult.test can be opened")
}

// TestCompareSplit checks the Compare screen gives its maps the height
// they fill the width at, and the tables the rest, within its bounds.
func TestCompareSplit(t *testing.T) {
	_, u := newTestWindow(t)
	settle(t)
	u.run.onRun()
	settle(t)
	u.ws.show(u.cmp)
	c := u.cmp
	off := c.split.Offset
	assert.True(t, off >= 0.4 && off <= 0.8, "offset %v", off)
	need := sideBySide{}.heightFor(c.mapRow.Objects, c.mapRow.Size().Width)
	require.Positive(t, need)
	if off > 0.4 && off < 0.8 {
		// Within the split handle's few pixels.
		assert.InDelta(t, need, c.mapRow.Size().Height, 8, "the map row as high as its maps need")
	} else if off == 0.4 {
		assert.GreaterOrEqual(t, c.mapRow.Size().Height, need-1, "room to spare for wide maps")
	}
}

// TestRawDataExport refuses to export the Data screen's true map until
// the user ticks Raw data, and the picture then says it is raw data.
func TestRawDataExport(t *testing.T) {
	w, u := newTestWindow(t)
	u.ws.show(u.data)
	u.onExportPNG()
	form := w.Canvas().Overlays().Top()
	e := w.Canvas().Focused().(*widget.Entry)
	name := filepath.Join(t.TempDir(), "true.png")
	e.SetText(name)
	e.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	assert.NoFileExists(t, name)
	assert.Contains(t, overlayTexts(w.Canvas().Overlays().Top()), "tick Raw data to export it")
	assert.NotSame(t, form, w.Canvas().Overlays().Top())
}
