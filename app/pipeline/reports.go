package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/privmap/privmap/core"
	"github.com/privmap/privmap/internal/parquetcheck"
)

// parquetMagic starts and ends every Parquet file.
var parquetMagic = []byte("PAR1")

// ReadReportsFile reads the reports of the study s, whose mechanisms are
// built as mechs, from name: a CSV file (core.ReadReports), a Parquet file,
// or a directory of Parquet files as Spark writes one (part-*.parquet
// beside _SUCCESS and .crc files). A Parquet table has the columns of the
// CSV — mechanism, report and count, any order, any other columns aside —
// typically the result of the collector's
//
//	SELECT mechanism, report, COUNT(*) AS count FROM reports GROUP BY mechanism, report
//
// (README.md, "Counts from a cluster"). Every form gives the same groups,
// so the same estimate, bit for bit. Reading stops once ctx is done.
func ReadReportsFile(ctx context.Context, name string, s *core.Study, mechs []core.Mechanism) (*core.Groups, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		parts, err := parquetParts(name)
		if err != nil {
			return nil, err
		}
		return readParquet(ctx, name, parts, s, mechs)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, len(parquetMagic))
	n, err := io.ReadFull(f, head)
	if err == nil && bytes.Equal(head, parquetMagic) {
		if !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("%s: a Parquet file is read from its end, which a pipe does not have: save it to a file first", name)
		}
		return readParquet(ctx, name, []string{name}, s, mechs)
	}
	// Read on from the head already read: a pipe cannot seek back.
	r := io.MultiReader(bytes.NewReader(head[:n]), f)
	g, err := core.ReadReports(ContextReader(ctx, r), s, mechs)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return g, nil
}

// parquetParts lists the Parquet files of a directory in name order,
// passing over the hidden and underscore files (_SUCCESS, .crc) Spark
// writes beside them.
func parquetParts(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var parts []string
	for _, e := range entries {
		n := e.Name()
		if !strings.HasSuffix(n, ".parquet") || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") {
			continue
		}
		path := filepath.Join(dir, n)
		if !e.Type().IsRegular() {
			// A part that is a link is followed; one that leads nowhere,
			// loops or is no regular file is an error, never skipped.
			fi, err := os.Stat(path)
			if err != nil {
				return nil, fmt.Errorf("%s: part %s: %w", dir, n, err)
			}
			if !fi.Mode().IsRegular() {
				return nil, fmt.Errorf("%s: part %s is not a regular file", dir, n)
			}
		}
		parts = append(parts, path)
	}
	if len(parts) == 0 {
		return nil, fmt.Errorf("%s: a directory of reports holds *.parquet files (part-*.parquet from Spark); found none", dir)
	}
	slices.Sort(parts)
	return parts, nil
}

// readParquet counts the rows of every Parquet file into one table,
// whose errors name what, the file or folder asked for.
func readParquet(ctx context.Context, what string, names []string, s *core.Study, mechs []core.Mechanism) (*core.Groups, error) {
	var t *core.ReportTable
	for _, name := range names {
		if err := readParquetFile(ctx, name, &t, s, mechs); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	g, err := t.Groups()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return g, nil
}

// readParquetFile counts the rows of one Parquet file into *t, starting
// the table from the file's columns if *t is nil. parquet-go panics on
// some malformed files; the panic becomes this file's error, so that a
// damaged file sent by someone else cannot stop privmap.
func readParquetFile(ctx context.Context, name string, t **core.ReportTable, s *core.Study, mechs []core.Mechanism) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("not a readable Parquet file: %v", p)
		}
	}()
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	pf, md, err := parquetcheck.Open(ctx, f)
	if err != nil {
		return err
	}
	head, err := parquetColumns(pf.Schema())
	if err != nil {
		return err
	}
	text := make([]func(parquet.Value) (string, error), len(head))
	for i, f := range pf.Schema().Fields() {
		text[i] = valueText(f.Type().LogicalType())
	}
	if *t == nil {
		if *t, err = core.NewReportTable(head, s, mechs); err != nil {
			return err
		}
	} else if err := sameColumns(*t, head); err != nil {
		return err
	}
	rec := make([]string, len(head))
	rows := make([]parquet.Row, 1024)
	row := int64(0)
	groups := pf.RowGroups()
	if len(groups) != len(md.RowGroups) {
		return fmt.Errorf("not a readable Parquet file: %d row groups read of the %d its footer lists", len(groups), len(md.RowGroups))
	}
	for i, rg := range groups {
		before := row
		if err := readRowGroup(ctx, rg, rows, rec, head, text, &row, *t); err != nil {
			return err
		}
		if want := md.RowGroups[i].NumRows; row-before != want {
			return fmt.Errorf("not a readable Parquet file: row group %d gave %d of the %d rows its footer declares", i+1, row-before, want)
		}
	}
	return nil
}

