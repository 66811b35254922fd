package parquetcheck

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// TestCheckChunk refuses a page that declares more values than its bytes
// could hold, before parquet-go would allocate them.
func TestCheckChunk(t *testing.T) {
	// A page declaring 2³¹−1 values in 10 bytes.
	h, err := thrift.Marshal(new(thrift.CompactProtocol), &format.PageHeader{Type: format.DataPage, UncompressedPageSize: 10, CompressedPageSize: 10,
		DataPageHeader: thrift.New(format.DataPageHeader{NumValues: 1<<31 - 1})})
	if err != nil {
		t.Fatal(err)
	}
	chunk := append(append([]byte("PAR1"), h...), make([]byte, 10)...)
	m := &format.ColumnMetaData{DataPageOffset: 4, TotalCompressedSize: int64(len(h) + 10), NumValues: 1 << 31}
	if err := checkChunk(context.Background(), bytes.NewReader(chunk), m, int64(len(chunk))); err == nil || !strings.Contains(err.Error(), "declares 2147483647 values in 10 bytes") {
		t.Errorf("a page of 2³¹−1 values: %v", err)
	}
}
