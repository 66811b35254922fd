package basemap

import (
	"context"
	"errors"
	"fmt"
	"net"
	"syscall"
	"testing"
)

// TestReason names the causes a person can act on, never an address.
func TestReason(t *testing.T) {
	for err, want := range map[error]string{
		nil: "",
		fmt.Errorf("tile 1/2/3: %w", &net.DNSError{Err: "no such host", Name: "tile.openstreetmap.org", Server: "10.255.255.53:53"}): "offline",
		&net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}:                                                              "offline",
		fmt.Errorf("tile 1/2/3: %w", &StatusError{Status: "403 Forbidden"}):                                                          "the server answered 403 Forbidden",
		fmt.Errorf("get: %w", context.DeadlineExceeded):                                                                              "timed out",
		errors.New("basemap: no tile arrived within 20s"):                                                                            "timed out",
		errors.New("basemap: the source has no tiles over this box"):                                                                 "no tiles over this box",
		errors.New("something else"):                                                                                                 "unavailable",
	} {
		if got := Reason(err); got != want {
			t.Errorf("Reason(%v) = %q, want %q", err, got, want)
		}
	}
}
