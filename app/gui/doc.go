// Package gui is privmap's window: a privacy officer's desk that loads
// check-in or census data, sets the population of mechanisms the users
// choose, simulates their reports and runs the estimators off the UI
// goroutine, compares true and estimated maps, and exports them. It
// receives the fyne.App and fyne.Window from main, so every screen can be
// tested headless with fyne.io/fyne/v2/test.
//
// # Screens
//
// Each screen has a file of its own: data, population, run, compare,
// release, experiments. The Compare and Release screens share their
// three maps (triptych.go). The Experiments and Release screens draw
// their plots in the window's colours (figureview.go).
//
// Every screen implements one interface, screen (screen.go: tab,
// buildUI, shown). It may also implement runner (its own job on
// Ctrl+R), canceller (Ctrl+. and Escape), pngExporter and csvExporter
// (File › Export), and studyMember: the study file's members it owns.
// The Data screen owns the source, the Population screen the alphabet
// and mechanisms, the Run screen the run options. The menus, the tabs
// and their Ctrl+1…6, saving and opening a study all go through the
// list of screens, never a tab's text or index.
//
// # What the screens share
//
// The screens share a workspace (workspace.go). It owns the data set
// shown, the basemap under every map, the population of mechanisms and
// the audits' slots (audits.go). It tells the screens that subscribe
// when the data set, the population or a run's result changes. A
// screen never reaches into another: the Population screen asks the
// Data screen to pick a mechanism's cells through a pickTarget
// (pick.go), not its row.
//
// A data set is check-ins on a grid or a census table (dataset.go).
// What the window asks of either — its alphabet, users, counts, source
// and skipped lines — is one interface both answer. The Data screen
// shows each through its view (gridpanel.go, census.go: one dataView
// interface). The basemap's controls are a panel of their own
// (basemappanel.go).
//
// Widgets and helpers that several screens use live in files of their
// own: widgets.go (bold labels, fixed widths, number entries, the
// scroll wheel's redirect), dialogs.go (file and path dialogs, errors
// with advice), words.go (text cut or wrapped for a label) and prefs.go
// (a stored choice checked against the options).
//
// # Long work
//
// Every long task — a run, an experiment, loading or gridding data, a
// release — is one jobControls (controls.go): Run, Cancel, a progress
// bar and start. Long work runs off the UI goroutine with a
// context.Context and a progress callback. One funnel starts it
// (funnel.go: jobs.Go), and it reaches the widgets only through the
// funnel (jobs.Do, jobs.DoAndWait: fyne.Do in the window). Fyne's test
// driver runs fyne.Do on the calling goroutine. The GUI tests therefore
// queue the jobs' changes and run them on the test goroutine (settle,
// settleUntil): no job touches a widget while a test does, and no test
// sleeps.
//
// The Compare screen's intervals (intervals.go) are a job of their own.
// It starts when a run is shown, if the Run screen's Intervals is
// ticked. It computes each estimate's intervals in turn, the estimate
// shown first, by the method interval.CI.MethodFor chooses
// (interval.Of). Cancel or Ctrl+. stops it; the estimates stay. The
// triptych then draws a fourth map beside the three (triptych.extra):
// each cell's interval half-width, or the estimate on the cells whose
// band excludes 0. Its title names the intervals' method. A second line
// gives the share of the cells with people they held in the coverage
// experiment, on a population like the study's: "95% windowed profile /
// held 98% with people" (interval.CoverageHeld). The hover reads
// "0.012 (0.009–0.016)", TV and EMD carry their bounds, the reading
// says what the intervals claim, and the exports carry the columns and
// the fourth map.
//
// The Run screen's Plan (plan.go; Run › Plan users for an accuracy,
// Ctrl+L) is a job of its own too. It runs plan.Make on the loaded
// truth and population with the first ticked estimator. It answers in
// the plan's sentence and draws its curve (mapplot.PlanPlot). Cancel
// stops it, or a run.
//
// # Adding a screen
//
// Write its file, say ledger.go, with a type that implements screen and
// whichever optional interfaces it needs. Its constructor,
// newLedgerTab(ws *workspace), subscribes to the workspace's changes it
// shows (ws.dataShown, ws.populationChanged, ws.results,
// ws.tiles.onReady). Then add it to the list in newUI (app.go). Its
// tab, its View menu's shortcut, Ctrl+R and Ctrl+. on it, its exports
// and its study members follow.
package gui
