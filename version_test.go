package main

import (
	"encoding/xml"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/privmap/privmap/app/build"
)

// TestOneVersion checks that every place a release's version is written
// says build.Version: FyneApp.toml, the AppStream metainfo's latest release
// and the Debian changelog's latest entry, which make package ships.
func TestOneVersion(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	toml := regexp.MustCompile(`(?m)^Version = "([^"]*)"`).FindStringSubmatch(read("FyneApp.toml"))
	if toml == nil || toml[1] != build.Version {
		t.Errorf("FyneApp.toml's Version: %q, build.Version %q", toml, build.Version)
	}
	var meta struct {
		ID       string `xml:"id"`
		Releases []struct {
			Version string `xml:"version,attr"`
			Date    string `xml:"date,attr"`
		} `xml:"releases>release"`
	}
	if err := xml.Unmarshal([]byte(read("assets/packaging/io.github.privmap.metainfo.xml")), &meta); err != nil {
		t.Fatal(err)
	}
	if len(meta.Releases) == 0 || meta.Releases[0].Version != build.Version {
		t.Errorf("metainfo's latest release %+v, build.Version %q", meta.Releases, build.Version)
	}
	if meta.ID != "io.github.privmap" { // main's fyneapp.NewWithID: the preferences' folder
		t.Errorf("metainfo's id %q", meta.ID)
	}
	deb := regexp.MustCompile(`^privmap \(([^)]*)\) `).FindStringSubmatch(read("assets/packaging/changelog"))
	if deb == nil || deb[1] != build.Version {
		t.Errorf("the Debian changelog's latest entry %q, build.Version %q", deb, build.Version)
	}
}

// TestLicenceEverywhere: the .deb's copyright file carries LICENSE's
// text under its SPDX name, and the AppStream metainfo names it as the
// project's licence.
func TestLicenceEverywhere(t *testing.T) {
	lic, err := os.ReadFile("LICENSE")
	if err != nil {
		t.Fatal(err)
	}
	cp, err := os.ReadFile("assets/packaging/copyright")
	if err != nil {
		t.Fatal(err)
	}
	_, body, ok := strings.Cut(string(cp), "License: BSD-3-Clause\n")
	var text []string
	for _, l := range strings.Split(strings.TrimRight(body, "\n"), "\n") {
		if l == " ." {
			l = ""
		}
		text = append(text, strings.TrimPrefix(l, " "))
	}
	if !ok || strings.Join(text, "\n")+"\n" != string(lic) {
		t.Error("assets/packaging/copyright does not carry LICENSE's text under License: BSD-3-Clause")
	}
	meta, err := os.ReadFile("assets/packaging/io.github.privmap.metainfo.xml")
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		ProjectLicense string `xml:"project_license"`
	}
	if err := xml.Unmarshal(meta, &c); err != nil || c.ProjectLicense != "BSD-3-Clause" {
		t.Errorf("metainfo project_license %q, %v", c.ProjectLicense, err)
	}
}
