package basemap

import (
	"context"
	"errors"
	"net"
	"strings"
)

// A StatusError is a tile server's answer other than a tile.
type StatusError struct {
	Status string // as the server gave it: "403 Forbidden"
}

func (e *StatusError) Error() string { return "the server answered " + e.Status }

// Reason says in a word or a few why a basemap could not be had, for a
// person to read where the full error would name a machine's DNS server
// or a tile's numbers: "offline" when the server's name cannot be looked
// up or the network or server cannot be reached, "timed out", the
// server's refusal ("the server answered 403 Forbidden"), "no tiles over
// this box", else "unavailable". The full error belongs in a log.
func Reason(err error) string {
	var dns *net.DNSError
	var op *net.OpError
	var status *StatusError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &status):
		return status.Error()
	case errors.As(err, &dns), errors.As(err, &op):
		return "offline"
	case errors.Is(err, context.DeadlineExceeded), strings.Contains(err.Error(), "no tile arrived within"):
		return "timed out"
	case strings.Contains(err.Error(), "no tiles over this box"):
		return "no tiles over this box"
	}
	return "unavailable"
}