// valueText returns the function that writes a Parquet value of the
// logical type lt as the text a CSV cell would hold: unsigned integers
// as unsigned (a UINT_32 count of 3·10⁹ is not −1294967296), decimals
// scaled (DECIMAL(9,2) 250 is 2.5, and 300 is 3), anything else as
// parquet-go writes it.
func valueText(lt *format.LogicalType) func(parquet.Value) (string, error) {
	if lt != nil {
		switch t := lt.Value.(type) {
		case *format.IntType:
			if !t.IsSigned {
				return func(v parquet.Value) (string, error) {
					switch v.Kind() {
					case parquet.Int32:
						return strconv.FormatUint(uint64(uint32(v.Int32())), 10), nil
					case parquet.Int64:
						return strconv.FormatUint(uint64(v.Int64()), 10), nil
					}
					return v.String(), nil
				}
			}
		case *format.DecimalType:
			scale := int(t.Scale)
			return func(v parquet.Value) (string, error) {
				var u big.Int
				switch v.Kind() {
				case parquet.Int32:
					u.SetInt64(int64(v.Int32()))
				case parquet.Int64:
					u.SetInt64(v.Int64())
				case parquet.ByteArray, parquet.FixedLenByteArray:
					b := v.ByteArray()
					u.SetBytes(b)
					if len(b) > 0 && b[0]&0x80 != 0 { // two's complement
						u.Sub(&u, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
					}
				default:
					return "", fmt.Errorf("a DECIMAL stored as %v", v.Kind())
				}
				return decimalText(&u, scale), nil
			}
		}
	}
	return func(v parquet.Value) (string, error) { return v.String(), nil }
}

// decimalText writes u·10^−scale in plain decimal, without trailing
// zeros after the point.
func decimalText(u *big.Int, scale int) string {
	digits := new(big.Int).Abs(u).String()
	sign := ""
	if u.Sign() < 0 {
		sign = "-"
	}
	if scale <= 0 {
		return sign + digits + strings.Repeat("0", -scale)
	}
	if len(digits) <= scale {
		digits = strings.Repeat("0", scale-len(digits)+1) + digits
	}
	whole, frac := digits[:len(digits)-scale], strings.TrimRight(digits[len(digits)-scale:], "0")
	if frac == "" {
		return sign + whole
	}
	return sign + whole + "." + frac
}

// readRowGroup counts the rows of one row group; *row numbers them
// through the file, from 1, for errors.
func readRowGroup(ctx context.Context, rg parquet.RowGroup, rows []parquet.Row, rec, head []string, text []func(parquet.Value) (string, error),
	row *int64, t *core.ReportTable) error {
	rr := rg.Rows()
	defer rr.Close()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := rr.ReadRows(rows)
		for _, r := range rows[:n] {
			*row++
			for i := range rec {
				rec[i] = ""
			}
			for _, v := range r {
				c := v.Column()
				if v.IsNull() {
					return fmt.Errorf("row %d: column %s is null", *row, head[c])
				}
				s, err := text[c](v)
				if err != nil {
					return fmt.Errorf("row %d: column %s: %w", *row, head[c], err)
				}
				rec[c] = s
			}
			if err := t.Add(rec); err != nil {
				return fmt.Errorf("row %d: %w", *row, err)
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// parquetColumns returns the column names of a flat schema; nested or
// repeated columns are refused, as a reports table has none.
func parquetColumns(sc *parquet.Schema) ([]string, error) {
	var head []string
	for _, f := range sc.Fields() {
		if !f.Leaf() || f.Repeated() {
			return nil, fmt.Errorf("column %s is nested or repeated; a reports table has flat columns mechanism, report and count", f.Name())
		}
		head = append(head, f.Name())
	}
	return head, nil
}

// sameColumns checks that a later part of a directory has the columns of
// the first.
func sameColumns(t *core.ReportTable, head []string) error {
	if !slices.Equal(t.Columns(), head) {
		return fmt.Errorf("columns %s differ from the first part's %s", strings.Join(head, ","), strings.Join(t.Columns(), ","))
	}
	return nil
}

// ContextReader returns a reader of r that fails with ctx's error once
// ctx is done, so that a streaming reader stops at its next read.
func ContextReader(ctx context.Context, r io.Reader) io.Reader { return &ctxReader{ctx: ctx, r: r} }

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(b []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(b)
}
