// Package testtool finds the field's own programs that tests check
// privmap's files with (GDAL's for GIS layers, Poppler's for PDFs).
package testtool

import (
	"os"
	"os/exec"
	"testing"
)

// Need returns the path of program name, from Debian's package pkg. When
// it is absent the test is skipped, saying why — but fails under CI
// (CI set), which installs pkg (make deps): a check of CI never skips.
func Need(t testing.TB, name, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not installed; CI installs Debian's %s (make deps)", name, pkg)
		}
		t.Skipf("%s is not installed (Debian's %s): the test checks privmap's files with the field's own tools", name, pkg)
	}
	return p
}
