// Package mapplot draws a value per grid cell as a map with gonum/plot:
// cells coloured on a perceptual colour scale, longitude and latitude axes
// at the map's true aspect, and a colour bar. It is free of Fyne, so the
// GUI and the command line draw the same pictures.
//
// # Style and layout
//
// Package mapplot draws every map and figure, for the window and the
// command line alike. A `mapplot.Style` (paper, ink, type size) is the
// only thing that differs: the window passes its theme's background,
// foreground and text size (`app/gui/heatmap.go`, `windowStyle`), so the
// maps' type is as large as the window's and they follow the dark and
// light themes; exported pictures are `mapplot.Print`, black on white.
// Each map keeps its true aspect with its colour bar beside it; latitude
// and longitude ticks name their hemisphere (37.75°N) and are as many as
// fit, up to eight, at a round step at any zoom (`fitTicks`). A
// `Figure` is trimmed to its heading and maps (`Fit`) so that exports
// have no empty bands. In the window the Compare maps stand side by side
// at one size (`app/gui/table.go`, `sideBySide`, from each map's
// `NaturalWidth`): the truth shares the estimate's colour bar and the
// other two the first map's latitude labels, and the screen gives the row
// the height at which the maps fill the width (`fitSplit`), the tables
// below the rest.
package mapplot
