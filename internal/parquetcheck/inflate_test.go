package parquetcheck

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/format"
)

// forged is a codec that writes what its payload makes of each page
// under another codec's name, as a hostile writer would.
type forged struct {
	codec   format.CompressionCodec
	payload func(page []byte) []byte
}

func (f *forged) String() string                            { return f.codec.String() }
func (f *forged) CompressionCodec() format.CompressionCodec { return f.codec }
func (f *forged) Encode(dst, src []byte) ([]byte, error) {
	return append(dst[:0], f.payload(src)...), nil
}
func (f *forged) Decode(dst, src []byte) ([]byte, error) { return append(dst[:0], src...), nil }

type point struct {
	Person string  `parquet:"person"`
	Lat    float64 `parquet:"lat"`
}

// writeFile writes 100 rows with codec and returns the file's bytes.
func writeFile(t *testing.T, codec compress.Codec) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[point](&buf, parquet.Compression(codec))
	rows := make([]point, 100)
	for i := range rows {
		rows[i] = point{Person: "p", Lat: float64(i)}
	}
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// zstdFrame60GiB is a ZSTD frame whose header declares 60 GiB of content
// (frame header descriptor 0xC0: an 8-byte content size, a window
// descriptor) before one raw last block holding page.
func zstdFrame60GiB(page []byte) []byte {
	b := []byte{0x28, 0xb5, 0x2f, 0xfd, 0xc0, 0x00}
	b = binary.LittleEndian.AppendUint64(b, 60<<30)
	h := uint32(len(page))<<3 | 1 // raw block, last
	b = append(b, byte(h), byte(h>>8), byte(h>>16))
	return append(b, page...)
}

// gzipBomb is n GZIP members each inflating to 64 MiB of zeros, which a
// reader reads as one stream.
func gzipBomb(t *testing.T, n int) []byte {
	var one bytes.Buffer
	z, _ := gzip.NewWriterLevel(&one, gzip.BestCompression)
	if _, err := z.Write(make([]byte, 64<<20)); err != nil {
		t.Fatal(err)
	}
	z.Close()
	return bytes.Repeat(one.Bytes(), n)
}

// TestCheckInflate refuses pages whose compressed bytes inflate past what
// their headers declare, before parquet-go allocates it: a ZSTD frame
// declaring 60 GiB, a GZIP page inflating to 6 GiB, an LZ4 block that is
// not one (parquet-go doubled its buffer without end), a Snappy block
// declaring 4 GiB; each checked with at most 64 MiB allocated. Honest
// files of every codec parquet-go writes pass and read back.
func TestCheckInflate(t *testing.T) {
	bomb := gzipBomb(t, 96)
	for _, tc := range []struct {
		name  string
		codec compress.Codec
		want  string
	}{
		{"zstd 60 GiB", &forged{format.Zstd, zstdFrame60GiB}, "does not inflate as ZSTD"},
		{"gzip 6 GiB", &forged{format.Gzip, func([]byte) []byte { return bomb }}, "inflates as GZIP past the"},
		{"lz4 garbage", &forged{format.Lz4Raw, func(p []byte) []byte { return bytes.Repeat([]byte{0xff}, 40) }}, "does not inflate as LZ4_RAW"},
		{"snappy 4 GiB", &forged{format.Snappy, func(p []byte) []byte { return append([]byte{0xff, 0xff, 0xff, 0xff, 0x0f}, p...) }}, "inflates as SNAPPY past the"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := writeFile(t, tc.codec)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := Check(context.Background(), bytes.NewReader(b), int64(len(b)))
			runtime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%v, want %q", err, tc.want)
			}
			if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
				t.Errorf("checking it allocated %d MiB", got>>20)
			}
		})
	}
	for _, codec := range []compress.Codec{&parquet.Uncompressed, &parquet.Snappy, &parquet.Gzip, &parquet.Brotli, &parquet.Zstd, &parquet.Lz4Raw} {
		b := writeFile(t, codec)
		name := filepath.Join(t.TempDir(), "f.parquet")
		if err := os.WriteFile(name, b, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		pf, _, err := Open(context.Background(), f)
		if err != nil {
			t.Errorf("%s: %v", codec, err)
		} else if pf.NumRows() != 100 {
			t.Errorf("%s: %d rows", codec, pf.NumRows())
		}
		f.Close()
	}
}

// countdown is a context that ends after its Err has been asked n times.
type countdown struct {
	context.Context
	n int
}

func (c *countdown) Err() error {
	if c.n--; c.n < 0 {
		return context.Canceled
	}
	return nil
}

// TestCheckInflateCancel stops decoding a stream when ctx ends: a
// GZIP stream that honestly inflates to 128 MiB, cancelled after 4 of
// its 2,048 blocks of 64 KiB.
func TestCheckInflateCancel(t *testing.T) {
	ctx := &countdown{Context: context.Background(), n: 4}
	n, err := inflated(ctx, bytes.NewReader(gzipBomb(t, 2)), 128<<20, func(r io.Reader) (io.Reader, error) { return gzip.NewReader(r) })
	if !errors.Is(err, context.Canceled) || n > 4<<16 {
		t.Errorf("%d bytes, %v; want at most 4 blocks of 64 KiB and context.Canceled", n, err)
	}
}

// FuzzCheckInflate reads any bytes as a compressed page of each codec
// parquet-go decodes: checkInflate never panics, and a page it passes
// decodes through parquet-go's own codec to exactly the size it
// declares, never more.
func FuzzCheckInflate(f *testing.F) {
	for _, c := range []compress.Codec{&parquet.Snappy, &parquet.Gzip, &parquet.Brotli, &parquet.Zstd, &parquet.Lz4Raw} {
		page := []byte("privmap privmap privmap 0123456789")
		b, err := c.Encode(nil, page)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(byte(c.CompressionCodec()), uint16(len(page)), b)
	}
	f.Add(byte(format.Zstd), uint16(10), zstdFrame60GiB([]byte("0123456789")))
	f.Fuzz(func(t *testing.T, codec byte, declared uint16, b []byte) {
		c := format.CompressionCodec(codec % 8)
		h := &format.PageHeader{Type: format.DataPage, CompressedPageSize: int32(len(b)), UncompressedPageSize: int32(declared)}
		if checkInflate(context.Background(), bytes.NewReader(b), c, h, 0) != nil {
			return
		}
		out, err := parquet.LookupCompressionCodec(c).Decode(nil, b)
		if err == nil && c != format.Uncompressed && len(out) != int(declared) {
			t.Errorf("%s: passed as %d bytes, decoded to %d", c, declared, len(out))
		}
	})
}
