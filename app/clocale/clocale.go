// Package clocale maps the POSIX "C" locales to en_US.UTF-8 before Fyne
// reads the locale. Fyne parses LC_ALL, LC_MESSAGES and LANG in the init
// of its lang package; for C.UTF-8, Debian's default and common in
// scripts and containers, it logs "Error parsing user locale C" on
// stderr, noise on the command line. "C" means untranslated English,
// which is what en_US.UTF-8 gives.
//
// main imports this package for its side effect. It imports only os, so
// by the package initialisation order of the Go specification (Go 1.21
// and later: the first ready package by import path) its init runs before
// fyne.io/fyne/v2/lang, which waits for text/template; a test of the
// built binary checks that it does.
package clocale

import "os"

func init() {
	for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if v, ok := os.LookupEnv(k); ok && isPOSIX(v) {
			os.Unsetenv(k)
		}
	}
	if os.Getenv("LC_ALL") == "" && os.Getenv("LC_MESSAGES") == "" && os.Getenv("LANG") == "" {
		os.Setenv("LANG", "en_US.UTF-8")
	}
}

// isPOSIX reports whether v names the C or POSIX locale (C, C.UTF-8, POSIX).
func isPOSIX(v string) bool {
	return v == "C" || v == "POSIX" || len(v) > 2 && v[:2] == "C."
}
