package core

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
)

// readRecords reads a CSV file with a header line, as the distribution
// and reports files are: head gets the header, row every later record.
// Errors are prefixed "core: what: ", and row's errors carry the line.
func readRecords(r io.Reader, what string, head func([]string) error, row func([]string) error) error {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	hdr, err := cr.Read()
	if err == io.EOF {
		return fmt.Errorf("core: %s: empty file", what)
	}
	if err == nil {
		err = head(hdr)
	}
	if err != nil {
		return fmt.Errorf("core: %s: %w", what, err)
	}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			// A csv.ParseError names its line; FieldPos is defined only
			// for a record that was read.
			return fmt.Errorf("core: %s: %w", what, err)
		}
		line, _ := cr.FieldPos(0)
		if err := row(rec); err != nil {
			return fmt.Errorf("core: %s: line %d: %w", what, line, err)
		}
	}
}
