package output

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
)

// Stdout is where WriteFile writes the name "-"; tests replace it.
var Stdout io.Writer = os.Stdout

// WriteFile writes the one file name safely, as a Batch of one file.
func WriteFile(name string, fill func(io.Writer) error, sources ...string) error {
	var b Batch
	b.Add(name, fill, sources...)
	return b.Commit(context.Background())
}

// A Batch is the files one command or one export writes, committed all
// or none (package output's doc). Every kind of name
// is written safely:
//
//   - "-" is standard output;
//   - a symbolic link is followed: its target is written, the link stays;
//   - an existing file that is not a regular file (a named pipe, a
//     device, /dev/stdout) is written directly, as a shell redirection
//     would;
//   - a regular file, or a new one, is replaced atomically. An existing
//     file keeps its permissions; a new one gets 0666 less the umask, as
//     os.Create would give it, and no more access for the group and
//     others than every one of its sources gives them: an output derived
//     from a private (0600) location file is private too.
//
// Commit first fills every file: a regular one into a hidden temporary
// file beside it, standard output and pipes into a temporary file of
// the system's. Only when every fill has succeeded, and ctx is not done,
// does it rename the temporary files over their targets, keeping a hard
// link to each replaced file until the batch is done, so that a
// rename that fails puts the earlier ones back; standard output, pipes
// and devices are written last, from their temporary files, and one
// that fails (a device that is full) puts every renamed file back too.
// On any failure, every existing regular file is byte-identical to what
// it was and no temporary file remains; only what a pipe or standard
// output has already passed on cannot be taken back.
//
// Errors name the user's path, never a temporary file.
type Batch struct {
	// Stdout is where the file "-" goes; nil is output.Stdout.
	Stdout io.Writer

	files []pending
}

// pending is one file of a Batch.
type pending struct {
	name    string
	fill    func(io.Writer) error
	sources []string
	// Set by Commit's staging.
	target string // the regular file to replace, links followed
	tmp    string // the staged content
	direct bool   // written in place (standard output, a pipe, a device)
	backup string // a hard link to the replaced file, while committing
	placed bool   // tmp renamed over target
}

// Add adds the file name, written by fill, derived from the files
// sources (for its permissions).
func (b *Batch) Add(name string, fill func(io.Writer) error, sources ...string) {
	b.files = append(b.files, pending{name: name, fill: fill, sources: sources})
}

// ToStdout reports whether a file of b is standard output, "-": a
// command's summary then goes to standard error.
func (b *Batch) ToStdout() bool {
	for _, f := range b.files {
		if f.name == "-" {
			return true
		}
	}
	return false
}

// Commit writes every file of b, or none (see Batch).
func (b *Batch) Commit(ctx context.Context) error {
	defer b.cleanup()
	for i := range b.files {
		if err := b.files[i].stage(ctx); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	for i := range b.files {
		if err := b.files[i].place(); err != nil {
			b.undo()
			return err
		}
	}
	for i := range b.files {
		if err := b.files[i].writeDirect(cmp.Or[io.Writer](b.Stdout, Stdout)); err != nil {
			// A device that refuses its bytes (/dev/full) puts back the
			// regular files renamed before it; what a pipe has read
			// cannot be taken back.
			b.undo()
			return err
		}
	}
	return nil
}

// stage fills the file's temporary copy; ctx stops the fill (filled).
func (p *pending) stage(ctx context.Context) error {
	if p.name == "-" {
		p.direct = true
		return p.stageAside(ctx)
	}
	target, err := resolve(p.name)
	if err != nil {
		return fmt.Errorf("%s: %w", p.name, err)
	}
	info, err := os.Stat(target)
	switch {
	case err == nil && info.IsDir():
		return fmt.Errorf("%s: is a directory", p.name)
	case err == nil && !info.Mode().IsRegular():
		// Opened only to be written: a reader of a named pipe would take
		// an early open and close for the end of the file.
		p.target, p.direct = target, true
		return p.stageAside(ctx)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: %w", p.name, err)
	}
	p.target = target
	f, err := createTemp(target)
	if err != nil {
		return fmt.Errorf("%s: %w", p.name, err)
	}
	p.tmp = f.Name()
	if info != nil {
		err = f.Chmod(info.Mode().Perm())
	} else if len(p.sources) > 0 {
		err = narrow(f, p.sources)
	}
	if err == nil {
		err = filled(ctx, f, p.fill)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", p.name, renamed(err, p.tmp, target))
	}
	return nil
}

// stageAside fills a temporary file of the system's, for a file written
// in place once the others are committed.
func (p *pending) stageAside(ctx context.Context) error {
	f, err := os.CreateTemp("", ".privmap-*.tmp")
	if err != nil {
		return fmt.Errorf("%s: %w", p.name, err)
	}
	p.tmp = f.Name()
	err = filled(ctx, f, p.fill)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", p.name, renamed(err, p.tmp, p.tmp))
	}
	return nil
}

