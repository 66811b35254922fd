package gui

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/privmap/privmap/app/human"
	"github.com/privmap/privmap/app/output"
	"github.com/privmap/privmap/geo"
)

// prefWelcomed is set once the welcome panel was shown: it opens by
// itself on the first start only (Help › Welcome shows it again).
const prefWelcomed = "welcome.shown"

// welcomeText says what privmap does, in three sentences.
const welcomeText = "privmap shows what a data collector can still learn when every person blurs their own location or survey answer on their own device, with a privacy mechanism and a privacy level (ε) of their own choosing. " +
	"You choose the mechanisms and ε the population will use; privmap simulates the people's reports, rebuilds the map or table from those reports alone and compares it with the truth. " +
	"Each guarantee says what one person risks, each interval is checked against the truth, and every result exports as a figure, CSV, GIS layer or a report to file."

// readme is where the README's sections are read online.
const readme = "https://github.com/privmap/privmap#"

// nycSampleName is the file the New York sample is written to, in the
// app's storage folder.
const nycSampleName = "nyc-like-sample.snap.txt"

// showWelcome shows the welcome panel: what privmap does, the data to
// start with (the embedded data, a generated New York–like sample, a file
// of one's own) and links to the README's sections.
func (u *ui) showWelcome() {
	u.app.Preferences().SetBool(prefWelcomed, true)
	text := widget.NewLabel(welcomeText)
	text.Wrapping = fyne.TextWrapWord
	var d *dialog.CustomDialog
	// The three ways to start, as a form: the buttons one width, each
	// with what it opens beside it.
	choices := container.New(layout.NewFormLayout())
	choice := func(label, hint string, icon fyne.Resource, tapped func()) {
		b := &widget.Button{Text: label, Icon: icon, Alignment: widget.ButtonAlignLeading, OnTapped: func() { d.Hide(); tapped() }}
		h := widget.NewLabel(hint)
		h.Wrapping = fyne.TextWrapWord
		choices.Add(b)
		choices.Add(h)
	}
	choice("Explore the embedded data", fmt.Sprintf("%s made-up people's check-ins around San Francisco's neighbourhoods, already on the Data screen", human.Thousands(geo.SFSynth.Users)), theme.HomeIcon(), func() { u.ws.show(u.data) })
	choice("Make a New York–like sample", fmt.Sprintf("%s made-up people with about %s check-ins over New York's neighbourhoods, made by privmap's generator — the size of Gowalla's New York file", human.Thousands(geo.NYCSynth.Users), human.Thousands(int(float64(geo.NYCSynth.Users)*geo.NYCSynth.MeanCheckins))), theme.ContentAddIcon(), u.openNYCSample)
	choice("Open your own file…", "check-ins (CSV, SNAP, GeoJSON, GeoParquet, Excel…) or a census table (UCI Adult, US Census 1990); nothing leaves this computer", theme.FolderOpenIcon(), u.data.onOpen)
	links := container.NewHBox(widget.NewLabel("Read more:"))
	for _, l := range []struct{ text, anchor string }{
		{"Install", "install"}, {"Using the window", "using-the-gui"}, {"Command line", "command-line"}, {"Data formats", "data-formats"},
	} {
		if link, err := url.Parse(readme + l.anchor); err == nil {
			links.Add(widget.NewHyperlink(l.text, link))
		}
	}
	content := container.NewVBox(text, widget.NewSeparator(), widget.NewLabelWithStyle("Start with", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		choices, widget.NewSeparator(), links)
	d = dialog.NewCustom("Welcome to privmap", "Close", content, u.win)
	size := u.win.Canvas().Size()
	d.Resize(fyne.NewSize(min(760, max(520, size.Width-80)), 0))
	u.welcome = d
	d.SetOnClosed(func() { u.welcome = nil })
	d.Show()
}

// openNYCSample writes the New York–like sample (geo.NewYork, seeded, so
// the same file every time) to the app's storage folder, unless it is
// there, and opens it as a data file.
func (u *ui) openNYCSample() {
	dir := os.TempDir()
	if root := u.app.Storage().RootURI(); root != nil && root.Scheme() == "file" {
		dir = root.Path()
	}
	path := filepath.Join(dir, nycSampleName)
	jobs.Go(func() {
		err := writeNYCSample(u.ws.ctx, path)
		jobs.Do(func() {
			if err != nil {
				showError(u.win, err, "The sample could not be written; the data shown are unchanged.")
				return
			}
			u.ws.show(u.data)
			u.data.openFile(uriSource(storage.NewFileURI(path)))
		})
	})
}

// writeNYCSample writes the sample to path atomically, if not there.
func writeNYCSample(ctx context.Context, path string) error {
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	cs := geo.Synthesize(rand.New(rand.NewPCG(geo.NYCSeed[0], geo.NYCSeed[1])), geo.NewYork, geo.NYCSynth)
	var b output.Batch
	b.Add(path, func(w io.Writer) error { return geo.WriteSNAP(w, cs) })
	return b.Commit(ctx)
}
