package experiment

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Header is runs.csv's header (docs/ARCHITECTURE.md §7).
var Header = []string{"experiment", "panel", "setting", "users", "method", "run", "seed", "metric", "value"}

// WriteRows writes rows as CSV, with the header when head is set; values
// in the shortest form that reads back exactly.
func WriteRows(w io.Writer, rows []Row, head bool) error {
	cw := csv.NewWriter(w)
	if head {
		if err := cw.Write(Header); err != nil {
			return err
		}
	}
	for _, r := range rows {
		rec := []string{r.Experiment, r.Panel, r.Setting, strconv.Itoa(r.Users), r.Method, strconv.Itoa(r.Run),
			strconv.FormatUint(r.Seed, 10), r.Metric, strconv.FormatFloat(r.Value, 'g', -1, 64)}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// ReadRows reads runs.csv rows written by WriteRows. A last line cut
// short (a run interrupted while writing) is dropped; any other bad line
// is an error naming it.
func ReadRows(r io.Reader) ([]Row, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	head, err := cr.Read()
	if err == io.EOF {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if strings.Join(head, ",") != strings.Join(Header, ",") {
		return nil, fmt.Errorf("line 1: header %q, want %q", strings.Join(head, ","), strings.Join(Header, ","))
	}
	var rows []Row
	var pending error // a bad line, an error unless it is the last
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			return rows, nil
		}
		if pending != nil {
			return nil, pending
		}
		if err != nil {
			pending = fmt.Errorf("line %d: %w", line, err)
			continue
		}
		row, err := parseRow(rec)
		if err != nil {
			pending = fmt.Errorf("line %d: %w", line, err)
			continue
		}
		rows = append(rows, row)
	}
}

// parseRow reads one record of runs.csv.
func parseRow(rec []string) (Row, error) {
	if len(rec) != len(Header) {
		return Row{}, fmt.Errorf("%d fields, want %d", len(rec), len(Header))
	}
	users, err1 := strconv.Atoi(rec[3])
	run, err2 := strconv.Atoi(rec[5])
	seed, err3 := strconv.ParseUint(rec[6], 10, 64)
	value, err4 := strconv.ParseFloat(rec[8], 64)
	for _, err := range []error{err1, err2, err3, err4} {
		if err != nil {
			return Row{}, err
		}
	}
	return Row{Experiment: rec[0], Panel: rec[1], Setting: rec[2], Users: users, Method: rec[4], Run: run,
		Seed: seed, Metric: rec[7], Value: value}, nil
}
