package geo

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/xuri/excelize/v2"
)

// MaxWorkbookBytes bounds an Excel workbook, which excelize reads whole
// into memory before streaming its sheet's rows.
const MaxWorkbookBytes = 1 << 30

// xlsxLayout is the record of an Excel workbook's sheet (readXLSX), found by
// its first bytes.
var xlsxLayout = Layout{Format: XLSX, Name: "xlsx", Names: []string{"xlsx", "excel"}, Shown: []string{"xlsx"},
	Note: "an Excel workbook, -sheet", Exts: []string{".xlsx"}, Tabular: true, Import: true, Unit: "rows"}

// isWorkbook reports whether br starts an Office Open XML workbook: a ZIP
// archive whose first entries name its content types or the xl/ folder.
func isWorkbook(br *bufio.Reader) bool {
	head, _ := br.Peek(512)
	return bytes.HasPrefix(head, []byte("PK\x03\x04")) &&
		(bytes.Contains(head, []byte("[Content_Types].xml")) || bytes.Contains(head, []byte("xl/")))
}

// Bounds on a workbook's parts, checked (checkWorkbook) before excelize,
// which allocates what each part's header declares, opens it.
const (
	maxWorkbookParts = 1 << 14
	maxPartBytes     = 64 << 20 // a part excelize holds in memory
	maxSheetBytes    = 1 << 30  // a sheet's or the shared strings' XML, which excelize unzips to a temporary file
	maxUnzippedBytes = 2 << 30  // all the parts
	// Shared strings beyond the cells that could use them, and a
	// margin, are no workbook a spreadsheet wrote: excelize parses every
	// one before the first row (4 million took 15 s and 440 MB).
	spareSharedStrings = 1 << 16
)

