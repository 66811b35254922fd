package pipeline

import (
	"bytes"
	"context"
	"encoding/binary"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/privmap/privmap/internal/parquetcheck"
)

// decimalCount and unsignedCount are count tables of other column types.
type decimalCount struct {
	Mechanism string `parquet:"mechanism"`
	Report    string `parquet:"report"`
	Count     int32  `parquet:"count,decimal(2:9)"`
}

type unsignedCount struct {
	Mechanism string `parquet:"mechanism"`
	Report    string `parquet:"report"`
	Count     uint32 `parquet:"count"`
}

// TestParquetCountTypes reads counts stored as DECIMAL(9,2) — 3.00 is 3,
// 2.50 is refused as not whole — and as unsigned 32-bit integers past
// 2³¹, read as unsigned.
func TestParquetCountTypes(t *testing.T) {
	s, mechs := reportsStudy(t)
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole.parquet")
	writeParquet(t, whole, []decimalCount{{"lo", "1", 300}, {"hi", "2", 100}}, 10)
	g, err := ReadReportsFile(context.Background(), whole, s, mechs)
	if err != nil || g.N() != 4 {
		t.Errorf("DECIMAL counts 3.00 and 1.00: %v reports, %v; want 4", g, err)
	}
	half := filepath.Join(dir, "half.parquet")
	writeParquet(t, half, []decimalCount{{"lo", "1", 250}}, 10)
	if _, err := ReadReportsFile(context.Background(), half, s, mechs); err == nil || !strings.Contains(err.Error(), `"2.5"`) {
		t.Errorf("DECIMAL count 2.50: %v, want it refused as 2.5", err)
	}
	big := filepath.Join(dir, "unsigned.parquet")
	writeParquet(t, big, []unsignedCount{{"lo", "1", 3_000_000_000}}, 10)
	if g, err := ReadReportsFile(context.Background(), big, s, mechs); err != nil || g.N() != 3_000_000_000 {
		t.Errorf("UINT_32 count 3·10⁹: %v, %v", g, err)
	}
}

// TestDecimalText writes scaled decimals.
func TestDecimalText(t *testing.T) {
	for _, tc := range []struct {
		u     int64
		scale int
		want  string
	}{{250, 2, "2.5"}, {300, 2, "3"}, {-5, 3, "-0.005"}, {7, 0, "7"}, {12, -2, "1200"}, {0, 2, "0"}} {
		if got := decimalText(bigInt(tc.u), tc.scale); got != tc.want {
			t.Errorf("decimalText(%d, %d) = %q, want %q", tc.u, tc.scale, got, tc.want)
		}
	}
}

// rewriteFooter writes name again with its footer changed by edit.
func rewriteFooter(t *testing.T, name string, edit func(*format.FileMetaData)) {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	n := int(binary.LittleEndian.Uint32(b[len(b)-8:]))
	var md format.FileMetaData
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), b[len(b)-8-n:len(b)-8], &md); err != nil {
		t.Fatal(err)
	}
	edit(&md)
	footer, err := thrift.Marshal(new(thrift.CompactProtocol), &md)
	if err != nil {
		t.Fatal(err)
	}
	out := append(append([]byte(nil), b[:len(b)-8-n]...), footer...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(footer)))
	out = append(out, "PAR1"...)
	if err := os.WriteFile(name, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestParquetStructure damages a good file's footer as an attacker or a
// broken writer would and checks that each is refused before parquet-go
// reads it, naming what is wrong: a row group past the file's end (it
// was read as empty), fewer rows than declared, a schema of 100,000
// nested groups and a footer declaring a list of 2³¹ elements (both
// exhausted memory), and a page declaring 2³¹ values.
func TestParquetStructure(t *testing.T) {
	s, mechs := reportsStudy(t)
	one := int64(1)
	rows := make([]sparkCount, 40)
	for i := range rows {
		rows[i] = sparkCount{Count: &one, Mechanism: str("lo"), Report: str("1")}
	}
	for _, tc := range []struct {
		name string
		edit func(*format.FileMetaData)
		want string
	}{
		{"row group past the end", func(md *format.FileMetaData) {
			md.RowGroups[1].Columns[0].MetaData.DataPageOffset = 1 << 40
		}, "row group 2, column count: its"},
		{"rows missing", func(md *format.FileMetaData) { md.RowGroups[1].NumRows = 30 }, "row group 2 gave 20 of the 30 rows"},
		{"100,000 nested groups", func(md *format.FileMetaData) { md.Schema = nest(md.Schema, 100_000) }, "a schema of 100001 nodes (at most 1024)"},
		{"20 nested groups", func(md *format.FileMetaData) { md.Schema = nest(md.Schema, 20) }, "schema groups nested deeper than 8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := filepath.Join(t.TempDir(), "counts.parquet")
			writeParquet(t, name, rows, 20)
			rewriteFooter(t, name, tc.edit)
			if _, err := ReadReportsFile(context.Background(), name, s, mechs); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%v, want %q", err, tc.want)
			}
		})
	}

	// A footer whose schema list declares 2³¹ elements in a few bytes:
	// field 2, type list, long size, of structs.
	footer := []byte{0x15, 0x02, 0x19, 0xfc}
	footer = binary.AppendUvarint(footer, 1<<31)
	footer = append(footer, 0, 0)
	file := append([]byte("PAR1"), footer...)
	file = binary.LittleEndian.AppendUint32(file, uint32(len(footer)))
	file = append(file, "PAR1"...)
	if _, err := parquetcheck.Check(context.Background(), bytes.NewReader(file), int64(len(file))); err == nil || !strings.Contains(err.Error(), "a list of 2147483648 elements") {
		t.Errorf("a list of 2³¹ schema elements: %v", err)
	}

}

// nest returns the schema's root over n groups nested one in another.
func nest(schema []format.SchemaElement, n int) []format.SchemaElement {
	nested := make([]format.SchemaElement, n)
	for i := range nested {
		nested[i] = format.SchemaElement{Name: "g", NumChildren: thrift.New[int32](1)}
	}
	return append(schema[:1], nested...)
}

// bigInt returns v as a big.Int.
func bigInt(v int64) *big.Int { return big.NewInt(v) }

// FuzzParquet reads any bytes as a Parquet reports file: an error or
// reports, never a panic, a hang or memory past what the bytes justify.
func FuzzParquet(f *testing.F) {
	dir := f.TempDir()
	one := int64(1)
	for i, n := range []int{1, 5} {
		rows := make([]sparkCount, n)
		for j := range rows {
			rows[j] = sparkCount{Count: &one, Mechanism: str("lo"), Report: str("1")}
		}
		name := filepath.Join(dir, "seed"+string(rune('a'+i))+".parquet")
		writeParquet(f, name, rows, 2)
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	s, mechs := reportsStudy(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		if !bytes.HasPrefix(b, []byte("PAR1")) {
			return // read as CSV, fuzzed by core's FuzzReports
		}
		name := filepath.Join(t.TempDir(), "f.parquet")
		if err := os.WriteFile(name, b, 0o644); err != nil {
			t.Fatal(err)
		}
		_, _ = ReadReportsFile(context.Background(), name, s, mechs)
	})
}
