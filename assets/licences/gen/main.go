// Command gen writes the licences of the modules linked into privmap
// (go list -deps of the main package): modules.tsv, each module's path,
// version and licence (SPDX, told from its licence file's text), and
// THIRD_PARTY.txt, every licence file in full, as the binary's About
// and the packages ship them. Run by go generate ./assets.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

func main() {
	dir := flag.String("o", "licences", "folder to write modules.tsv and THIRD_PARTY.txt in")
	flag.Parse()
	out, err := exec.Command("go", "list", "-deps", "-f", "{{with .Module}}{{if not .Main}}{{.Path}}\t{{.Version}}\t{{.Dir}}{{end}}{{end}}", "..").Output()
	if err != nil {
		log.Fatalf("go list: %v", err)
	}
	lines := slices.Compact(slices.Sorted(slices.Values(strings.Split(strings.TrimSpace(string(out)), "\n"))))
	// Go's runtime and standard library are linked too.
	goroot, err := exec.Command("go", "env", "GOROOT", "GOVERSION").Output()
	if err != nil {
		log.Fatalf("go env: %v", err)
	}
	env := strings.Fields(string(goroot))
	lines = append([]string{"go (runtime and standard library)\t" + env[1] + "\t" + env[0]}, lines...)
	var tsv, texts bytes.Buffer
	fmt.Fprintln(&tsv, "module\tversion\tlicence")
	for _, l := range lines {
		f := strings.Split(l, "\t")
		path, version, modDir := f[0], f[1], f[2]
		files, err := licenceTexts(modDir)
		if err != nil {
			log.Fatalf("%s: %v", path, err)
		}
		var ids []string
		for i, text := range files {
			id := classify(text)
			switch {
			case id == "" && i == 0:
				log.Fatalf("%s: licence not recognised; add its form to classify", path)
			case id != "" && !slices.Contains(ids, id):
				// A further file unrecognised (modernc.org/sqlite's
				// account of its third parties) is shipped as it is.
				ids = append(ids, id)
			}
		}
		spdx := strings.Join(ids, " AND ")
		fmt.Fprintf(&tsv, "%s\t%s\t%s\n", path, version, spdx)
		fmt.Fprintf(&texts, "==== %s %s (%s) ====\n\n%s\n\n", path, version, spdx, strings.TrimSpace(strings.Join(files, "\n\n")))
	}
	if err := os.WriteFile(filepath.Join(*dir, "modules.tsv"), tsv.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(*dir, "THIRD_PARTY.txt"), texts.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}

// licenceTexts reads a module's licence files (LICENSE, LICENCE,
// COPYING, with or without a suffix: the Liberation fonts' module has
// its code's and its fonts' licences), in name order, so that the main
// one (the shortest name) comes first.
func licenceTexts(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var texts []string
	for _, e := range entries {
		name := strings.ToUpper(e.Name())
		if e.IsDir() || !(strings.HasPrefix(name, "LICENSE") || strings.HasPrefix(name, "LICENCE") || strings.HasPrefix(name, "COPYING")) ||
			strings.Contains(name, "LOGO") { // a logo's, which is not linked
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		// A licence that points to the texts it offers a choice of
		// (Freetype-Go's: the FreeType License, which privmap takes, or
		// the GPL) gets the one taken appended.
		if bytes.Contains(b, []byte("licenses/ftl.txt")) {
			ftl, err := os.ReadFile(filepath.Join(dir, "licenses", "ftl.txt"))
			if err != nil {
				return nil, err
			}
			b = append(append(b, "\n\n"...), ftl...)
		}
		texts = append(texts, string(b))
	}
	if len(texts) == 0 {
		return nil, fmt.Errorf("no licence file in %s", dir)
	}
	return texts, nil
}

// licenceForms tells a licence by phrases of its text: every phrase of
// all, and one of any when any is given; the first form that matches
// wins, so that a dual licence and the longer texts come first.
var licenceForms = []struct {
	id       string
	all, any []string
}{
	{"FTL OR GPL-2.0-or-later", []string{"subject to your choice of exactly one of", "The FreeType License"}, nil},
	{"Apache-2.0", []string{"Apache License", "Version 2.0"}, nil},
	{"MPL-2.0", nil, []string{"Mozilla Public License Version 2.0", "Mozilla Public License, version 2.0"}},
	{"OFL-1.1", nil, []string{"SIL OPEN FONT LICENSE", "SIL Open Font License"}},
	{"MIT", []string{"Permission is hereby granted, free of charge"}, nil},
	{"ISC", nil, []string{"Permission to use, copy, modify, and/or distribute", "Permission to use, copy, modify, and distribute this software for any purpose"}},
	{"BSD-3-Clause", []string{"Redistribution and use in source and binary forms"}, []string{"Neither the name", "may be used to endorse or promote"}},
	{"BSD-2-Clause", []string{"Redistribution and use in source and binary forms"}, nil},
	{"FTL", []string{"The FreeType Project LICENSE"}, nil},
	{"CC-BY-4.0", []string{"Creative Commons Attribution 4.0 International"}, nil},
	{"blessing", []string{"SQLite Is Public Domain"}, nil},
	{"Unlicense", nil, []string{"This is free and unencumbered software released into the public domain"}},
}

// classify tells a licence's SPDX identifier from its text, "" when no
// form matches.
func classify(text string) string {
	t := strings.Join(strings.Fields(text), " ")
	has := func(s string) bool { return strings.Contains(t, s) }
	for _, f := range licenceForms {
		if !slices.ContainsFunc(f.all, func(s string) bool { return !has(s) }) && (f.any == nil || slices.ContainsFunc(f.any, has)) {
			return f.id
		}
	}
	return ""
}
