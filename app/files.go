package app

import (
	"bufio"
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

// WriteFile writes the file name safely for every kind of name:
//
//   - "-" is standard output, written directly;
//   - a symbolic link is followed: its target is written, the link stays;
//   - an existing file that is not a regular file (a named pipe, a
//     device, /dev/stdout) is written directly, as a shell redirection
//     would;
//   - a regular file, or a new one, is written atomically: fill writes a
//     hidden temporary file in the same folder, which replaces the file
//     only once everything succeeded, so an error or an interruption
//     never leaves a truncated file where a good one was, and the
//     temporary file is removed whatever happens. An existing file keeps
//     its permissions; a new one gets 0666 less the umask, as os.Create
//     would give it, and no more access for the group and others than
//     every one of sources gives them: an output derived from a private
//     (0600) location file is private too.
//
// Errors name the user's path, never the temporary file.
func WriteFile(name string, fill func(io.Writer) error, sources ...string) error {
	if name == "-" {
		return buffered(Stdout, fill)
	}
	target, err := resolve(name)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	info, err := os.Stat(target)
	switch {
	case err == nil && !info.Mode().IsRegular():
		return writeDirect(name, target, fill)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: %w", name, err)
	}
	f, err := createTemp(target)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	tmp := f.Name()
	if info != nil {
		err = f.Chmod(info.Mode().Perm())
	} else if len(sources) > 0 {
		err = narrow(f, sources)
	}
	if err == nil {
		err = buffered(f, fill)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, target)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("%s: %w", name, renamed(err, tmp, target))
	}
	return nil
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

// writeDirect writes an existing file that is not a regular one (a pipe,
// a device) in place.
func writeDirect(name, target string, fill func(io.Writer) error) error {
	f, err := os.OpenFile(target, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("%s: %w", name, renamed(err, target, target))
	}
	err = buffered(f, fill)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", name, renamed(err, target, target))
	}
	return nil
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
	dir, base := filepath.Split(path)
	for range 100 {
		name := filepath.Join(dir, fmt.Sprintf(".%s.%d.tmp", base, rand.Uint32()))
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if !errors.Is(err, fs.ErrExist) {
			return f, renamed(err, name, name) // a missing folder, say: the caller names it
		}
	}
	return nil, fmt.Errorf("cannot create a temporary file in %s", dir)
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