// place renames the staged file over its target, keeping a link to the
// file it replaces.
func (p *pending) place() error {
	if p.direct {
		return nil
	}
	if _, err := os.Lstat(p.target); err == nil {
		backup, err := linkAside(p.target)
		if err != nil {
			return fmt.Errorf("%s: %w", p.name, err)
		}
		p.backup = backup
	}
	if err := rename(p.tmp, p.target); err != nil {
		return fmt.Errorf("%s: %w", p.name, renamed(err, p.tmp, p.target))
	}
	p.tmp, p.placed = "", true
	return nil
}

// writeDirect copies a file written in place from its staged copy.
func (p *pending) writeDirect(stdout io.Writer) error {
	if !p.direct {
		return nil
	}
	src, err := os.Open(p.tmp)
	if err != nil {
		return fmt.Errorf("%s: %w", p.name, err)
	}
	defer src.Close()
	if p.name == "-" {
		_, err = io.Copy(stdout, src)
		return err
	}
	f, err := os.OpenFile(p.target, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("%s: %w", p.name, renamed(err, p.target, p.target))
	}
	_, err = io.Copy(f, src)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", p.name, renamed(err, p.target, p.target))
	}
	return nil
}

// undo puts back the files already replaced, and removes those created.
func (b *Batch) undo() {
	for i := range b.files {
		p := &b.files[i]
		if !p.placed {
			continue
		}
		if p.backup != "" {
			if os.Rename(p.backup, p.target) == nil {
				p.backup = ""
			}
		} else {
			os.Remove(p.target)
		}
		p.placed = false
	}
}

// cleanup removes the temporary files and links left.
func (b *Batch) cleanup() {
	for i := range b.files {
		p := &b.files[i]
		if p.tmp != "" {
			os.Remove(p.tmp)
		}
		if p.backup != "" {
			os.Remove(p.backup)
		}
	}
}

// rename is os.Rename; tests make it fail.
var rename = os.Rename

// linkAside makes a hidden hard link to path beside it and returns its
// name.
func linkAside(path string) (string, error) {
	for range 100 {
		name := tempName(path)
		err := os.Link(path, name)
		if !errors.Is(err, fs.ErrExist) {
			return name, renamed(err, name, path)
		}
	}
	return "", fmt.Errorf("cannot keep a copy of %s", path)
}

// narrow takes from the new file f the group and other permissions that
// a regular file among sources does not have.
func narrow(f *os.File, sources []string) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	mode := fi.Mode().Perm()
	for _, src := range sources {
		if st, err := os.Stat(src); err == nil && st.Mode().IsRegular() {
			mode &^= 0o077 &^ st.Mode().Perm()
		}
	}
	if mode == fi.Mode().Perm() {
		return nil
	}
	return f.Chmod(mode)
}

