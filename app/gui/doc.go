// Package gui is privmap's window: a privacy officer's desk that loads
// check-in or census data, sets the population of mechanisms the users
// choose, simulates their reports and runs the estimators off the UI
// goroutine, compares true and estimated maps, and exports them. It
// receives the fyne.App and fyne.Window from main, so every screen can be
// tested headless with fyne.io/fyne/v2/test.
//
// # Screens, jobs and the workspace
//
// The window has one file per screen (data, population, run,
// compare, release, experiments; the Compare and Release screens share
// their three maps, `triptych.go`; the Experiments and Release screens
// draw their plots in the window's colours with `figureview.go`),
// receiving the `fyne.App` and `fyne.Window` from `main.go` so that
// every screen tests headless with Fyne's `test` driver. Every screen
// implements one interface (`screen.go`: `tab`, `buildUI`, `shown`),
// and any of `runner` (its own job on Ctrl+R), `canceller` (Ctrl+.,
// Escape), `pngExporter`, `csvExporter` (File › Export) and
// `studyMember` (the study file's members it owns: the Data screen the
// `source`, the Population screen the alphabet and mechanisms, the Run
// screen the `run` options); the menus, the tabs and their Ctrl+1…6,
// saving and opening a study go through the list of screens, never a
// tab's text or index. The Compare screen's intervals
// (`intervals.go`) are a job of their own that starts when a run is
// shown, if the Run screen's Intervals is ticked, and computes each
// estimate's in turn by the method `interval.CI.MethodFor` chooses
// (`interval.Of`; the estimate shown first; Cancel
// or Ctrl+. stops it, the estimates stay); the triptych then draws a
// fourth map beside the three (`triptych.extra`: each cell's interval
// half-width, or the estimate on the cells whose band excludes 0; its
// title names the intervals' method and, on a second line, the share
// of the cells with people they held in the coverage experiment on a
// population like the study's: "95% windowed profile / held 98% with
// people", `interval.CoverageHeld`; the scale's label carries the ±), the
// hover reads "0.012 (0.009–0.016)", TV and EMD carry their bounds, the
// reading says what the intervals claim, and the exports carry the
// columns and the fourth map. The Run screen's Plan (`plan.go`,
// Run › Plan users for an accuracy, Ctrl+L) is a job of its own
// (`plan.Make` on the loaded truth and population with the first
// ticked estimator), answering in the plan's sentence and drawing its
// curve (`mapplot.PlanPlot`); Cancel stops it or a run. The screens share a workspace (`workspace.go`)
// that owns the data set shown, the basemap under every map, the
// population of mechanisms and the audits' slots, and tells the screens
// that subscribe when the data set, the population or a run's result
// changes; a screen never reaches into another. A data set is check-ins
// on a grid or a census table (`dataset.go`): what the window asks of
// either (its alphabet, users, counts, source, skipped lines) is one
// interface both answer, and the Data screen shows each through its
// view (`gridpanel.go`, `census.go`: one `dataView` interface), with the
// basemap's controls in a panel of their own (`basemappanel.go`). Every
// long task — a run, an experiment, loading or gridding data, a release
// — is one `jobControls` (`controls.go`: Run, Cancel, a progress bar,
// `start`). Long work runs off the UI goroutine with a
// `context.Context` and a progress callback, started by one funnel
// (`funnel.go`: `jobs.Go`), and reaches the widgets only through it
// (`jobs.Do`, `jobs.DoAndWait`: `fyne.Do` in the window). Fyne's test
// driver runs `fyne.Do` on the calling goroutine, so the GUI tests
// queue the jobs' changes and run them on the test goroutine (`settle`,
// `settleUntil`): no job touches a widget while a test does, and no
// test sleeps.
//
// *Adding a screen*: write its file, say `app/gui/ledger.go`, with a
// type that implements `screen` (and whichever optional interfaces it
// needs) and a constructor `newLedgerTab(ws *workspace)` that subscribes
// to the workspace's changes it shows (`ws.dataShown`,
// `ws.populationChanged`, `ws.results`, `ws.tiles.onReady`), then add it
// to the list in `newUI` (`app.go`). Its tab, its View-menu shortcut,
// Ctrl+R and Ctrl+. on it, its exports and its study members follow.
package gui
