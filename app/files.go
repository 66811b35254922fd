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

// WriteFile writes the file name atomically: fill writes into a hidden
// temporary file in the same folder, which replaces name only once
// everything succeeded, so an error or an interruption never leaves a
// truncated file where a good one was. The file gets mode 0666 less the
// umask, as os.Create would give it. Errors name the file.
func WriteFile(name string, fill func(io.Writer) error) error {
	f, err := createTemp(name)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	tmp := f.Name()
	bw := bufio.NewWriter(f)
	err = fill(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, name)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
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
			return f, err
		}
	}
	return nil, fmt.Errorf("cannot create a temporary file in %s", dir)
}
