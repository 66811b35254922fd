package gui

import (
	"context"
	"image"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/privmap/privmap/app/experiment"
)

// pickExperiment chooses the experiment called name in x's picker, as a
// person would by its label.
func pickExperiment(t *testing.T, x *experimentsTab, name string) {
	t.Helper()
	e, err := experiment.Lookup(name)
	require.NoError(t, err)
	x.name.SetSelected(experimentLabel(e))
	require.Equal(t, experimentLabel(e), x.name.Selected)
}

// TestExperimentRun runs FW Fig. 3 at tiny settings on the Experiments
// screen: a tab of figures for its panel and the summary, with the
// runs' means; exported, the folder holds what privmap experiment
// writes, the same runs.csv as the command's for the same settings.
func TestExperimentRun(t *testing.T) {
	w, u := newTestWindow(t)
	x := u.exp
	u.ws.show(u.exp)
	pickExperiment(t, x, "fw-fig3")
	assert.False(t, x.users.Disabled())
	assert.Contains(t, x.about.Text, "FW Fig. 3")
	assert.Contains(t, x.about.Text, "E. ElSalamouny and C. Palamidessi, “Reconstruction of the distribution of sensitive data under free-will privacy”, arXiv:2208.11268, 2022")
	assert.Equal(t, "fw-fig3 · FW Fig. 3: [INV]_R, [IBU]_R and…", x.name.Selected)
	x.runs.SetText("2")
	x.users.SetText("200, 500")
	x.seed.SetText("7")
	x.onRun()
	settle(t)
	require.NotNil(t, x.last)
	assert.True(t, x.last.complete)
	assert.True(t, strings.HasPrefix(x.status.Text, "Ran 4 runs in "), x.status.Text)
	require.Len(t, x.results.Items, 2)
	assert.Equal(t, "Summary", x.results.Items[1].Text)
	// 2 users × 2 runs × 4 estimators.
	assert.Len(t, x.last.rows, 16)

	// The figure draws at its size in the window's colours.
	cv, ok := x.results.Items[0].Content.(*figureView)
	require.True(t, ok)
	cv.Resize(fyne.NewSize(600, 300))
	img := cv.draw(600, 300)
	assert.Equal(t, image.Rect(0, 0, 600, 300), img.Bounds())
	r, g, b, _ := img.At(2, 2).RGBA()
	br, bg, bb, _ := windowStyle().Paper.RGBA()
	assert.Equal(t, [3]uint32{br, bg, bb}, [3]uint32{r, g, b}, "the chart's paper is the window's background")

	dir := t.TempDir()
	require.NoError(t, x.write(dir, x.last))
	for _, f := range []string{"runs.csv", "summary.md", "fw-fig3-a.png", "fw-fig3-a.svg"} {
		st, err := os.Stat(filepath.Join(dir, f))
		if assert.NoError(t, err, f) {
			assert.NotZero(t, st.Size(), f)
		}
	}
	// The command line's runs.csv for the same settings.
	e, _ := experiment.Lookup("fw-fig3")
	panels, err := e.Panels(nil, []int{200, 500})
	require.NoError(t, err)
	cli := t.TempDir()
	_, _, err = experiment.RunDir(context.Background(), e, panels, nil, experiment.Options{Runs: 2, Seed: 7}, cli)
	require.NoError(t, err)
	want, _ := os.ReadFile(filepath.Join(cli, "runs.csv"))
	got, _ := os.ReadFile(filepath.Join(dir, "runs.csv"))
	assert.Equal(t, string(want), string(got))
	assert.Nil(t, w.Canvas().Overlays().Top(), "no error dialog")
}

// TestExperimentEntries checks the entries are read as privmap
// experiment reads its flags: Users is disabled where the paper fixes
// the users, takes one number where the x-axis is not the users, and
// bad entries stop the run with a message.
func TestExperimentEntries(t *testing.T) {
	_, u := newTestWindow(t)
	x := u.exp
	pickExperiment(t, x, "cem-fig5")
	assert.True(t, x.users.Disabled())
	pickExperiment(t, x, "uldp-tv")
	assert.False(t, x.users.Disabled())
	assert.Equal(t, "one number: the x-axis is not the users", x.form.Items[2].HintText)
	x.users.SetText("100,200")
	_, _, _, err := x.request()
	assert.ErrorContains(t, err, "uldp-tv takes one number of users")
	x.users.SetText("0")
	_, _, _, err = x.request()
	assert.ErrorContains(t, err, "numbers of users from 1")
	x.users.SetText("")
	x.runs.SetText("20000")
	_, _, _, err = x.request()
	assert.ErrorContains(t, err, "at most 10,000")
	x.runs.SetText("")
	e, opt, users, err := x.request()
	require.NoError(t, err)
	assert.Equal(t, "uldp-tv", e.Name)
	assert.Equal(t, e.Runs, opt.Runs)
	assert.Equal(t, uint64(1), opt.Seed)
	assert.Nil(t, users)
}

// TestExperimentCancel cancels an experiment after its first run: the
// screen keeps and shows that run, says how many finished, and refuses
// to export an incomplete experiment.
func TestExperimentCancel(t *testing.T) {
	w, u := newTestWindow(t)
	x := u.exp
	pickExperiment(t, x, "fw-fig3")
	x.runs.SetText("3")
	x.users.SetText("100")
	started := make(chan struct{})
	x.run = func(ctx context.Context, e *experiment.Experiment, panels []experiment.Panel, opt experiment.Options) error {
		// One run finishes, then the experiment waits for Cancel.
		one := opt
		one.Runs = 1
		if err := experiment.Run(ctx, e, panels, one); err != nil {
			return err
		}
		close(started)
		<-ctx.Done()
		return ctx.Err()
	}
	x.onRun()
	<-started
	assert.True(t, x.running)
	u.onCancel() // Escape
	settle(t)
	assert.False(t, x.running)
	require.NotNil(t, x.last)
	assert.False(t, x.last.complete)
	assert.Equal(t, "Cancelled after 1 of 3 runs; the figures show those. Run again to finish.", x.status.Text)
	assert.Len(t, x.results.Items, 2)
	// Export says why it cannot, rather than opening the folder dialog.
	x.onExport()
	top := w.Canvas().Overlays().Top()
	require.NotNil(t, top)
	assert.Contains(t, overlayTexts(top), "cancelled before its last run")
}

// TestExperimentTab checks the screen is in the window and Ctrl+5 shows
// it.
func TestExperimentTab(t *testing.T) {
	w, u := newTestWindow(t)
	i := slices.Index(u.screens, screen(u.exp))
	require.Equal(t, "Experiments", u.tabs.Items[i].Text)
	_, ok := u.tabs.Items[i].Content.(*container.Split)
	assert.True(t, ok)
	for _, c := range u.commands()["View"] {
		if c.label == "Experiments" {
			c.action()
		}
	}
	assert.Equal(t, screen(u.exp), u.ws.current())
	assert.Nil(t, w.Canvas().Overlays().Top())
}
