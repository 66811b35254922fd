package gui

import (
	"context"
	"errors"
	"fmt"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// jobControls are a screen's long job — every screen's: a run, an
// experiment, loading data, a release — with its Run and Cancel buttons
// and its progress bar: Run (and the widgets in holds) is enabled while
// the job is idle, Cancel while it runs, and the bar shows a percentage
// only then (an idle "0 %" reads as a job stuck). A screen starts its job
// with start; Cancel, Ctrl+. and Escape stop it. A control the screen
// does not show is nil.
type jobControls struct {
	runBtn, cancelBtn *widget.Button
	bar               *widget.ProgressBar
	cancel            context.CancelFunc
	running           bool
	// holds are more widgets disabled while the job runs.
	holds []fyne.Disableable
	// barBox holds the bar when busyBar made it: shown only while the
	// job runs (Fyne draws an idle bar's track as a blue bar).
	barBox *fyne.Container
	// onRunning, when set, is called as the job starts and stops.
	onRunning func(bool)
}

// newJobControls returns the controls, Run calling run.
func newJobControls(run func()) jobControls {
	c := jobControls{
		runBtn: &widget.Button{Text: "Run", Icon: theme.MediaPlayIcon(), Importance: widget.HighImportance, OnTapped: run},
		bar:    widget.NewProgressBar(),
	}
	c.cancelBtn = &widget.Button{Text: "Cancel", Icon: theme.CancelIcon()}
	c.cancelBtn.Disable()
	return c
}

// bind finishes the controls once they have their final address: Cancel
// cancels, and the bar's text reads running.
func (c *jobControls) bind() {
	if c.cancelBtn != nil {
		c.cancelBtn.OnTapped = c.onCancel
		c.cancelBtn.Disable()
	}
	if c.bar == nil {
		return
	}
	c.bar.TextFormatter = func() string {
		if !c.running {
			return ""
		}
		return fmt.Sprintf("%.0f %%", 100*c.bar.Value)
	}
}

// begin marks the job running, cancelled by cancel.
func (c *jobControls) begin(cancel context.CancelFunc) {
	c.cancel = cancel
	c.setRunning(true)
}

func (c *jobControls) setRunning(on bool) {
	c.running = on
	for _, w := range c.widgets() {
		if on {
			w.Disable()
		} else {
			w.Enable()
		}
	}
	if c.cancelBtn != nil {
		if on {
			c.cancelBtn.Enable()
		} else {
			c.cancelBtn.Disable()
		}
	}
	if c.bar != nil {
		if on {
			c.bar.SetValue(0)
		}
		c.bar.Refresh() // its text depends on running
	}
	if c.onRunning != nil {
		c.onRunning(on)
	}
}

// busyBar returns box, which holds the bar, shown only while the job
// runs: idle, a bar reads as a job stuck or done. It takes onRunning.
func (c *jobControls) busyBar(box *fyne.Container) *fyne.Container {
	c.barBox = box
	box.Hide()
	c.onRunning = func(on bool) {
		if on {
			box.Show()
		} else {
			box.Hide()
		}
	}
	return box
}

// widgets returns Run and the holds.
func (c *jobControls) widgets() []fyne.Disableable {
	if c.runBtn == nil {
		return c.holds
	}
	return append([]fyne.Disableable{c.runBtn}, c.holds...)
}

// start runs work off the UI goroutine (through the funnel, jobs.Go)
// under a context, a child of parent, that Cancel cancels, with the
// controls running; the function work returns then runs on the UI
// goroutine with the controls idle again. It reports false, starting
// nothing, while the job runs.
func (c *jobControls) start(parent context.Context, work func(ctx context.Context) (done func())) bool {
	if c.running {
		return false
	}
	ctx, cancel := context.WithCancel(parent)
	c.begin(cancel)
	jobs.Go(func() {
		defer cancel()
		done := work(ctx)
		jobs.DoAndWait(func() {
			c.setRunning(false)
			done()
		})
	})
	return true
}

// progress returns a callback that sets the bar from any goroutine.
func (c *jobControls) progress() func(float64) {
	return func(f float64) { jobs.Do(func() { c.bar.SetValue(f) }) }
}

// timeLeft returns a progress callback for the job, callable from any
// goroutine: it sets the bar, and once a second at most writes on status
// what status read when timeLeft was called, then the percentage done and
// the time left at the pace so far. While shown, when not nil, reports
// false the status is left alone; after, when not nil, runs after each
// change of it.
func (c *jobControls) timeLeft(status *widget.Label, shown func() bool, after func()) func(float64) {
	started, head := time.Now(), status.Text
	var last time.Time
	return func(f float64) {
		jobs.Do(func() {
			c.bar.SetValue(f)
			if f <= 0 || f >= 1 || time.Since(last) < time.Second || shown != nil && !shown() {
				return
			}
			last = time.Now()
			left := time.Duration(float64(time.Since(started)) * (1 - f) / f).Round(time.Second)
			status.SetText(fmt.Sprintf("%s %.0f %%, about %s left.", head, 100*f, left))
			if after != nil {
				after()
			}
		})
	}
}

// onCancel stops the job.
func (c *jobControls) onCancel() {
	if c.cancel != nil {
		c.cancel()
	}
}

// stopped reports a job that ended with err: the bar back at 0, status
// saying cancelled or failed, and a failure's error in a dialog on w
// with hint, what to do. It returns false, doing nothing, when err is
// nil.
func (c *jobControls) stopped(w fyne.Window, status *widget.Label, err error, cancelled, failed, hint string) bool {
	if err == nil {
		return false
	}
	if c.bar != nil {
		c.bar.SetValue(0)
	}
	if errors.Is(err, context.Canceled) {
		status.SetText(cancelled)
		return true
	}
	status.SetText(failed)
	showError(w, err, hint)
	return true
}
