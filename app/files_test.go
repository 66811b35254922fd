package app

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestWriteFile writes a file, then fails a rewrite: the first content
// stays, no temporary file is left, and the error names the file.
func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "out.csv")
	if err := WriteFile(name, func(w io.Writer) error { _, err := io.WriteString(w, "cell,probability\n"); return err }); err != nil {
		t.Fatal(err)
	}
	umask := syscall.Umask(0)
	syscall.Umask(umask)
	if fi, err := os.Stat(name); err != nil || fi.Mode().Perm() != 0o666&^os.FileMode(umask) {
		t.Errorf("mode %v, %v; want %v (0666 less the umask)", fi.Mode().Perm(), err, 0o666&^os.FileMode(umask))
	}
	boom := errors.New("boom")
	err := WriteFile(name, func(w io.Writer) error { io.WriteString(w, "half"); return boom })
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), name) {
		t.Errorf("failed write: error %v, want boom naming %s", err, name)
	}
	if b, _ := os.ReadFile(name); string(b) != "cell,probability\n" {
		t.Errorf("after a failed rewrite the file holds %q", b)
	}
	if files, _ := os.ReadDir(dir); len(files) != 1 {
		t.Errorf("the folder holds %d files, want only %s", len(files), name)
	}
	if err := WriteFile(filepath.Join(dir, "no", "such", "folder.csv"), func(io.Writer) error { return nil }); err == nil || !strings.Contains(err.Error(), "folder.csv") {
		t.Errorf("write into a missing folder: error %v, want one naming the file", err)
	}
}
