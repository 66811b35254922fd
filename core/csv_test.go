package core

import (
	"io"
	"strings"
	"testing"
)

// TestLongLine checks that a line past maxCSVLine is refused with its
// number before it is held in memory, and that one just within passes.
func TestLongLine(t *testing.T) {
	long := "cell,probability\n0,1\n" + strings.Repeat("9", maxCSVLine+1) + "\n"
	_, err := ReadDistribution(strings.NewReader(long), 4)
	if err == nil || !strings.Contains(err.Error(), "line 3 is longer than 17.8 MB") {
		t.Errorf("long line: %v", err)
	}
	within := &boundedLines{r: strings.NewReader(strings.Repeat("x", maxCSVLine) + "\n" + strings.Repeat("y", maxCSVLine)), line: 1}
	if n, err := io.Copy(io.Discard, within); err != nil || n != 2*maxCSVLine+1 {
		t.Errorf("lines of maxCSVLine bytes: %d bytes, %v", n, err)
	}
	if _, err := ReadAllLimited(strings.NewReader(strings.Repeat(" ", 1001)), 1000, "a study file"); err == nil || err.Error() != "core: a study file larger than 1 kB is more than privmap reads" {
		t.Errorf("1001 bytes of a 1000-byte limit: %v", err)
	}
	if b, err := ReadAllLimited(strings.NewReader(strings.Repeat(" ", 1000)), 1000, "a study file"); err != nil || len(b) != 1000 {
		t.Errorf("1000 bytes of a 1000-byte limit: %d, %v", len(b), err)
	}
}
