package core

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// TestCheckMemory checks that a need beyond the available memory is
// refused with what it costs, and a small one is not.
func TestCheckMemory(t *testing.T) {
	avail := availableMemory()
	if !(avail > 0) {
		t.Fatalf("available memory %v", avail)
	}
	if err := CheckMemory("a small table", 1e6); err != nil {
		t.Errorf("1 MB refused: %v", err)
	}
	if math.IsInf(avail, 1) {
		t.Skip("available memory unknown here")
	}
	err := CheckMemory("a huge table", 2*avail+1e9)
	var large *TooLargeError
	if !errors.As(err, &large) || !strings.Contains(err.Error(), "a huge table needs about") || !strings.Contains(err.Error(), "that this process can still allocate") {
		t.Errorf("2× the available memory: %v", err)
	}
}
