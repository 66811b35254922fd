package gui

import (
	"context"
	"errors"
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// jobControls are a long job's Run and Cancel buttons and its progress
// bar, the Run and Experiments screens': Run is enabled while the job is
// idle, Cancel while it runs, and the bar shows a percentage only then
// (an idle "0 %" reads as a job stuck).
type jobControls struct {
	runBtn, cancelBtn *widget.Button
	bar               *widget.ProgressBar
	cancel            context.CancelFunc
	running           bool
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
	c.cancelBtn.OnTapped = c.onCancel
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
	defer c.bar.Refresh() // its text depends on running
	if on {
		c.runBtn.Disable()
		c.cancelBtn.Enable()
		c.bar.SetValue(0)
		return
	}
	c.runBtn.Enable()
	c.cancelBtn.Disable()
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
	c.bar.SetValue(0)
	if errors.Is(err, context.Canceled) {
		status.SetText(cancelled)
		return true
	}
	status.SetText(failed)
	showError(w, err, hint)
	return true
}
