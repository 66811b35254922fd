package core

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// readRecords reads a CSV file with a header line, as the distribution
// and reports files are: head gets the header, row every later record.
// Errors are prefixed "core: what: ", and row's errors carry the line.
func readRecords(r io.Reader, what string, head func([]string) error, row func([]string) error) error {
	cr := csv.NewReader(&boundedLines{r: r, line: 1})
	// Lines that begin with # are notes (a release's records dropped),
	// not records.
	cr.Comment = '#'
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

// maxCSVLine bounds one line of a distribution or reports file: a
// RAPPOR report of MaxSymbols bits and room for the rest, 17.8 MB. A
// longer line (a binary file read by mistake, a hostile file) is
// refused before encoding/csv holds it in memory.
const maxCSVLine = MaxSymbols + 1<<20

// boundedLines passes r through, failing once a line passes maxCSVLine
// bytes.
type boundedLines struct {
	r    io.Reader
	run  int // bytes since the last newline
	line int
}

func (b *boundedLines) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	for _, c := range p[:n] {
		if c == '\n' {
			b.run = 0
			b.line++
		} else if b.run++; b.run > maxCSVLine {
			return 0, fmt.Errorf("line %d is longer than %s", b.line, bytesText(maxCSVLine))
		}
	}
	return n, err
}

// columnName returns a header's column name as the readers match it:
// trimmed, lower-case, without a byte-order mark.
func columnName(h string) string {
	return strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\uFEFF")))
}

// parseCell reads a cell number of a record, in 0..k−1.
func parseCell(field string, k int) (int, error) {
	c, err := strconv.Atoi(strings.TrimSpace(field))
	if err != nil || c < 0 || c >= k {
		return 0, fmt.Errorf("cell %q is not in 0..%d", field, k-1)
	}
	return c, nil
}
