package cli

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/privmap/privmap/assets"
)

// TestVersion prints the build, OpenStreetMap's credit and the linked
// modules' licences; -licences adds their texts; an argument is refused.
func TestVersion(t *testing.T) {
	code, out, errs := run("version")
	if code != 0 || errs != "" {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"privmap 0.1.0\n", "\nGo:      go1.", "© OpenStreetMap contributors", "Open Database License",
		"fyne.io/fyne/v2", "BSD-3-Clause", "github.com/parquet-go/parquet-go", "Apache-2.0", "codeberg.org/go-fonts/liberation", "OFL-1.1"} {
		if !strings.Contains(out, want) {
			t.Errorf("version lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Apache License") {
		t.Error("licence texts printed without -licences")
	}
	code, long, _ := run("version", "-licences")
	if code != 0 || !strings.HasPrefix(long, out) || !strings.Contains(long, "==== fyne.io/fyne/v2 v2.7.1 (BSD-3-Clause) ====") || !strings.Contains(long, "SIL OPEN FONT LICENSE") {
		t.Errorf("version -licences: exit %d, %d bytes", code, len(long))
	}
	if code, _, errs := run("version", "extra"); code != 2 || !strings.Contains(errs, `unexpected argument "extra"`) {
		t.Errorf("an argument: exit %d, %s", code, errs)
	}
}

// TestLicencesCurrent checks that the embedded list of linked modules
// (assets/licences, go generate ./assets) is that of the module graph
// as go list sees it now: a dependency added, removed or upgraded
// without regenerating it fails here.
func TestLicencesCurrent(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{with .Module}}{{if not .Main}}{{.Path}} {{.Version}}{{end}}{{end}}", "../..").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	want := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		want[l] = true
	}
	got := map[string]bool{}
	for i, l := range strings.Split(strings.TrimSpace(assets.Licences), "\n") {
		f := strings.Split(l, "\t")
		if i < 2 || len(f) != 3 { // the header and Go's own line
			continue
		}
		got[f[0]+" "+f[1]] = true
	}
	for m := range want {
		if !got[m] {
			t.Errorf("linked module %s is not in assets/licences/modules.tsv: run go generate ./assets", m)
		}
	}
	for m := range got {
		if !want[m] {
			t.Errorf("assets/licences/modules.tsv lists %s, which is not linked: run go generate ./assets", m)
		}
	}
}
