package core

import (
	"fmt"
	"math"
)

// CheckMemory refuses work that needs more memory than the process can
// still obtain (availableMemory), before anything is allocated, with a
// *TooLargeError that says what it would have cost.
func CheckMemory(what string, need float64) error {
	if avail := availableMemory(); need > avail {
		return &TooLargeError{What: what, Need: "about " + bytesText(need) + " of memory",
			Limit: bytesText(avail) + " that this process can still allocate"}
	}
	return nil
}

// unknownMemory is availableMemory's answer where it cannot tell.
var unknownMemory = math.Inf(1)

// A TooLargeError refuses work whose memory would exceed a limit, before
// anything is allocated.
type TooLargeError struct {
	What, Need, Limit string
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("core: %s needs %s, more than the limit of %s", e.What, e.Need, e.Limit)
}
