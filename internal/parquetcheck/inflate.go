package parquetcheck

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go/format"
	"github.com/pierrec/lz4/v4"
)

// minZstdWindow is the window a ZSTD frame may ask for whatever its page
// declares: writers that stream without a pledged size ask for a few
// megabytes for pages of a few bytes.
const minZstdWindow = 16 << 20

// checkInflate checks that a page's compressed bytes, at byte at of r,
// inflate to the size its header declares, and no further: parquet-go's
// decoders trust what the compressed stream declares (a ZSTD frame header
// of 60 GiB is allocated whole before a byte is decoded), grow their
// output while the stream lasts (a GZIP page declaring 100 bytes that
// inflates to 6 GiB), or double their buffer on any error (LZ4). Each
// stream is decoded here with its output bounded by the page's declared
// size, itself at most maxPageBytes: ZSTD with its window and frame size
// capped, GZIP and Brotli streamed into a counter, Snappy by the length
// its block declares, LZ4 into a buffer of the declared size. ctx stops
// the decoding.
func checkInflate(ctx context.Context, r io.ReaderAt, codec format.CompressionCodec, h *format.PageHeader, at int64) error {
	body, want := int64(h.CompressedPageSize), int64(h.UncompressedPageSize)
	if v2, ok := h.DataPageHeaderV2.Get(); ok {
		levels := int64(v2.DefinitionLevelsByteLength) + int64(v2.RepetitionLevelsByteLength)
		if v2.DefinitionLevelsByteLength < 0 || v2.RepetitionLevelsByteLength < 0 || levels > body || levels > want {
			return fmt.Errorf("declares %d bytes of levels in a page of %d", levels, body)
		}
		if compressed, set := v2.IsCompressed.Get(); set && !compressed {
			return nil
		}
		at, body, want = at+levels, body-levels, want-levels
	}
	got, known, err := inflatedSize(ctx, codec, io.NewSectionReader(r, at, body), body, want)
	if !known {
		return nil
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("does not inflate as %s: %v", codec, err)
	}
	if got != want {
		if got > want {
			return fmt.Errorf("inflates as %s past the %d bytes it declares", codec, want)
		}
		return fmt.Errorf("inflates as %s to %d bytes where it declares %d", codec, got, want)
	}
	return nil
}

// inflatedSize returns the size src, body bytes compressed by codec,
// inflates to, at most want+1; known is false for a codec it does not
// decode here (none, or one parquet-go refuses, naming it).
func inflatedSize(ctx context.Context, codec format.CompressionCodec, src io.Reader, body, want int64) (got int64, known bool, err error) {
	switch codec {
	case format.Snappy:
		got, err = snappyLen(src, body)
	case format.Gzip:
		got, err = inflated(ctx, src, want, func(r io.Reader) (io.Reader, error) { return gzip.NewReader(r) })
	case format.Brotli:
		got, err = inflated(ctx, src, want, func(r io.Reader) (io.Reader, error) { return brotli.NewReader(r), nil })
	case format.Zstd:
		got, err = inflated(ctx, src, want, func(r io.Reader) (io.Reader, error) {
			lim := uint64(max(want, minZstdWindow))
			return zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
				zstd.WithDecoderMaxMemory(lim), zstd.WithDecoderMaxWindow(lim))
		})
	case format.Lz4Raw:
		got, err = lz4Len(src, body, want)
	default:
		return 0, false, nil
	}
	return got, true, err
}

// inflated returns how many bytes the stream open makes of src gives,
// reading at most want+1 of them into a counter; ctx is checked every
// 64 KiB.
func inflated(ctx context.Context, src io.Reader, want int64, open func(io.Reader) (io.Reader, error)) (int64, error) {
	d, err := open(src)
	if err != nil {
		return 0, err
	}
	if c, ok := d.(interface{ Close() }); ok {
		defer c.Close() // zstd's decoder holds goroutines and buffers
	}
	lim := &io.LimitedReader{R: d, N: want + 1}
	var buf [64 << 10]byte
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		k, err := lim.Read(buf[:])
		n += int64(k)
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// snappyLen returns the length a Snappy block declares at its start,
// which is what parquet-go's decoder allocates.
func snappyLen(src io.Reader, body int64) (int64, error) {
	head := make([]byte, min(body, 10))
	if _, err := io.ReadFull(src, head); err != nil {
		return 0, err
	}
	n, err := snappy.DecodedLen(head)
	return int64(n), err
}

// lz4Len decodes an LZ4 block into a buffer of the size the page
// declares and returns the bytes it gave.
func lz4Len(src io.Reader, body, want int64) (int64, error) {
	in := make([]byte, body)
	if _, err := io.ReadFull(src, in); err != nil {
		return 0, err
	}
	out := make([]byte, want+1)
	n, err := lz4.UncompressBlock(in, out)
	return int64(n), err
}
