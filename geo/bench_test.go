package geo

import (
	"bufio"
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/privmap/privmap/internal/testtool"
)

// benchData returns n users' synthetic check-ins and their SNAP text.
func benchData(b *testing.B, users int) ([]Checkin, []byte) {
	b.Helper()
	opt := SFSynth
	opt.Users = users
	cs := Synthesize(rand.New(rand.NewPCG(1, 1)), SanFrancisco, opt)
	var buf bytes.Buffer
	if err := WriteSNAP(&buf, cs); err != nil {
		b.Fatal(err)
	}
	return cs, buf.Bytes()
}

func BenchmarkReadSNAP(b *testing.B) {
	for _, users := range []int{1000, 20000} {
		_, text := benchData(b, users)
		b.Run(strconv.Itoa(users)+"users", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if _, err := ReadCheckins(bytes.NewReader(text), Auto, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkGridCheckins(b *testing.B) {
	cs, _ := benchData(b, 20000)
	for _, rule := range []PerUser{First, All} {
		b.Run(rule.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := GridCheckins(cs, GridOptions{Bound: FWBound, CellKm: 0.1, PerUser: rule}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// gowallaSize is the number of lines of SNAP's full loc-gowalla file.
const gowallaSize = 6_442_890

// writeBigSNAP writes a synthetic SNAP file of gowallaSize lines, Gowalla's
// full size, into dir, 1,000 users at a time so that the records are never
// all in memory.
func writeBigSNAP(b *testing.B, dir string) string {
	b.Helper()
	name := filepath.Join(dir, "gowalla-size.txt")
	f, err := os.Create(name)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	opt := SFSynth
	opt.Users, opt.MeanCheckins = 1000, 60
	for chunk, n := 0, 0; n < gowallaSize; chunk++ {
		cs := Synthesize(rand.New(rand.NewPCG(uint64(chunk), 9)), SanFrancisco, opt)
		for i := range cs {
			u, _ := strconv.Atoi(cs[i].User)
			cs[i].User = strconv.Itoa(chunk*1000 + u)
		}
		cs = cs[:min(len(cs), gowallaSize-n)]
		n += len(cs)
		if err := WriteSNAP(w, cs); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return name
}

// BenchmarkGridFile reads and grids a file of Gowalla's full size (6.4
// million lines, first check-in per user, issue 14's target: under 10 s and
// 256 MiB) by streaming it (GridScan) and, as the baseline, by reading
// every record first (ReadCheckins, GridCheckins). peak-heap-MiB is the
// largest live heap seen while it ran.
func BenchmarkGridFile(b *testing.B) {
	name := writeBigSNAP(b, b.TempDir())
	opt := GridOptions{Bound: FWBound, CellKm: 0.5}
	run := func(b *testing.B, grid func(*os.File) (*Gridded, error)) {
		b.ReportAllocs()
		runtime.GC()
		stop := testtool.PeakHeap()
		for b.Loop() {
			f, err := os.Open(name)
			if err != nil {
				b.Fatal(err)
			}
			gd, err := grid(f)
			f.Close()
			if err != nil || gd.Records != gowallaSize {
				b.Fatalf("%v, %+v", err, gd)
			}
		}
		b.ReportMetric(stop(), "peak-heap-MiB")
	}
	b.Run("stream", func(b *testing.B) {
		run(b, func(f *os.File) (*Gridded, error) {
			gd, _, err := GridScan(func(fn func(Checkin) error) (*Result, error) {
				return ScanCheckins(context.Background(), f, Auto, Options{}, fn)
			}, opt)
			return gd, err
		})
	})
	b.Run("read-all-baseline", func(b *testing.B) {
		run(b, func(f *os.File) (*Gridded, error) {
			res, err := ReadCheckins(f, Auto, Options{})
			if err != nil {
				return nil, err
			}
			return GridCheckins(res.Checkins, opt)
		})
	})
}
