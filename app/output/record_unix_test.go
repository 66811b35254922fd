//go:build unix

package output

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestDigestNamedPipe refuses a named pipe by its kind, where opening it
// blocked until a writer came.
func TestDigestNamedPipe(t *testing.T) {
	pipe := filepath.Join(t.TempDir(), "in.csv")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	if _, err := Digest(context.Background(), pipe); err == nil || !strings.HasSuffix(err.Error(), "in.csv: not a regular file (a named pipe): privmap digests files") {
		t.Errorf("a named pipe: %v", err)
	}
}
