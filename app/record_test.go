package app

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDigestReading: a file digested while read — whole, or read only
// in part — has the digest Digest gives it.
func TestDigestReading(t *testing.T) {
	name := filepath.Join(t.TempDir(), "f.txt")
	if err := os.WriteFile(name, []byte(strings.Repeat("0123456789\n", 10000)), 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := Digest(name)
	if err != nil {
		t.Fatal(err)
	}
	for _, read := range []func(io.Reader) error{
		func(r io.Reader) error { _, err := io.Copy(io.Discard, r); return err },
		func(r io.Reader) error { _, err := r.Read(make([]byte, 100)); return err },
	} {
		got, err := DigestReading(name, read)
		if err != nil || got.SHA256 != want.SHA256 || got.Bytes != want.Bytes || got.Bytes != 110000 {
			t.Errorf("%+v, %v; want %+v", got, err, want)
		}
	}
}
