package pipeline

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/privmap/privmap/core"
)

// sparkCount is a row of the collector's GROUP BY as Spark writes it:
// nullable columns, the count first.
type sparkCount struct {
	Count     *int64  `parquet:"count,optional"`
	Mechanism *string `parquet:"mechanism,optional"`
	Report    *string `parquet:"report,optional"`
}

// writeParquet writes rows into name, rowGroup rows to a row group.
func writeParquet[T any](t testing.TB, name string, rows []T, rowGroup int) {
	t.Helper()
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[T](f, parquet.MaxRowsPerRowGroup(int64(rowGroup)))
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// reportsStudy is testStudy with a RAPPOR mechanism beside its two k-RR,
// so that bit-vector reports are read too.
func reportsStudy(t testing.TB) (*core.Study, []core.Mechanism) {
	s, _ := testStudy()
	half, sixth, third := 0.5, 1.0/6, 1.0/3
	s.Mechanisms[0].Share, s.Mechanisms[1].Share = &half, &sixth
	s.Mechanisms = append(s.Mechanisms, core.MechanismSpec{ID: "bits", Kind: core.KindRAPPOR, Epsilon: 2, Share: &third})
	mechs, err := BuildMechanisms(context.Background(), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s, mechs
}

// TestReportsFileForms checks that per-user reports, CSV counts, a Parquet
// file of counts and a Spark directory of Parquet parts give the same
// groups and bit-identical estimates.
func TestReportsFileForms(t *testing.T) {
	s, mechs := reportsStudy(t)
	var perUser strings.Builder
	perUser.WriteString("user,mechanism,report\n")
	counts := map[[2]string]int64{}
	_, err := Sanitise(context.Background(), s, mechs, Users{Data: s.Data}, 7, func(user, j int, r core.Report) error {
		fmt.Fprintf(&perUser, "u%d,%s,%s\n", user, s.Mechanisms[j].ID, r)
		counts[[2]string{s.Mechanisms[j].ID, r.String()}]++
		return nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	keys := make([][2]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]string) int { return strings.Compare(a[0]+a[1], b[0]+b[1]) })
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	var csvCounts strings.Builder
	csvCounts.WriteString("mechanism,report,count\n")
	rows := make([]sparkCount, len(keys))
	for i, k := range keys {
		fmt.Fprintf(&csvCounts, "%s,%s,%d\n", k[0], k[1], counts[k])
		c, m, r := counts[k], k[0], k[1]
		rows[i] = sparkCount{Count: &c, Mechanism: &m, Report: &r}
	}

	dir := t.TempDir()
	files := map[string]string{
		"per-user CSV": filepath.Join(dir, "reports.csv"),
		"counts CSV":   filepath.Join(dir, "counts.csv"),
		"Parquet":      filepath.Join(dir, "counts.parquet"),
		"Spark parts":  filepath.Join(dir, "counts-spark"),
	}
	writeText(t, files["per-user CSV"], perUser.String())
	writeText(t, files["counts CSV"], csvCounts.String())
	writeParquet(t, files["Parquet"], rows, 7)
	spark := files["Spark parts"]
	if err := os.Mkdir(spark, 0o755); err != nil {
		t.Fatal(err)
	}
	third := len(rows) / 3
	writeParquet(t, filepath.Join(spark, "part-00000-1f2e.c000.snappy.parquet"), rows[:third], 5)
	writeParquet(t, filepath.Join(spark, "part-00001-1f2e.c000.snappy.parquet"), rows[third:2*third], 1000)
	writeParquet(t, filepath.Join(spark, "part-00002-1f2e.c000.snappy.parquet"), rows[2*third:], 3)
	writeText(t, filepath.Join(spark, "_SUCCESS"), "")
	writeText(t, filepath.Join(spark, ".part-00000-1f2e.c000.snappy.parquet.crc"), "crc")

	want, err := ReadReportsFile(context.Background(), files["per-user CSV"], s, mechs)
	if err != nil {
		t.Fatal(err)
	}
	if want.N() != len(s.Data) {
		t.Fatalf("per-user CSV: %d reports, want %d", want.N(), len(s.Data))
	}
	wantEst, err := core.Reconstruct(context.Background(), core.MethodGIBU, s, mechs, want, core.EstimateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The same parts as links from another folder, as a job's output
	// assembled by linking.
	linked := filepath.Join(dir, "linked-spark")
	if err := os.Mkdir(linked, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		n := fmt.Sprintf("part-0000%d-1f2e.c000.snappy.parquet", i)
		if err := os.Symlink(filepath.Join(spark, n), filepath.Join(linked, n)); err != nil {
			t.Fatal(err)
		}
	}
	files["linked Spark parts"] = linked
	// A named pipe, as the shell's <(…) gives: read once, never sought.
	pipe := filepath.Join(dir, "counts.fifo")
	if err := syscall.Mkfifo(pipe, 0o600); err != nil {
		t.Fatal(err)
	}
	files["pipe"] = pipe
	go func() {
		f, err := os.OpenFile(pipe, os.O_WRONLY, 0)
		if err != nil {
			return // the reader reports it
		}
		defer f.Close()
		io.WriteString(f, csvCounts.String())
	}()
	for _, form := range []string{"counts CSV", "Parquet", "Spark parts", "linked Spark parts", "pipe"} {
		g, err := ReadReportsFile(context.Background(), files[form], s, mechs)
		if err != nil {
			t.Fatalf("%s: %v", form, err)
		}
		if !reflect.DeepEqual(g, want) {
			t.Errorf("%s: groups differ from the per-user reports'", form)
		}
		est, err := core.Reconstruct(context.Background(), core.MethodGIBU, s, mechs, g, core.EstimateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(est.Theta, wantEst.Theta) {
			t.Errorf("%s: estimate %v, per-user %v", form, est.Theta, wantEst.Theta)
		}
	}
}

func writeText(t *testing.T, name, text string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReportsFileErrors checks that bad Parquet input is a clear error
// naming the file, never a panic.
func TestReportsFileErrors(t *testing.T) {
	s, mechs := reportsStudy(t)
	dir := t.TempDir()
	one := int64(1)
	type noReport struct {
		Mechanism string `parquet:"mechanism"`
		Count     int64  `parquet:"count"`
	}
	type listed struct {
		Mechanism string   `parquet:"mechanism"`
		Report    []string `parquet:"report,list"`
	}
	cases := map[string]struct {
		write func(name string)
		want  string
	}{
		"no report column": {func(n string) { writeParquet(t, n, []noReport{{"lo", 3}}, 10) }, "lacks mechanism and report columns"},
		"null count": {func(n string) {
			writeParquet(t, n, []sparkCount{{Count: &one, Mechanism: str("lo"), Report: str("1")}, {Mechanism: str("lo"), Report: str("2")}}, 10)
		}, "row 2: column count is null"},
		"unknown mechanism": {func(n string) {
			writeParquet(t, n, []sparkCount{{Count: &one, Mechanism: str("nope"), Report: str("1")}}, 10)
		}, `row 1: no mechanism "nope"`},
		"nested column":  {func(n string) { writeParquet(t, n, []listed{{"lo", []string{"1"}}}, 10) }, "nested or repeated"},
		"truncated file": {func(n string) { writeText(t, n, "PAR1 and then nothing of a Parquet file") }, "not a readable Parquet file"},
		// Named by the file, not its folder (issue 46: ".: core: reports").
		"no rows": {func(n string) { writeParquet(t, n, []sparkCount{}, 10) }, "no reports"},
		"empty directory": {func(n string) {
			if err := os.Mkdir(n, 0o755); err != nil {
				t.Fatal(err)
			}
			writeText(t, filepath.Join(n, "_SUCCESS"), "")
		}, "found none"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			file := filepath.Join(dir, strings.ReplaceAll(name, " ", "-"))
			tc.write(file)
			_, err := ReadReportsFile(context.Background(), file, s, mechs)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), file) {
				t.Errorf("error %v, want one naming the file and saying %q", err, tc.want)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	name := filepath.Join(dir, "counts.parquet")
	writeParquet(t, name, []sparkCount{{Count: &one, Mechanism: str("lo"), Report: str("1")}}, 10)
	if _, err := ReadReportsFile(ctx, name, s, mechs); err != context.Canceled {
		t.Errorf("cancelled read: %v", err)
	}
}

// str returns a pointer to v, for Parquet's optional columns.
func str(v string) *string { return &v }

// TestSparkPartLinks checks that a part that is a dangling link, a link
// loop or a link to a folder is an error naming it, never skipped.
func TestSparkPartLinks(t *testing.T) {
	s, mechs := reportsStudy(t)
	for name, link := range map[string]func(dir, part string) error{
		"dangling": func(dir, part string) error { return os.Symlink(filepath.Join(dir, "gone"), part) },
		"loop":     func(dir, part string) error { return os.Symlink(part, part) },
		"folder":   func(dir, part string) error { return os.Symlink(dir, part) },
	} {
		dir := t.TempDir()
		one := int64(1)
		writeParquet(t, filepath.Join(dir, "part-00000.parquet"), []sparkCount{{Count: &one, Mechanism: str("lo"), Report: str("1")}}, 10)
		if err := link(dir, filepath.Join(dir, "part-00001.parquet")); err != nil {
			t.Fatal(err)
		}
		_, err := ReadReportsFile(context.Background(), dir, s, mechs)
		if err == nil || !strings.Contains(err.Error(), "part-00001.parquet") {
			t.Errorf("%s link: error %v, want one naming the part", name, err)
		}
	}
}