// readXLSX reads the rows of a workbook's sheet (the mapping's Sheet,
// or the first) as a delimited file's lines, through excelize: cells as stored
// (RawCellValue, so that coordinates keep every digit), a date cell's
// serial number read as its time. It returns the number of rows read.
//
// The workbook, at most MaxWorkbookBytes, is checked part by part first
// (checkWorkbook). excelize then runs in a goroutine of its own
// (sheetStream) with its temporary files in a folder of their own,
// because its unzipping and its parsing of the shared strings cannot be
// stopped: when ctx ends, readXLSX returns at once and removes the
// folder, and the goroutine, which removes it again, ends at its next row.
func readXLSX(ctx context.Context, r io.Reader, res *Result, opt Options) (n int, err error) {
	b, err := io.ReadAll(&io.LimitedReader{R: r, N: MaxWorkbookBytes + 1})
	if err != nil {
		return 0, err
	}
	if len(b) > MaxWorkbookBytes {
		return 0, fmt.Errorf("geo: a workbook of more than %d bytes: save its sheet as CSV", int64(MaxWorkbookBytes))
	}
	if err := checkWorkbook(ctx, b); err != nil {
		return 0, err
	}
	tmp, err := os.MkdirTemp("", "privmap-xlsx-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	want := ""
	if opt.Mapping != nil {
		want = opt.Mapping.Sheet
	}
	s := startSheet(b, tmp, want)
	defer close(s.done)
	var head sheetRow
	ok := false
	select {
	case <-ctx.Done():
		return 0, ctx.Err()
	case head, ok = <-s.rows:
	}
	switch {
	case !ok:
		return 0, errors.New("geo: not a workbook excelize can read")
	case head.err != nil:
		return 0, head.err
	}
	res.Sheet = head.sheet
	src := &sheetRecords{ctx: ctx, s: s}
	if res.preview != nil {
		src.limit = res.preview.limit + 1 // and the header
		res.preview.Sheets = head.sheets
	}
	err = readRecords(src, res, opt, table{how: "in its cells", excelDates: true})
	return src.row, err
}

// A sheetRow is what a sheetStream sends: first the sheets and the one
// chosen (or the error of opening), then each row's cells.
type sheetRow struct {
	sheets []string
	sheet  string
	rec    []string
	row    int
	err    error
}

// A sheetStream reads a workbook's sheet with excelize in a goroutine,
// sending its rows until done is closed.
type sheetStream struct {
	rows chan sheetRow
	done chan struct{}
}

// startSheet starts reading the sheet want (blank: the first) of the
// workbook b, excelize's temporary files in the folder tmp, which the
// goroutine removes when it ends.
func startSheet(b []byte, tmp, want string) *sheetStream {
	s := &sheetStream{rows: make(chan sheetRow, 64), done: make(chan struct{})}
	go func() {
		defer os.RemoveAll(tmp)
		defer close(s.rows)
		defer func() {
			// A workbook malformed in a way excelize does not foresee is
			// an error of that file, not of the program reading it.
			if p := recover(); p != nil {
				s.send(sheetRow{err: fmt.Errorf("geo: not a workbook excelize can read: %v", p)})
			}
		}()
		s.run(b, tmp, want)
	}()
	return s
}

// send sends r unless the reader has gone; it reports whether it sent.
func (s *sheetStream) send(r sheetRow) bool {
	select {
	case s.rows <- r:
		return true
	case <-s.done:
		return false
	}
}

// run opens the workbook, chooses its sheet and sends its rows.
func (s *sheetStream) run(b []byte, tmp, want string) {
	wb, err := excelize.OpenReader(bytes.NewReader(b), excelize.Options{RawCellValue: true, TmpDir: tmp, UnzipSizeLimit: maxUnzippedBytes})
	if wb != nil {
		defer wb.Close()
	}
	if err != nil {
		s.send(sheetRow{err: fmt.Errorf("geo: not a workbook excelize can read: %w", err)})
		return
	}
	sheets := wb.GetSheetList()
	sheet, err := chooseSheet(sheets, want)
	if err != nil {
		s.send(sheetRow{err: err})
		return
	}
	rows, err := wb.Rows(sheet)
	if err != nil {
		s.send(sheetRow{err: fmt.Errorf("geo: sheet %q: %w", sheet, err)})
		return
	}
	defer rows.Close()
	if !s.send(sheetRow{sheets: sheets, sheet: sheet}) {
		return
	}
	row := 0
	for rows.Next() {
		row++
		rec, err := rows.Columns(excelize.Options{RawCellValue: true})
		if err != nil {
			err = &rowError{err}
		}
		if !s.send(sheetRow{rec: rec, row: row, err: err}) || err != nil {
			return
		}
	}
	if err := rows.Error(); err != nil {
		s.send(sheetRow{err: err})
	}
}

// chooseSheet returns the sheet of sheets named want (any case), or the
// first when want is blank.
func chooseSheet(sheets []string, want string) (string, error) {
	switch {
	case len(sheets) == 0:
		return "", fmt.Errorf("geo: the workbook has no sheet: %w", ErrEmpty)
	case want == "":
		return sheets[0], nil
	}
	i := slices.IndexFunc(sheets, func(s string) bool { return strings.EqualFold(s, want) })
	if i < 0 {
		return "", fmt.Errorf("geo: the workbook has no sheet %q (its sheets: %s)", want, clip(strings.Join(sheets, " · "), 80))
	}
	return sheets[i], nil
}

// sheetRecords are a sheet's rows, blank rows passed over; at most limit
// of them when limit > 0 (a preview).
type sheetRecords struct {
	ctx          context.Context
	s            *sheetStream
	row          int
	limit, given int
}

func (s *sheetRecords) read() ([]string, int, error) {
	if s.limit > 0 && s.given >= s.limit {
		return nil, 0, io.EOF
	}
	for {
		var r sheetRow
		var ok bool
		select {
		case <-s.ctx.Done():
			return nil, 0, s.ctx.Err()
		case r, ok = <-s.s.rows:
		}
		switch {
		case !ok:
			return nil, 0, io.EOF
		case r.err != nil && r.row == 0:
			return nil, 0, r.err
		}
		s.row = r.row
		if r.err != nil {
			return nil, s.row, r.err
		}
		if !blankRecord(r.rec) {
			s.given++
			return r.rec, s.row, nil
		}
	}
}

// checkWorkbook checks a workbook's ZIP parts before excelize reads
// them: at most maxWorkbookParts parts, each declaring at most
// maxPartBytes (a sheet or the shared strings maxSheetBytes), all
// together at most maxUnzippedBytes (a 2 KB workbook whose parts each
// declared 4 GB exhausted memory), and each inflating to no more than
// it declares (archive/zip's reader checks sizes and checksums as it
// goes), read through once with ctx checked every 64 KiB. It counts
// the shared strings and the sheets' cells on the way: strings beyond
// the cells and spareSharedStrings are refused.
func checkWorkbook(ctx context.Context, b []byte) error {
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return fmt.Errorf("geo: not a workbook excelize can read: %w", err)
	}
	if len(zr.File) > maxWorkbookParts {
		return fmt.Errorf("geo: a workbook of %d parts (at most %d): not one a spreadsheet wrote", len(zr.File), maxWorkbookParts)
	}
	var total uint64
	var stringsN, cells int64
	for _, f := range zr.File {
		name := strings.ToLower(strings.ReplaceAll(f.Name, "\\", "/"))
		sst, sheet := name == "xl/sharedstrings.xml", strings.HasPrefix(name, "xl/worksheets/sheet")
		limit := uint64(maxPartBytes)
		if sst || sheet {
			limit = maxSheetBytes
		}
		total += f.UncompressedSize64
		if f.UncompressedSize64 > limit || total > maxUnzippedBytes {
			return fmt.Errorf("geo: the workbook's part %s declares %s unzipped (at most %s a part, %s in all): save its sheet as CSV",
				f.Name, byteSize(f.UncompressedSize64), byteSize(limit), byteSize(maxUnzippedBytes))
		}
		var c *tagCounter
		switch {
		case sst:
			c = &tagCounter{tags: []string{"<si>", "<si ", ":si>", ":si "}}
		case sheet:
			c = &tagCounter{tags: []string{"<c>", "<c ", ":c>", ":c "}}
		}
		if err := readPart(ctx, f, c); err != nil {
			return err
		}
		if sst {
			stringsN = c.n
		} else if sheet {
			cells += c.n
		}
	}
	if stringsN > cells+spareSharedStrings {
		return fmt.Errorf("geo: the workbook holds %d shared strings for %d cells: not one a spreadsheet wrote", stringsN, cells)
	}
	return nil
}

