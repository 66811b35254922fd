// Package parquetcheck checks a Parquet file's footer and page headers
// before parquet-go, which allocates what they declare, reads it: the
// reports tables of package app/pipeline and the GeoParquet layers of package geo
// are read only past it.
package parquetcheck

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// Bounds on what Check lets parquet-go read. A reports table has
// two or three flat columns in pages of some thousand rows; these leave
// room for any writer's real files.
const (
	maxParquetFooter  = 16 << 20  // bytes of file metadata
	maxThriftElements = 1 << 18   // list, set and map elements in a footer or page header
	maxSchemaElements = 1024      // schema nodes
	maxSchemaDepth    = 8         // groups within groups
	maxThriftDepth    = 64        // structs within structs in a footer or page header
	maxPageBytes      = 256 << 20 // a page's uncompressed size
	minPageValues     = 1 << 20   // values a page may declare whatever its size
)

// ErrUnreadable marks a file whose structure privmap refuses to read.
var ErrUnreadable = errors.New("not a readable Parquet file")

// Open checks the Parquet file f (Check) and opens it with parquet-go,
// without the page index and bloom filters, which privmap does not
// read. It returns the file and its metadata as Check read it.
func Open(ctx context.Context, f *os.File) (*parquet.File, *format.FileMetaData, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	md, err := Check(ctx, f, fi.Size())
	if err != nil {
		return nil, nil, err
	}
	pf, err := parquet.OpenFile(f, fi.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrUnreadable, err)
	}
	return pf, md, nil
}

// Check reads the footer and every page header of the Parquet
// file r of size bytes and checks them before parquet-go, which
// allocates what they declare, reads the file:
//
//   - the footer's length, and every list it declares against the bytes
//     that remain (a thrift list of 2³¹ schema elements in a small
//     footer), with structs nested at most maxThriftDepth;
//   - the schema: at most maxSchemaElements nodes, groups nested at
//     most maxSchemaDepth (100,000 nested groups exhausted memory);
//   - each row group's rows and each column chunk's bytes, which must
//     lie within the file (a row group past its end was read as an
//     empty one, and an estimate made from half the rows);
//   - each page: its header and bytes within its chunk, at most
//     maxPageBytes uncompressed, and declaring no more values than its
//     chunk holds, nor more than 8 a byte beyond minPageValues (a page
//     declaring 2³¹ values exhausted memory);
//   - each page's compressed bytes, which must inflate to exactly the
//     size it declares (checkInflate: a ZSTD frame declaring 60 GiB, a
//     GZIP page inflating to 6 GiB exhausted memory).
//
// It returns the file's metadata. ctx stops the walk over the pages.
func Check(ctx context.Context, r io.ReaderAt, size int64) (*format.FileMetaData, error) {
	if size < 12 {
		return nil, fmt.Errorf("%w: %d bytes is too short", ErrUnreadable, size)
	}
	var tail [8]byte
	if _, err := r.ReadAt(tail[:], size-8); err != nil {
		return nil, err
	}
	if string(tail[4:]) != "PAR1" {
		return nil, fmt.Errorf("%w: its end is %q, not PAR1 (an encrypted or damaged file)", ErrUnreadable, tail[4:])
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	if n > size-12 || n > maxParquetFooter {
		return nil, fmt.Errorf("%w: its footer declares %d bytes in a file of %d (at most %d)", ErrUnreadable, n, size, int64(maxParquetFooter))
	}
	footer := make([]byte, n)
	if _, err := r.ReadAt(footer, size-8-n); err != nil {
		return nil, err
	}
	if _, err := thriftLen(footer); err != nil {
		return nil, fmt.Errorf("%w: footer: %v", ErrUnreadable, err)
	}
	md := new(format.FileMetaData)
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), footer, md); err != nil {
		return nil, fmt.Errorf("%w: footer: %v", ErrUnreadable, err)
	}
	if err := checkSchema(md.Schema); err != nil {
		return nil, err
	}
	dataEnd := size - 8 - n
	for i, rg := range md.RowGroups {
		if rg.NumRows < 0 {
			return nil, fmt.Errorf("%w: row group %d declares %d rows", ErrUnreadable, i+1, rg.NumRows)
		}
		for _, c := range rg.Columns {
			if err := checkChunk(ctx, r, &c.MetaData, dataEnd); err != nil {
				return nil, fmt.Errorf("%w: row group %d, column %s: %v", ErrUnreadable, i+1, columnPath(c.MetaData.PathInSchema), err)
			}
		}
	}
	return md, nil
}

