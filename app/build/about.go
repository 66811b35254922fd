package build

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"text/tabwriter"

	"github.com/privmap/privmap/assets"
)

// An Info describes the running build of privmap.
type Info struct {
	// Version is the release (Version); Commit the git revision it was
	// built from ("-dirty" when the tree had changes), Date the commit's
	// time, both "" when not built from a checkout.
	Version, Commit, Date string
	// Go and Fyne are the versions of Go and of the Fyne toolkit linked.
	Go, Fyne string
}

// Read returns the running build's information, from the build
// information Go stamps into every binary.
func Read() Info {
	b := Info{Version: Version, Commit: Commit(), Go: runtime.Version()}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.time" {
			b.Date = s.Value
		}
	}
	for _, d := range info.Deps {
		if d.Path == "fyne.io/fyne/v2" {
			b.Fyne = d.Version
		}
	}
	return b
}

// OSMCredit is the credit OpenStreetMap's tile usage policy asks of a
// map drawn over its tiles.
const OSMCredit = "Map tiles and data © OpenStreetMap contributors: data under the Open Database License (ODbL 1.0), tiles from tile.openstreetmap.org under its tile usage policy; every map over them carries this credit."

// About says what privmap version prints and Help › About shows:
// the build, privmap's own licence, the licence of privmap's own data, OpenStreetMap's credit,
// and each linked module's licence (assets.Licences); ThirdParty holds
// their texts.
func About() string {
	b := Read()
	var w strings.Builder
	fmt.Fprintf(&w, "privmap %s\n", b.Version)
	or := func(s, none string) string {
		if s == "" {
			return none
		}
		return s
	}
	fmt.Fprintf(&w, "commit:  %s\n", or(b.Commit, "unknown (not built from a git checkout)"))
	date := "unknown"
	if b.Date != "" {
		date = b.Date + " (when the commit was made)"
	}
	fmt.Fprintf(&w, "date:    %s\n", date)
	fmt.Fprintf(&w, "Go:      %s\n", b.Go)
	fmt.Fprintf(&w, "Fyne:    %s\n", or(b.Fyne, "not linked"))
	fmt.Fprintf(&w, "\nLicence: privmap is free software under the BSD 3-Clause licence (%s): you may use, copy, change and share it, keeping its copyright notice; it comes without any warranty. privmap version -licences prints its text.\n", assets.LicenceID)
	w.WriteString("\nData: the embedded check-ins are synthetic (made by privmap's generator; no person's location is in them) and the embedded census rows are the first 99 of UCI's US Census 1990 (Meek, Thiesson and Heckerman, CC BY 4.0).\n")
	w.WriteString(OSMCredit + "\n")
	w.WriteString("\nLinked modules and their licences (privmap version -licences prints their texts):\n")
	tw := tabwriter.NewWriter(&w, 0, 4, 2, ' ', 0)
	for i, line := range strings.Split(strings.TrimSpace(assets.Licences), "\n") {
		f := strings.Split(line, "\t")
		if i == 0 || len(f) != 3 {
			continue // the header
		}
		if i == 1 { // Go's own line: the version running, not the one generated with
			f[1] = b.Go
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", f[0], f[1], f[2])
	}
	tw.Flush()
	return w.String()
}

// Commit returns the commit privmap was built from, with "-dirty" when
// its tree had changes, or "" when the build did not record it.
func Commit() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var rev string
	dirty := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" && dirty {
		rev += "-dirty"
	}
	return rev
}
