//go:build unix

package geo

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestGeoLifeLinks walks GeoLife folders through symbolic links, each
// folder once: a user's folder and another's Trajectory folder that are
// links (filepath.WalkDir skipped them: 1 user instead of 3), -in a link
// to the Data folder, a link back up the tree (a loop) and a second link
// to a folder already read; and refuses a named pipe called x.plt by its
// kind (opening it blocked for ever).
func TestGeoLifeLinks(t *testing.T) {
	dir := t.TempDir()
	point := pltHeader + "39.984702,116.318417,0,492,39744.1201851852,2008-10-23,02:53:04\r\n"
	for name, text := range map[string]string{
		"Data/000/Trajectory/a.plt":      point,
		"elsewhere/001/Trajectory/b.plt": point,
		"elsewhere/traj/c.plt":           point,
	} {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(dir, "Data/002"), 0o755)
	for link, target := range map[string]string{
		"Data/001":            "../elsewhere/001",
		"Data/002/Trajectory": "../../elsewhere/traj",
		"Data/000/up":         "..",               // Data itself: a loop
		"Data/003":            "../elsewhere/001", // 001 again
		"Data/004":            "nowhere",          // a broken link
		"data-link":           "Data",
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	for _, root := range []string{filepath.Join(dir, "Data"), filepath.Join(dir, "data-link")} {
		users := map[string]int{}
		_, err := ScanPath(context.Background(), root, GeoLife, Options{}, func(c Checkin) error {
			users[strings.Clone(c.User)]++
			return nil
		})
		if err != nil || len(users) != 3 || users["000"] != 1 || users["001"] != 1 || users["002"] != 1 {
			t.Errorf("%s: %v, %v; want one point of each of 000, 001 and 002", root, users, err)
		}
	}
	pipe := filepath.Join(dir, "Data/000/Trajectory/x.plt")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	_, err := ScanPath(context.Background(), filepath.Join(dir, "Data"), GeoLife, Options{}, func(Checkin) error { return nil })
	if err == nil || !strings.HasSuffix(err.Error(), "x.plt: not a regular file (a named pipe): a GeoLife trajectory is a file") {
		t.Errorf("a named pipe: %v", err)
	}
}