// checkSchema checks the schema's size and nesting: the flattened tree
// of num_children counts must close within the list.
func checkSchema(s []format.SchemaElement) error {
	if len(s) == 0 || len(s) > maxSchemaElements {
		return fmt.Errorf("%w: a schema of %d nodes (at most %d)", ErrUnreadable, len(s), maxSchemaElements)
	}
	open := []int32{} // children still to read at each open group
	for i, e := range s {
		if len(open) > 0 {
			open[len(open)-1]--
		}
		if k, ok := e.NumChildren.Get(); ok && k > 0 {
			if len(open) == maxSchemaDepth {
				return fmt.Errorf("%w: schema groups nested deeper than %d (at %q)", ErrUnreadable, maxSchemaDepth, e.Name)
			}
			if int(k) > len(s)-i-1 {
				return fmt.Errorf("%w: schema node %q declares %d children, more than the %d nodes that follow", ErrUnreadable, e.Name, k, len(s)-i-1)
			}
			open = append(open, k)
		} else if k < 0 {
			return fmt.Errorf("%w: schema node %q declares %d children", ErrUnreadable, e.Name, k)
		}
		for len(open) > 0 && open[len(open)-1] == 0 {
			open = open[:len(open)-1]
		}
	}
	if len(open) > 0 {
		return fmt.Errorf("%w: the schema ends inside a group", ErrUnreadable)
	}
	return nil
}

// checkChunk checks a column chunk's bytes against the data's end and
// walks its page headers.
func checkChunk(ctx context.Context, r io.ReaderAt, m *format.ColumnMetaData, dataEnd int64) error {
	start := m.DataPageOffset
	if d := m.DictionaryPageOffset; d > 0 && d < start {
		start = d
	}
	if start < 4 || m.TotalCompressedSize < 0 || m.NumValues < 0 || start > dataEnd || m.TotalCompressedSize > dataEnd-start {
		return fmt.Errorf("its %d bytes from offset %d lie outside the file's data (bytes 4 to %d)", m.TotalCompressedSize, start, dataEnd)
	}
	end := start + m.TotalCompressedSize
	values := m.NumValues // left to declare
	buf := make([]byte, 64<<10)
	for at := start; at < end; {
		if err := ctx.Err(); err != nil {
			return err
		}
		h, hlen, err := pageHeader(r, buf[:min(int64(len(buf)), end-at)], at)
		if err != nil {
			return fmt.Errorf("page at byte %d: header: %v", at, err)
		}
		if err := checkPage(&h, end-at-int64(hlen), &values); err != nil {
			return fmt.Errorf("page at byte %d %v", at, err)
		}
		if err := checkInflate(ctx, r, m.Codec, &h, at+int64(hlen)); err != nil {
			if ctx.Err() != nil {
				return err
			}
			return fmt.Errorf("page at byte %d %v", at, err)
		}
		at += int64(hlen) + int64(h.CompressedPageSize)
	}
	return nil
}

// pageHeader reads the page header at byte at into buf and decodes it,
// checked by thriftLen first, returning it and its length.
func pageHeader(r io.ReaderAt, buf []byte, at int64) (format.PageHeader, int, error) {
	var h format.PageHeader
	if _, err := r.ReadAt(buf, at); err != nil && !errors.Is(err, io.EOF) {
		return h, 0, err
	}
	n, err := thriftLen(buf)
	if err == nil {
		err = thrift.Unmarshal(new(thrift.CompactProtocol), buf[:n], &h)
	}
	return h, n, err
}

