// Package assets embeds privmap's icon and its default data set.
package assets

import _ "embed"

//go:generate go run ./gen -data default_checkins.snap.txt -icon icon.png

// DefaultCheckins is a synthetic Gowalla-style check-in file in SNAP
// format over San Francisco, made by geo.Synthesize with geo.SFSynth and
// seed geo.SFSeed (see ./gen).
// It is not real data: no person's location is in it.
//
//go:embed default_checkins.snap.txt
var DefaultCheckins []byte

// DefaultName is the name the GUI shows for DefaultCheckins.
const DefaultName = "synthetic San Francisco check-ins (embedded)"

// Icon is the application icon, a PNG.
//
//go:embed icon.png
var Icon []byte