// filled fills f through buffered in a goroutine of its own and waits
// for it or for ctx to end: a fill may draw a figure for seconds
// without looking at ctx (a million-vertex overlay on a loaded machine
// went on past SIGTERM), and Commit must stop at once. When ctx ends
// first, f is closed, so that the fill's next write fails and its
// goroutine ends, and ctx's error is returned: the caller removes f.
func filled(ctx context.Context, f *os.File, fill func(io.Writer) error) error {
	if ctx.Done() == nil {
		return buffered(f, fill)
	}
	type result struct {
		err      error
		panicked bool
		p        any
	}
	done := make(chan result, 1)
	go func() {
		// A fill's panic is the caller's, as it was before the fill had
		// a goroutine (the window recovers a job's panics).
		defer func() {
			if p := recover(); p != nil {
				done <- result{panicked: true, p: p}
			}
		}()
		done <- result{err: buffered(f, fill)}
	}()
	select {
	case r := <-done:
		if r.panicked {
			panic(r.p)
		}
		return r.err
	case <-ctx.Done():
		f.Close()
		return ctx.Err()
	}
}

// buffered runs fill on a buffer over w and flushes it.
func buffered(w io.Writer, fill func(io.Writer) error) error {
	bw := bufio.NewWriter(w)
	if err := fill(bw); err != nil {
		return err
	}
	return bw.Flush()
}

// resolve follows name's symbolic links, as far as they lead: the file
// to write, which need not exist yet (a link to a file still to be
// created is written through).
func resolve(name string) (string, error) {
	for range 40 { // as many links as Linux follows
		fi, err := os.Lstat(name)
		if errors.Is(err, fs.ErrNotExist) {
			return name, nil
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return name, nil
		}
		link, err := os.Readlink(name)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(name), link)
		}
		name = link
	}
	return "", errors.New("too many levels of symbolic links")
}

// renamed returns err without the paths tmp and target, which the user
// did not name: WriteFile prefixes the user's path, and the message never
// shows a hidden temporary file.
func renamed(err error, tmp, target string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && (pe.Path == tmp || pe.Path == target) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// createTemp creates a new hidden file beside path. Unlike os.CreateTemp,
// whose files are private (0600), it creates the file with mode 0666 less
// the umask, as the final file would have been.
func createTemp(path string) (*os.File, error) {
	for range 100 {
		name := tempName(path)
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if !errors.Is(err, fs.ErrExist) {
			return f, renamed(err, name, name) // a missing folder, say: the caller names it
		}
	}
	return nil, fmt.Errorf("cannot create a temporary file in %s", filepath.Dir(path))
}

// maxNameBytes is the longest file name Linux's file systems take.
const maxNameBytes = 255

// tempName returns a random hidden name beside path: .NAME.NNN.tmp, or
// .privmap.NNN.tmp when that would pass maxNameBytes (a legal name of
// 244 bytes must not fail for its temporary one).
func tempName(path string) string {
	dir, base := filepath.Split(path)
	name := fmt.Sprintf(".%s.%d.tmp", base, rand.Uint32())
	if len(name) > maxNameBytes {
		name = fmt.Sprintf(".privmap.%d.tmp", rand.Uint32())
	}
	return filepath.Join(dir, name)
}

// SameFile reports whether the names a and b lead to the same file,
// following symbolic links; files that do not exist yet are the same
// when their resolved absolute paths are. "-" (standard output) is no
// file.
func SameFile(a, b string) bool {
	if a == "-" || b == "-" {
		return false
	}
	ra, errA := resolve(a)
	rb, errB := resolve(b)
	if errA != nil || errB != nil {
		return false
	}
	fa, errA := os.Stat(ra)
	fb, errB := os.Stat(rb)
	if errA == nil && errB == nil {
		return os.SameFile(fa, fb)
	}
	aa, errA := filepath.Abs(ra)
	ab, errB := filepath.Abs(rb)
	return errA == nil && errB == nil && aa == ab
}