// checkPage checks a page header against the room left in its chunk and
// the values its chunk has left to declare, which it takes.
func checkPage(h *format.PageHeader, room int64, values *int64) error {
	if h.CompressedPageSize < 0 || int64(h.CompressedPageSize) > room {
		return fmt.Errorf("declares %d bytes, past its chunk's end", h.CompressedPageSize)
	}
	if h.CompressedPageSize > maxPageBytes {
		return fmt.Errorf("declares %d bytes compressed (at most %d)", h.CompressedPageSize, maxPageBytes)
	}
	if h.UncompressedPageSize < 0 || h.UncompressedPageSize > maxPageBytes {
		return fmt.Errorf("declares %d bytes uncompressed (at most %d)", h.UncompressedPageSize, maxPageBytes)
	}
	n, data := pageValues(h)
	if n < 0 || int64(n) > max(8*int64(h.UncompressedPageSize), minPageValues) {
		return fmt.Errorf("declares %d values in %d bytes", n, h.UncompressedPageSize)
	}
	if data {
		if int64(n) > *values {
			return fmt.Errorf("declares %d values where its chunk has %d left", n, *values)
		}
		*values -= int64(n)
	}
	return nil
}

// pageValues returns the values a page header declares, and whether
// they are data (not a dictionary's).
func pageValues(h *format.PageHeader) (n int32, data bool) {
	if d, ok := h.DataPageHeader.Get(); ok {
		return d.NumValues, true
	}
	if d, ok := h.DataPageHeaderV2.Get(); ok {
		return d.NumValues, true
	}
	if d, ok := h.DictionaryPageHeader.Get(); ok {
		return d.NumValues, false
	}
	return 0, false
}

// columnPath names a column by its path in the schema.
func columnPath(p []string) string {
	s := ""
	for i, n := range p {
		if i > 0 {
			s += "."
		}
		s += n
	}
	return s
}

// Thrift compact protocol types (the Apache Thrift specification).
const (
	tBoolTrue, tBoolFalse, tByte, tI16, tI32, tI64, tDouble, tBinary, tList, tSet, tMap, tStruct, tUUID = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13
)

// errThrift is thriftStruct's error for bytes that are no struct.
var errThrift = errors.New("malformed thrift")

// thriftStruct walks one compact-protocol struct at the start of b and
// returns its length in bytes. It allocates nothing: every list, set,
// map and string is checked against the bytes that remain (each element
// takes at least one byte), all lists together against budget, and
// structs may nest maxThriftDepth deep, so that decoding it afterwards
// allocates a bounded amount. Hand-written because parquet-go's decoder
// allocates the sizes it reads.
func thriftStruct(b []byte, depth int, budget *int) (int, error) {
	if depth > maxThriftDepth {
		return 0, fmt.Errorf("%w: structs nested deeper than %d", errThrift, maxThriftDepth)
	}
	i := 0
	for {
		if i >= len(b) {
			return 0, fmt.Errorf("%w: a struct runs past its bytes", errThrift)
		}
		h := b[i]
		i++
		if h == 0 {
			return i, nil // stop
		}
		if h>>4 == 0 { // a long-form field id
			_, n, err := uvarint(b[i:])
			if err != nil {
				return 0, err
			}
			i += n
		}
		n, err := thriftValue(b[i:], h&0x0f, depth, budget)
		if err != nil {
			return 0, err
		}
		i += n
	}
}

