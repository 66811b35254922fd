package gui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/privmap/privmap/app/pipeline"
	"github.com/privmap/privmap/app/plan"
	"github.com/privmap/privmap/core"
)

// TestPlanPanel plans the users of the embedded data's population from
// the Run screen: the sentence answers with a number of users, the curve
// is drawn, and the panel remembers its question; a target out of range
// is refused before any work, with the controls idle.
func TestPlanPanel(t *testing.T) {
	w, u := newTestWindow(t)
	settle(t)
	p := u.run.plan
	u.run.checks[core.MethodGIBU].SetChecked(true)
	p.target.SetText("0.3")
	p.runs.SetText("3")
	p.metric.SetSelected(planMetrics[0])
	p.vary.SetSelected(planAxes[0])
	p.onPlan()
	settle(t)
	assert.False(t, p.job.running)
	assert.Contains(t, p.status.Text, "To keep the TV to the truth at most 0.3")
	assert.Contains(t, p.status.Text, " users (")
	assert.Contains(t, p.status.Text, "3 simulated deployments at each of 7 sizes from 200 users to 20,000 users")
	assert.True(t, p.figure.Visible())
	p.figure.Resize(fyne.NewSize(400, 260))
	img := p.figure.draw(400, 260)
	colours := map[[4]uint32]bool{}
	for y := 0; y < 260; y += 5 {
		for x := 0; x < 400; x += 5 {
			r, g, b, a := img.At(x, y).RGBA()
			colours[[4]uint32{r, g, b, a}] = true
		}
	}
	assert.Greater(t, len(colours), 3, "the curve is drawn")
	assert.Equal(t, "0.3", u.run.app.Preferences().String(prefPlanTarget))
	assert.Equal(t, "3", u.run.app.Preferences().String(prefPlanRuns))

	before := p.status.Text
	p.target.SetText("1.5")
	p.onPlan()
	settle(t)
	assert.False(t, p.job.running)
	assert.Equal(t, before, p.status.Text, "a refused plan leaves the last answer")
	require.NotNil(t, w.Canvas().Overlays().Top(), "the refusal is shown")
	shown := overlayTexts(w.Canvas().Overlays().Top())
	assert.True(t, strings.Contains(shown, "below 1"), shown)
}

// TestPlanLongWarning checks that a plan the cost model calls long is
// not started but explained first.
func TestPlanLongWarning(t *testing.T) {
	w, u := newTestWindow(t)
	settle(t)
	p := u.run.plan
	p.cost = func(plan.Request) pipeline.Cost {
		return pipeline.Cost{Time: time.Hour, Parts: []string{"many estimates"}}
	}
	p.target.SetText("0.3")
	p.onPlan()
	settle(t)
	assert.False(t, p.job.running, "a long plan waits for its confirmation")
	require.NotNil(t, w.Canvas().Overlays().Top())
	shown := overlayTexts(w.Canvas().Overlays().Top())
	assert.Contains(t, shown, "This plan will take about 60 min: many estimates.")
	assert.Contains(t, shown, "Cancel")
	assert.Contains(t, shown, "Plan anyway")
}

// TestPlanExport plans, then exports the curve as PNG and the runs as
// CSV through the panel's buttons, each confirmed.
func TestPlanExport(t *testing.T) {
	w, u := newTestWindow(t)
	settle(t)
	p := u.run.plan
	assert.True(t, p.exportPNG.Disabled(), "nothing to export before a plan")
	p.target.SetText("0.3")
	p.runs.SetText("2")
	p.onPlan()
	settle(t)
	require.NotNil(t, p.last)
	assert.False(t, p.exportPNG.Disabled())
	dir := t.TempDir()
	for _, tc := range []struct {
		tap  func()
		name string
	}{{p.onExportPNG, "plan.png"}, {p.onExportCSV, "plan.csv"}} {
		tc.tap()
		name := filepath.Join(dir, tc.name)
		e := w.Canvas().Focused().(*widget.Entry)
		e.SetText(name)
		e.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
		settle(t)
		st, err := os.Stat(name)
		require.NoError(t, err, tc.name)
		assert.Greater(t, st.Size(), int64(100))
		assert.Contains(t, overlayTexts(w.Canvas().Overlays().Top()), "Wrote "+tc.name)
		w.Canvas().Overlays().Remove(w.Canvas().Overlays().Top())
	}
	b, err := os.ReadFile(filepath.Join(dir, "plan.csv"))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(b), "x,run,error,bound\n200,1,"), string(b[:40]))
	assert.Equal(t, "a b\ncc", wrapWords("a b cc", 3))
}
