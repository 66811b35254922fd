package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// writeFile writes a file atomically: fill writes into a temporary file in
// the same folder, which replaces name only when everything succeeded, so
// an error or interruption never leaves a truncated file behind.
func writeFile(name string, fill func(io.Writer) error) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	bw := bufio.NewWriter(tmp)
	if err = fill(bw); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	if err = tmp.Chmod(0o644); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), name)
}
