package geo

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/xuri/excelize/v2"
)

// MaxWorkbookBytes bounds an Excel workbook, which excelize reads whole
// into memory before streaming its sheet's rows.
const MaxWorkbookBytes = 1 << 30

// isWorkbook reports whether br starts an Office Open XML workbook: a ZIP
// archive whose first entries name its content types or the xl/ folder.
func isWorkbook(br *bufio.Reader) bool {
	head, _ := br.Peek(512)
	return bytes.HasPrefix(head, []byte("PK\x03\x04")) &&
		(bytes.Contains(head, []byte("[Content_Types].xml")) || bytes.Contains(head, []byte("xl/")))
}

// readXLSX reads the rows of a workbook's sheet (the mapping's Sheet,
// or the first) as a delimited file's lines, through excelize: cells as stored
// (RawCellValue, so that coordinates keep every digit), a date cell's
// serial number read as its time. It returns the number of rows read.
func readXLSX(ctx context.Context, r io.Reader, res *Result, opt Options) (n int, err error) {
	defer func() {
		// A workbook malformed in a way excelize does not foresee is an
		// error of that file, not of the program reading it.
		if p := recover(); p != nil {
			n, err = 0, fmt.Errorf("geo: not a workbook excelize can read: %v", p)
		}
	}()
	lim := &io.LimitedReader{R: r, N: MaxWorkbookBytes + 1}
	wb, err := excelize.OpenReader(lim, excelize.Options{RawCellValue: true})
	if lim.N == 0 {
		return 0, fmt.Errorf("geo: a workbook of more than %d bytes: save its sheet as CSV", int64(MaxWorkbookBytes))
	}
	if err != nil {
		return 0, fmt.Errorf("geo: not a workbook excelize can read: %w", err)
	}
	defer wb.Close()
	sheets := wb.GetSheetList()
	sheet := ""
	if opt.Mapping != nil {
		sheet = opt.Mapping.Sheet
	}
	switch {
	case len(sheets) == 0:
		return 0, fmt.Errorf("geo: the workbook has no sheet: %w", ErrEmpty)
	case sheet == "":
		sheet = sheets[0]
	default:
		i := slices.IndexFunc(sheets, func(s string) bool { return strings.EqualFold(s, sheet) })
		if i < 0 {
			return 0, fmt.Errorf("geo: the workbook has no sheet %q (its sheets: %s)", sheet, clip(strings.Join(sheets, " · "), 80))
		}
		sheet = sheets[i]
	}
	rows, err := wb.Rows(sheet)
	if err != nil {
		return 0, fmt.Errorf("geo: sheet %q: %w", sheet, err)
	}
	defer rows.Close()
	res.Sheet = sheet
	src := &sheetRecords{ctx: ctx, rows: rows}
	if res.preview != nil {
		src.limit = res.preview.limit + 1 // and the header
		res.preview.Sheets = sheets
	}
	err = readRecords(src, res, opt, table{how: "in its cells", excelDates: true})
	return src.row, err
}

// sheetRecords are a sheet's rows, blank rows passed over; at most limit
// of them when limit > 0 (a preview).
type sheetRecords struct {
	ctx          context.Context
	rows         *excelize.Rows
	row          int
	limit, given int
}

func (s *sheetRecords) read() ([]string, int, error) {
	if s.limit > 0 && s.given >= s.limit {
		return nil, 0, io.EOF
	}
	for s.rows.Next() {
		s.row++
		if s.row&1023 == 0 {
			if err := s.ctx.Err(); err != nil {
				return nil, 0, err
			}
		}
		rec, err := s.rows.Columns(excelize.Options{RawCellValue: true})
		if err != nil {
			return nil, s.row, &rowError{err}
		}
		if !blankRecord(rec) {
			s.given++
			return rec, s.row, nil
		}
	}
	if err := s.rows.Error(); err != nil {
		return nil, 0, err
	}
	return nil, 0, io.EOF
}

// blankRecord reports whether every field of rec is blank.
func blankRecord(rec []string) bool {
	for _, f := range rec {
		if !isBlank(f) {
			return false
		}
	}
	return true
}

// excelTime reads a date cell's serial number: days since 1899-12-30,
// the fraction the time of day (Excel's 1900 date system).
func excelTime(s string) (time.Time, bool) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || v < 1 || v > 2958465 { // 9999-12-31
		return time.Time{}, false
	}
	t, err := excelize.ExcelDateToTime(v, false)
	return t.Round(time.Second), err == nil
}
