// Package assets embeds privmap's icon and its default data set.
package assets

import _ "embed"

//go:generate go run ./gen -data default_checkins.snap.txt -icon icon.png
//go:generate go run ./licences/gen -o licences

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

// Census1990Head is the head of UCI's US Census 1990 file
// (USCensus1990.data.txt; Meek, Thiesson and Heckerman, CC BY 4.0): its
// first 99 records, reduced to caseid and the four recoded columns of CEM
// Table 2 (dAge, iSex, dIncome1, iMarital). The census experiments use it
// when no file is given, as a stand-in for the whole 2,458,285 people.
//
//go:embed census1990_head.csv
var Census1990Head []byte

// Census1990HeadName names Census1990Head.
const Census1990HeadName = "the first 99 records of US Census 1990 (embedded)"

// Licences lists the modules linked into privmap, Go's runtime first:
// a header line, then each module's path, version and licence (SPDX),
// tab-separated (./licences/gen, from go list -deps).
//
//go:embed licences/modules.tsv
var Licences string

// Licence is privmap's own licence, the BSD 3-Clause licence, as the
// repository's LICENSE holds it (licences/LICENSE is its copy, which
// TestLicenceCopy keeps equal): go:embed reads no file above its
// package.
//
//go:embed licences/LICENSE
var Licence string

// LicenceID is Licence's SPDX identifier.
const LicenceID = "BSD-3-Clause"

// ThirdParty holds every linked module's licence files in full, as the
// packages ship them and privmap version -licences prints them.
//
//go:embed licences/THIRD_PARTY.txt
var ThirdParty string
