package geo

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"testing"
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