// thriftValue returns the length of one value of type t at the start
// of b.
func thriftValue(b []byte, t byte, depth int, budget *int) (int, error) {
	switch t {
	case tBoolTrue, tBoolFalse:
		return 0, nil
	case tByte:
		return fixed(b, 1)
	case tDouble:
		return fixed(b, 8)
	case tUUID:
		return fixed(b, 16)
	case tI16, tI32, tI64:
		_, n, err := uvarint(b)
		return n, err
	case tBinary:
		l, n, err := uvarint(b)
		if err != nil {
			return 0, err
		}
		if l > uint64(len(b)-n) {
			return 0, fmt.Errorf("%w: a string of %d bytes where %d remain", errThrift, l, len(b)-n)
		}
		return n + int(l), nil
	case tList, tSet:
		return thriftList(b, depth, budget)
	case tMap:
		return thriftMap(b, depth, budget)
	case tStruct:
		return thriftStruct(b, depth+1, budget)
	}
	return 0, fmt.Errorf("%w: unknown type %d", errThrift, t)
}

// thriftList returns the length of a list or set at the start of b.
func thriftList(b []byte, depth int, budget *int) (int, error) {
	if len(b) == 0 {
		return 0, fmt.Errorf("%w: a list runs past its bytes", errThrift)
	}
	size, t, i := uint64(b[0]>>4), b[0]&0x0f, 1
	if size == 15 {
		s, n, err := uvarint(b[1:])
		if err != nil {
			return 0, err
		}
		size, i = s, 1+n
	}
	if size > uint64(len(b)-i) {
		return 0, fmt.Errorf("%w: a list of %d elements where %d bytes remain", errThrift, size, len(b)-i)
	}
	if err := spend(budget, size); err != nil {
		return 0, err
	}
	return thriftElems(b, i, size, []byte{t}, depth, budget)
}

// thriftMap returns the length of a map at the start of b.
func thriftMap(b []byte, depth int, budget *int) (int, error) {
	size, i, err := uvarint(b)
	if err != nil {
		return 0, err
	}
	if size == 0 {
		return i, nil
	}
	if size > uint64(len(b)-i) {
		return 0, fmt.Errorf("%w: a map of %d entries where %d bytes remain", errThrift, size, len(b)-i)
	}
	if err := spend(budget, 2*size); err != nil {
		return 0, err
	}
	if i >= len(b) {
		return 0, fmt.Errorf("%w: a map runs past its bytes", errThrift)
	}
	return thriftElems(b, i+1, size, []byte{b[i] >> 4, b[i] & 0x0f}, depth, budget)
}

// thriftElems returns the index past n elements from b[i], each a value
// of every type of ts in turn (a list's one, a map's key and value); in
// a collection a bool takes a byte.
func thriftElems(b []byte, i int, n uint64, ts []byte, depth int, budget *int) (int, error) {
	for range n {
		for _, t := range ts {
			if t == tBoolTrue || t == tBoolFalse {
				t = tByte
			}
			m, err := thriftValue(b[i:], t, depth, budget)
			if err != nil {
				return 0, err
			}
			i += m
		}
	}
	return i, nil
}

// spend takes n elements from the budget, failing once it is spent: the
// decoder makes a Go value of each, some hundred bytes, where the
// encoding may take one.
func spend(budget *int, n uint64) error {
	if n > uint64(*budget) {
		return fmt.Errorf("%w: more than %d list elements", errThrift, maxThriftElements)
	}
	*budget -= int(n)
	return nil
}

// thriftLen returns the length of the compact-protocol struct at the
// start of b, checked by thriftStruct.
func thriftLen(b []byte) (int, error) {
	budget := maxThriftElements
	return thriftStruct(b, 0, &budget)
}

// fixed returns n if b holds n bytes.
func fixed(b []byte, n int) (int, error) {
	if len(b) < n {
		return 0, fmt.Errorf("%w: a value runs past its bytes", errThrift)
	}
	return n, nil
}

// uvarint reads a varint at the start of b.
func uvarint(b []byte) (uint64, int, error) {
	v, n := binary.Uvarint(b)
	if n <= 0 {
		return 0, 0, fmt.Errorf("%w: a bad varint", errThrift)
	}
	return v, n, nil
}
