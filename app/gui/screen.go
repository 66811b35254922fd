package gui

import (
	"errors"

	"fyne.io/fyne/v2"

	"github.com/privmap/privmap/app/studyfile"
)

// A screen is one tab of the window. It is made from the workspace it
// shares with the others, builds its content once, and is told when its
// tab is shown. Adding a screen is a file that implements screen (and
// any of the interfaces below) and one line in newUI's list
// (docs/ARCHITECTURE.md, "Adding to privmap").
type screen interface {
	// tab returns the tab's title and icon; the View menu's shortcut is
	// Ctrl and the tab's position.
	tab() (title string, icon fyne.Resource)
	// buildUI makes the screen's content; newUI calls it once.
	buildUI() fyne.CanvasObject
	// shown brings the screen up to date as its tab is selected.
	shown()
}

// What a screen may do besides; the window's menu and shortcuts find
// these on the screen shown, or on every screen.
type (
	// A runner starts the screen's own long job from Run › Run (Ctrl+R);
	// on a screen without one, Ctrl+R shows the Run screen and runs the
	// estimators.
	runner interface{ onRun() }
	// A canceller stops the screen's jobs: Run › Cancel (Ctrl+. or
	// Escape) stops every screen's.
	canceller interface{ onCancel() }
	// A pngExporter and a csvExporter export what the screen shows, from
	// File › Export PNG… and Export CSV…; elsewhere these export the
	// compared maps.
	pngExporter interface{ onExportPNG() }
	csvExporter interface{ onExportCSV() }
	// A studyMember owns members of the study file: it writes them into
	// a study being saved (putStudy) and applies them from a study
	// opened (takeStudy), once the study's data are shown.
	studyMember interface {
		putStudy(s *studyfile.Study) error
		takeStudy(s *studyfile.Study)
	}
)

// errNoPopulation is the workspace's population before the Population
// screen gives one.
var errNoPopulation = errors.New("no population of mechanisms yet")
