// Package app is privmap's application layer, shared by its two front
// ends: the window (package app/gui) and the command line (package
// app/cli). It holds what both need and neither should own:
//
//   - study files with the members the application adds to core's
//     format, the data source and the run settings (Study, Source,
//     RunSettings; study.go);
//   - the one simulate → estimate → metrics pipeline, with its seeding,
//     its progress and its cancellation (Run, BuildMechanisms, Sanitise;
//     pipeline.go);
//   - the one atomic file writer (WriteFile; files.go).
//
// It imports core and nothing of Fyne, so that the command line builds
// and tests without a display. docs/ARCHITECTURE.md draws the layers and
// the arrows allowed between them.
package app
