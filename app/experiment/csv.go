package experiment

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/privmap/privmap/core"
)

// Header is runs.csv's header (docs/FILES.md).
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

// ReadRows reads rows written by WriteRows, checking every value
// (checkValue). A last line without its newline was cut short by an
// interruption and is dropped (its run is run again); any other line
// that is not a row privmap writes is an error naming it.
func ReadRows(r io.Reader) ([]Row, error) {
	lr := &lastByte{r: r}
	cr := csv.NewReader(lr)
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
	var last Row
	var lastErr error // the last line's
	have := false
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if have {
			if lastErr != nil {
				return nil, lastErr
			}
			rows = append(rows, last)
		}
		have = true
		if err == nil {
			last, err = parseRow(rec)
		}
		lastErr = nil
		if err != nil {
			lastErr = fmt.Errorf("line %d: %w", line, err)
		}
	}
	switch {
	case !have || lr.last != '\n':
		return rows, nil
	case lastErr != nil:
		return nil, lastErr
	}
	return append(rows, last), nil
}

// lastByte is a reader that remembers the last byte read.
type lastByte struct {
	r    io.Reader
	last byte
}

func (l *lastByte) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	if n > 0 {
		l.last = p[n-1]
	}
	return n, err
}

func parseRow(rec []string) (Row, error) {
	if len(rec) != len(Header) {
		return Row{}, fmt.Errorf("%d fields, want %d", len(rec), len(Header))
	}
	users, err1 := strconv.Atoi(rec[3])
	run, err2 := strconv.Atoi(rec[5])
	seed, err3 := strconv.ParseUint(rec[6], 10, 64)
	value, err4 := core.ParseDecimal(rec[8])
	for _, err := range []error{err1, err2, err3, err4} {
		if err != nil {
			return Row{}, err
		}
	}
	if users < 0 || run < 0 {
		return Row{}, fmt.Errorf("users %d and run %d: want whole numbers ≥ 0", users, run)
	}
	if err := checkValue(Metric(rec[7]), value); err != nil {
		return Row{}, err
	}
	return Row{Experiment: rec[0], Panel: rec[1], Setting: rec[2], Users: users, Method: rec[4], Run: run,
		Seed: seed, Metric: rec[7], Value: value}, nil
}

// checkValue refuses a metric privmap does not write or a value it
// cannot take: every metric is finite, and all but the entropy
// (differential, of Laplace noise) are ≥ 0, probabilities and total
// variation ≤ 1.
func checkValue(m Metric, v float64) error {
	if _, ok := metricNames[m]; !ok {
		return fmt.Errorf("metric %q is none of privmap's", m)
	}
	lo, hi := 0.0, math.Inf(1)
	switch m {
	case Entropy:
		lo = math.Inf(-1)
	case PWithin, TV, CoverCell, CoverBand, CoverTV, MissZero, Width, CoverPeople, CoverEmpty, Cover1, Cover2to4, Cover5:
		hi = 1
	}
	if math.IsNaN(v) || math.IsInf(v, 0) || v < lo || v > hi {
		return fmt.Errorf("%s %v: want a finite number from %v to %v", m, v, lo, hi)
	}
	return nil
}
