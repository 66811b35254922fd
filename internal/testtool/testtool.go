// Package testtool finds the field's own programs that tests check
// privmap's files with (GDAL's for GIS layers, Poppler's for PDFs), and
// measures the peak heap of benchmarks.
package testtool

import (
	"os"
	"os/exec"
	"runtime/metrics"
	"testing"
	"time"
)

// PeakHeap samples the bytes of live heap objects every few
// milliseconds until stop is called, which returns the largest sample in
// MiB.
func PeakHeap() (stop func() float64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	done := make(chan struct{})
	peak := make(chan uint64)
	go func() {
		var most uint64
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			most = max(most, sample[0].Value.Uint64())
			select {
			case <-done:
				peak <- most
				return
			case <-tick.C:
			}
		}
	}()
	return func() float64 {
		close(done)
		return float64(<-peak) / (1 << 20)
	}
}

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