// readPart reads a workbook's part through, counting c's tags (c may be
// nil); ctx is checked every 64 KiB.
func readPart(ctx context.Context, f *zip.File, c *tagCounter) error {
	rc, err := f.Open()
	if err != nil {
		return fmt.Errorf("geo: the workbook's part %s: %w", f.Name, err)
	}
	defer rc.Close()
	buf := make([]byte, 64<<10)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := rc.Read(buf)
		if c != nil {
			c.write(buf[:n])
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("geo: the workbook's part %s does not unzip to the %s it declares: %w", f.Name, byteSize(f.UncompressedSize64), err)
		}
	}
}

// A tagCounter counts the occurrences of its tags in a stream written
// to it in pieces, keeping the last bytes of each piece so that a tag
// split between two is counted once.
type tagCounter struct {
	tags []string
	n    int64
	tail []byte
}

func (c *tagCounter) write(p []byte) {
	const keep = 3 // the longest tag's length − 1
	b := append(c.tail, p...)
	for _, t := range c.tags {
		c.n += int64(bytes.Count(b, []byte(t)))
		// Occurrences wholly inside the kept tail were counted already.
		if len(c.tail) >= len(t) {
			c.n -= int64(bytes.Count(c.tail, []byte(t)))
		}
	}
	c.tail = append(c.tail[:0], b[max(0, len(b)-keep):]...)
}

// byteSize writes n bytes in binary units.
func byteSize(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d bytes", n)
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
