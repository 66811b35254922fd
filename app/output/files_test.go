package output

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestWriteFile writes a file, then fails a rewrite: the first content
// stays, no temporary file is left, and the error names the file.
func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "out.csv")
	if err := WriteFile(name, func(w io.Writer) error { _, err := io.WriteString(w, "cell,probability\n"); return err }); err != nil {
		t.Fatal(err)
	}
	umask := syscall.Umask(0)
	syscall.Umask(umask)
	if fi, err := os.Stat(name); err != nil || fi.Mode().Perm() != 0o666&^os.FileMode(umask) {
		t.Errorf("mode %v, %v; want %v (0666 less the umask)", fi.Mode().Perm(), err, 0o666&^os.FileMode(umask))
	}
	boom := errors.New("boom")
	err := WriteFile(name, func(w io.Writer) error { io.WriteString(w, "half"); return boom })
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), name) {
		t.Errorf("failed write: error %v, want boom naming %s", err, name)
	}
	if b, _ := os.ReadFile(name); string(b) != "cell,probability\n" {
		t.Errorf("after a failed rewrite the file holds %q", b)
	}
	if files, _ := os.ReadDir(dir); len(files) != 1 {
		t.Errorf("the folder holds %d files, want only %s", len(files), name)
	}
	missing := filepath.Join(dir, "no", "such", "folder.csv")
	if err := WriteFile(missing, func(io.Writer) error { return nil }); err == nil || err.Error() != missing+": no such file or directory" {
		t.Errorf("write into a missing folder: error %v, want one naming the file and no temporary file", err)
	}
}

// writeString is a fill that writes s.
func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

