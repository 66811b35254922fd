package gui

import (
	"image/png"
	"os"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/privmap/privmap/core"
)

// TestShotCensus writes a capture of the data tab on a census file named
// by PRIVMAP_SHOT_IN to PRIVMAP_SHOT_OUT, for looking at the screen.
func TestShotCensus(t *testing.T) {
	in, out := os.Getenv("PRIVMAP_SHOT_IN"), os.Getenv("PRIVMAP_SHOT_OUT")
	if in == "" || out == "" {
		t.Skip("PRIVMAP_SHOT_IN and PRIVMAP_SHOT_OUT not set")
	}
	w, d := newTestUI(t)
	b, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	d.load(bytesSource(in, b), false)
	settle(t)
	d.census.col.SetSelected("income")
	test.MoveMouse(w.Canvas(), d.heat.Position().AddXY(d.heat.Size().Width/2, d.heat.Size().Height/2))
	capture(t, w, out)
}

// capture lays w out again, as a frame would after cards were shown (the
// software painter cannot draw the zero-sized rectangles of a card shown
// since the last layout), and writes its picture to out as PNG.
func capture(t *testing.T, w fyne.Window, out string) {
	t.Helper()
	w.Resize(DefaultSize.AddWidthHeight(1, 1))
	w.Resize(DefaultSize)
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, w.Canvas().Capture()); err != nil {
		t.Fatal(err)
	}
}

// TestShotPopulation writes a capture of the population tab to
// PRIVMAP_SHOT_POP.
func TestShotPopulation(t *testing.T) {
	out := os.Getenv("PRIVMAP_SHOT_POP")
	if out == "" {
		t.Skip("PRIVMAP_SHOT_POP not set")
	}
	w, u := newTestWindow(t)
	settle(t)
	u.ws.show(u.pop)
	capture(t, w, out)
}

// TestShotRun writes captures of the run and compare screens after a run
// of GIBU and [INV]_M on the embedded data to PRIVMAP_SHOT_RUN and
// PRIVMAP_SHOT_COMPARE.
func TestShotRun(t *testing.T) {
	runOut, cmpOut := os.Getenv("PRIVMAP_SHOT_RUN"), os.Getenv("PRIVMAP_SHOT_COMPARE")
	if runOut == "" || cmpOut == "" {
		t.Skip("PRIVMAP_SHOT_RUN and PRIVMAP_SHOT_COMPARE not set")
	}
	w, u := newTestWindow(t)
	settle(t)
	u.run.checks[core.MethodINVM].SetChecked(true)
	u.run.onRun()
	settle(t)
	u.ws.show(u.run)
	capture(t, w, runOut)
	u.ws.show(u.cmp)
	h := u.cmp.maps[1]
	capture(t, w, cmpOut+".tmp.png") // places the cells for the hover
	test.MoveMouse(w.Canvas(), h.Position().AddXY(h.Size().Width*0.4, h.Size().Height*0.5))
	capture(t, w, cmpOut)
	os.Remove(cmpOut + ".tmp.png")
}
