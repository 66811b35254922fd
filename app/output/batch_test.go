package output

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// snapshot returns every file of dir with its content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		out[path] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestBatchAllOrNone fails a batch of three files at each point where
// it can fail — a fill, a missing folder, a folder as target, a
// cancelled context, a rename while committing — and checks that every
// existing file is byte-identical afterwards, no file is created and no
// temporary file remains; then commits the batch and checks every file.
func TestBatchAllOrNone(t *testing.T) {
	boom := errors.New("boom")
	fail := func(io.Writer) error { return boom }
	for _, tc := range []struct {
		name   string
		third  string // the third file's name in dir
		fill   func(io.Writer) error
		ctx    func() context.Context
		rename int // the rename that fails, 1-based; 0: none
		want   string
	}{
		{name: "fill", third: "c.csv", fill: fail, want: "c.csv: boom"},
		{name: "missing folder", third: "no/c.csv", want: "no/c.csv: no such file or directory"},
		{name: "folder", third: "sub", want: "sub: is a directory"},
		{name: "cancelled", third: "c.csv", ctx: func() context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		}, want: "context canceled"},
		{name: "second rename", third: "c.csv", rename: 2, want: "b.json: rename refused"},
		{name: "third rename", third: "c.csv", rename: 3, want: "c.csv: rename refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range map[string]string{"a.csv": "old a\n", "b.json": "old b\n"} {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, dir)
			if tc.rename > 0 {
				n := 0
				rename = func(from, to string) error {
					if n++; n == tc.rename {
						return &os.LinkError{Op: "rename", Old: from, New: to, Err: errors.New("rename refused")}
					}
					return os.Rename(from, to)
				}
				defer func() { rename = os.Rename }()
			}
			var stdout bytes.Buffer
			Stdout = &stdout
			defer func() { Stdout = os.Stdout }()
			fill := tc.fill
			if fill == nil {
				fill = writeString("new c\n")
			}
			var b Batch
			b.Add(filepath.Join(dir, "a.csv"), writeString("new a\n"))
			b.Add(filepath.Join(dir, "b.json"), writeString("new b\n"))
			b.Add("-", writeString("to stdout\n"))
			b.Add(filepath.Join(dir, tc.third), fill)
			if !b.ToStdout() {
				t.Error("ToStdout: false with a file named -")
			}
			ctx := context.Background()
			if tc.ctx != nil {
				ctx = tc.ctx()
			}
			err := b.Commit(ctx)
			if err == nil || !strings.HasSuffix(err.Error(), tc.want) {
				t.Fatalf("error %v, want one ending %q", err, tc.want)
			}
			if strings.Contains(err.Error(), ".tmp") {
				t.Errorf("the error names a temporary file: %v", err)
			}
			if after := snapshot(t, dir); !equalMaps(before, after) {
				t.Errorf("after a failed batch the folder holds %v, want %v", after, before)
			}
			if stdout.Len() > 0 {
				t.Errorf("a failed batch wrote %q to standard output", stdout.String())
			}
		})
	}
	t.Run("commit", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "a.csv"), []byte("old a\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		var stdout bytes.Buffer
		Stdout = &stdout
		defer func() { Stdout = os.Stdout }()
		var b Batch
		b.Add(filepath.Join(dir, "a.csv"), writeString("new a\n"))
		b.Add("-", writeString("to stdout\n"))
		b.Add(filepath.Join(dir, "b.json"), writeString("new b\n"))
		if err := b.Commit(context.Background()); err != nil {
			t.Fatal(err)
		}
		want := map[string]string{filepath.Join(dir, "a.csv"): "new a\n", filepath.Join(dir, "b.json"): "new b\n"}
		if got := snapshot(t, dir); !equalMaps(got, want) {
			t.Errorf("folder %v, want %v", got, want)
		}
		if fi, _ := os.Stat(filepath.Join(dir, "a.csv")); fi.Mode().Perm() != 0o600 {
			t.Errorf("a replaced 0600 file became %v", fi.Mode().Perm())
		}
		if stdout.String() != "to stdout\n" {
			t.Errorf("standard output %q", stdout.String())
		}
	})
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestLongName writes a file whose name, 244 bytes, is legal while
// ".NAME.NNNNNNNNNN.tmp" is not.
func TestLongName(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, strings.Repeat("n", 240)+".csv")
	if err := WriteFile(name, writeString("x")); err != nil {
		t.Fatal(err)
	}
	if got := snapshot(t, dir); !equalMaps(got, map[string]string{name: "x"}) {
		t.Errorf("folder %v", got)
	}
}
