package experiment

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadRowsRefuses reads runs.csv lines that privmap never writes —
// values negative, NaN, infinite or past their metric's range, metrics
// it does not know, negative users or runs — and checks that each is
// refused with its line, and that resuming from such a file names it.
func TestReadRowsRefuses(t *testing.T) {
	head := strings.Join(Header, ",") + "\n"
	for _, tc := range []struct{ line, want string }{
		{"fw-fig2,a,s,100,GIBU,0,1,emd,-0.5", "line 2: emd -0.5: want a finite number from 0 to +Inf"},
		{"fw-fig2,a,s,100,GIBU,0,1,mse,NaN", `line 2: "NaN" is not a plain decimal number`},
		{"fw-fig2,a,s,100,GIBU,0,1,jsd,+Inf", `line 2: "+Inf" is not a plain decimal number`},
		{"fw-fig2,a,s,100,GIBU,0,1,mse,1e999", `line 2: strconv.ParseFloat: parsing "1e999": value out of range`},
		{"fw-fig2,a,s,100,GIBU,0,1,tv,1.5", "line 2: tv 1.5: want a finite number from 0 to 1"},
		{"fw-fig2,a,s,100,GIBU,0,1,entropy,-Inf", `line 2: "-Inf" is not a plain decimal number`},
		{"fw-fig2,a,s,100,GIBU,0,1,accuracy,0.5", `line 2: metric "accuracy" is none of privmap's`},
		{"fw-fig2,a,s,-100,GIBU,0,1,emd,0.5", "line 2: users -100 and run 0: want whole numbers ≥ 0"},
	} {
		_, err := ReadRows(strings.NewReader(head + tc.line + "\n"))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.line, err, tc.want)
		}
	}
	if rows, err := ReadRows(strings.NewReader(head + "pm-fig7,a,s,0,laplace,0,1,entropy,-1.5\n")); err != nil || len(rows) != 1 {
		t.Errorf("a negative differential entropy: %v, %v", rows, err)
	}

	e, err := Lookup("fw-fig2")
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(t.TempDir(), RunsFile)
	if err := os.WriteFile(name, []byte(head+"fw-fig2,a,s,100,GIBU,0,1,emd,NaN\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = KeptRows(e, nil, Options{Runs: 1}, name)
	if err == nil || !strings.HasPrefix(err.Error(), name+`: line 2: "NaN" is not a plain decimal number`) {
		t.Errorf("resume from a runs.csv holding NaN: %v, want an error naming the file and line", err)
	}
}

// TestWorkerPanic checks that a panic in a job, on a worker goroutine,
// is that job's error rather than the end of the program.
func TestWorkerPanic(t *testing.T) {
	jobs := []Job{{Run: 0}, {Run: 1}}
	var errs []error
	for r := range runAll(context.Background(), jobs, 2, func(j Job) ([]Row, error) {
		if j.Run == 1 {
			panic("boom")
		}
		return nil, nil
	}) {
		if r.err != nil {
			errs = append(errs, r.err)
		}
	}
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "run 1: internal error: boom") {
		t.Errorf("errors %v, want the panicking job's", errs)
	}
}