// TestWriteFileKinds checks WriteFile on every kind of name: a rewritten
// file keeps its permissions; a symbolic link is written through to its
// target (existing or not) and stays a link; a named pipe is written in
// place and stays a pipe; "-" is standard output; a folder is refused
// with an error naming the user's path, not a temporary file; and no
// temporary file is left anywhere.
func TestWriteFileKinds(t *testing.T) {
	dir := t.TempDir()
	private := filepath.Join(dir, "private.csv")
	if err := os.WriteFile(private, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(private, writeString("new")); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(private); fi.Mode().Perm() != 0o600 {
		t.Errorf("a 0600 file became %v", fi.Mode().Perm())
	}

	target, link := filepath.Join(dir, "target.csv"), filepath.Join(dir, "link.csv")
	if err := os.Symlink("target.csv", link); err != nil {
		t.Fatal(err)
	}
	for _, content := range []string{"created", "rewritten"} { // dangling, then not
		if err := WriteFile(link, writeString(content)); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(target); string(b) != content {
			t.Errorf("through the link the target holds %q, want %q", b, content)
		}
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("the link was replaced: %v, %v", fi.Mode(), err)
		}
	}

	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	got := make(chan string)
	go func() {
		b, _ := os.ReadFile(fifo)
		got <- string(b)
	}()
	if err := WriteFile(fifo, writeString("through the pipe")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "through the pipe" {
		t.Errorf("the pipe's reader got %q", s)
	}
	if fi, _ := os.Lstat(fifo); fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the pipe became %v", fi.Mode())
	}

	var out strings.Builder
	old := Stdout
	Stdout = &out
	err := WriteFile("-", writeString("to standard output"))
	Stdout = old
	if err != nil || out.String() != "to standard output" {
		t.Errorf(`"-": %q, %v`, out.String(), err)
	}

	folder := filepath.Join(dir, "folder")
	os.Mkdir(folder, 0o755)
	err = WriteFile(folder, writeString("x"))
	if err == nil || !strings.HasPrefix(err.Error(), folder+": ") || strings.Contains(err.Error(), ".tmp") {
		t.Errorf("writing a folder: %v", err)
	}

	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

// TestWriteFileSources checks that a new output is no more readable by
// the group and others than its sources, that the owner keeps what the
// umask gives, and that a rewritten output keeps its own mode.
func TestWriteFileSources(t *testing.T) {
	dir := t.TempDir()
	umask := syscall.Umask(0o022)
	defer syscall.Umask(umask)
	private, public := filepath.Join(dir, "private.csv"), filepath.Join(dir, "public.csv")
	os.WriteFile(private, nil, 0o600)
	os.WriteFile(public, nil, 0o644)
	os.Chmod(private, 0o640) // group may read, others not
	for _, tc := range []struct {
		sources []string
		want    os.FileMode
	}{
		{nil, 0o644},
		{[]string{public}, 0o644},
		{[]string{private}, 0o640},
		{[]string{public, private, filepath.Join(dir, "missing")}, 0o640},
	} {
		out := filepath.Join(dir, "out.csv")
		os.Remove(out)
		if err := WriteFile(out, writeString("x"), tc.sources...); err != nil {
			t.Fatal(err)
		}
		if fi, _ := os.Stat(out); fi.Mode().Perm() != tc.want {
			t.Errorf("sources %v: mode %v, want %v", tc.sources, fi.Mode().Perm(), tc.want)
		}
	}
	out := filepath.Join(dir, "kept.csv")
	os.WriteFile(out, nil, 0o604)
	os.Chmod(out, 0o604)
	if err := WriteFile(out, writeString("x"), private); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(out); fi.Mode().Perm() != 0o604 {
		t.Errorf("rewritten output: mode %v, want its own 0604", fi.Mode().Perm())
	}
}

// TestBatchDevice: a batch one of whose outputs is a device that
// refuses its bytes (/dev/full, named or through a link) leaves every
// regular output as it was, an existing one byte-identical and a new one
// not created (they were renamed into place first and not undone).
func TestBatchDevice(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full here")
	}
	dir := t.TempDir()
	old, fresh, link := filepath.Join(dir, "estimate.csv"), filepath.Join(dir, "new.csv"), filepath.Join(dir, "report.json")
	if err := os.WriteFile(old, []byte("before"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/full", link); err != nil {
		t.Fatal(err)
	}
	for _, device := range []string{"/dev/full", link} {
		var b Batch
		b.Add(old, writeString("after"))
		b.Add(device, writeString("the study"))
		b.Add(fresh, writeString("created"))
		err := b.Commit(context.Background())
		if err == nil || !strings.HasPrefix(err.Error(), device+": ") {
			t.Errorf("%s: %v", device, err)
		}
		if got, _ := os.ReadFile(old); string(got) != "before" {
			t.Errorf("%s: the existing output holds %q", device, got)
		}
		if _, err := os.Stat(fresh); err == nil {
			t.Errorf("%s: the new output was created", device)
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) != 2 {
			t.Errorf("%s: the folder holds %d files, want the 2 it had", device, len(entries))
		}
	}
}

// TestBatchCancelFill: a fill that does not look at ctx (a figure being
// drawn) is left when ctx ends: Commit returns ctx's error at once,
// the existing output as it was and no temporary file left, and the
// fill's own goroutine ends at its next write.
func TestBatchCancelFill(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "map.png")
	if err := os.WriteFile(out, []byte("before"), 0o644); err != nil {
		t.Fatal(err)
	}
	started, release, ended := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	ctx, cancel := context.WithCancel(context.Background())
	var b Batch
	b.Add(out, func(w io.Writer) error {
		close(started)
		<-release // drawing, deaf to ctx
		_, err := w.Write(make([]byte, 1<<20))
		ended <- err
		return err
	})
	go func() { <-started; cancel() }()
	if err := b.Commit(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Commit: %v, want context.Canceled", err)
	}
	if got, _ := os.ReadFile(out); string(got) != "before" {
		t.Errorf("the output holds %q", got)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the folder holds %d files, want the output alone", len(entries))
	}
	close(release)
	if err := <-ended; err == nil {
		t.Error("the fill's write to its closed file succeeded")
	}
}

// TestBatchFillPanics: a fill's panic reaches Commit's caller, as it did
// before fills had a goroutine of their own (the window recovers a job's
// panics; one in another goroutine would end the program).
func TestBatchFillPanics(t *testing.T) {
	var b Batch
	b.Add(filepath.Join(t.TempDir(), "x.png"), func(io.Writer) error { panic("a bug drawing") })
	defer func() {
		if p := recover(); p != "a bug drawing" {
			t.Errorf("recovered %v", p)
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b.Commit(ctx)
	t.Error("Commit returned")
}
