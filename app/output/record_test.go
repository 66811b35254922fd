package output

import (
	"context"
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
	want, err := Digest(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	for _, read := range []func(io.Reader) error{
		func(r io.Reader) error { _, err := io.Copy(io.Discard, r); return err },
		func(r io.Reader) error { _, err := r.Read(make([]byte, 100)); return err },
	} {
		got, err := DigestReading(context.Background(), name, read)
		if err != nil || got.SHA256 != want.SHA256 || got.Bytes != want.Bytes || got.Bytes != 110000 {
			t.Errorf("%+v, %v; want %+v", got, err, want)
		}
	}
}

// TestDigestSpecialFiles refuses, before opening them, the files a
// digest would never finish (a device such as /dev/zero, which a
// report's record listed as an input and privmap read for ever) or
// never start (a named pipe, whose opening blocks); and a record whose
// command is not one of privmap's, which the manifest would give a
// shell (`estimate; touch x; echo`).
func TestDigestSpecialFiles(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err == nil {
		_, err := Digest(context.Background(), "/dev/zero")
		if err == nil || err.Error() != "/dev/zero: not a regular file (a character device): privmap digests files" {
			t.Errorf("/dev/zero: %v", err)
		}
		_, err = DigestReading(context.Background(), "/dev/zero", func(io.Reader) error { return nil })
		if err == nil || !strings.Contains(err.Error(), "a character device") {
			t.Errorf("/dev/zero read: %v", err)
		}
	}
	dir := t.TempDir()
	rec := filepath.Join(dir, "r.json")
	os.WriteFile(rec, []byte(`{"schema": "privmap-record/1", "command": "estimate; touch x; echo", "args": ["-study", "s.json"]}`), 0o644)
	if _, err := ReadRecord(rec); err == nil || !strings.Contains(err.Error(), `command "estimate; touch x; echo" is not one of privmap's (grid, simulate,`) {
		t.Errorf("a command that is not privmap's: %v", err)
	}
	os.WriteFile(rec, []byte(`{"schema": "privmap-record/1", "command": "estimate", "args": ["-study", "s.json"]}`), 0o644)
	if _, err := ReadRecord(rec); err != nil {
		t.Errorf("an estimate's record: %v", err)
	}
}
