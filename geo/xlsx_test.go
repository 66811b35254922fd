package geo

import (
	"bytes"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"
)

// workbook writes an Excel workbook with a sheet "Check-ins" (a header,
// coordinates as numbers, a date cell, a blank row and a row whose
// latitude is out of range) and a sheet "Stops" without a header.
func workbook(t testing.TB) []byte {
	t.Helper()
	wb := excelize.NewFile()
	defer wb.Close()
	if err := wb.SetSheetName("Sheet1", "Check-ins"); err != nil {
		t.Fatal(err)
	}
	rows := [][]any{
		{"User ID", "Latitude (WGS84)", "Longitude (WGS84)", "Check-in Time", "Venue"},
		{"ann", 37.774929, -122.419416, time.Date(2024, 1, 2, 10, 0, 0, 0, time.UTC), "Café"},
		{"ann", 37.775, -122.4195, "2024-01-02T11:00:00Z", "Bar"},
		{},
		{"bob", 97.7, -122.4, time.Date(2024, 1, 3, 9, 30, 0, 0, time.UTC), "Pier"},
	}
	for i, r := range rows {
		cell, _ := excelize.CoordinatesToCellName(1, i+1)
		if err := wb.SetSheetRow("Check-ins", cell, &r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := wb.NewSheet("Stops"); err != nil {
		t.Fatal(err)
	}
	for i, r := range [][]any{{"A", 40.5, -74.1}, {"B", 40.6, -74.2}} {
		cell, _ := excelize.CoordinatesToCellName(1, i+1)
		if err := wb.SetSheetRow("Stops", cell, &r); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if err := wb.Write(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestReadXLSX reads a workbook's first sheet as a delimited file (found
// in Auto by its first bytes), a date cell as its time, coordinates with
// every digit; a named sheet by a mapping; and refuses an unknown sheet,
// naming the sheets.
func TestReadXLSX(t *testing.T) {
	b := workbook(t)
	for _, f := range []Format{Auto, XLSX} {
		res, err := ReadCheckins(bytes.NewReader(b), f, Options{SkipBad: true})
		if err != nil {
			t.Fatal(err)
		}
		c := res.Checkins[0]
		if res.Format != XLSX || res.Sheet != "Check-ins" || len(res.Checkins) != 2 || res.Skipped != 1 || res.Errors[0].Line != 5 || res.Lines != 5 ||
			c.User != "ann" || c.Lat() != 37.774929 || c.Lon() != -122.419416 || c.Location != "Café" || !c.Time.Equal(time.Date(2024, 1, 2, 10, 0, 0, 0, time.UTC)) ||
			!res.Checkins[1].Time.Equal(time.Date(2024, 1, 2, 11, 0, 0, 0, time.UTC)) {
			t.Fatalf("format %v: %+v, first %+v", f, res, c)
		}
		if !errors.Is(res.Errors[0], ErrBadLatitude) {
			t.Errorf("row 5: %v", res.Errors[0])
		}
	}
	m := &Mapping{Sheet: "stops", Columns: map[string]string{"loc": "1", "lat": "2", "lon": "3"}}
	res, err := ReadCheckins(bytes.NewReader(b), Auto, Options{Mapping: m})
	if err != nil {
		t.Fatal(err)
	}
	if res.Sheet != "Stops" || len(res.Checkins) != 2 || !res.NoPerson || res.Checkins[1].Location != "B" || res.Checkins[1].Lon() != -74.2 {
		t.Fatalf("sheet Stops: %+v", res)
	}
	_, err = ReadCheckins(bytes.NewReader(b), Auto, Options{Mapping: &Mapping{Sheet: "Visits"}})
	if err == nil || !strings.Contains(err.Error(), `no sheet "Visits" (its sheets: Check-ins · Stops)`) {
		t.Errorf("an unknown sheet: %v", err)
	}
	if _, err := ReadCheckins(strings.NewReader("PK\x03\x04 not a workbook"), XLSX, Options{}); err == nil {
		t.Error("a ZIP that is no workbook was read")
	}
	if _, err := ReadCheckins(strings.NewReader("PK\x03\x04 some archive"), Auto, Options{}); !errors.Is(err, ErrBinary) {
		t.Errorf("a ZIP archive: %v", err)
	}
}

// TestPreviewWorkbook previews a sheet, and shows the cells of one whose
// first row is no header.
func TestPreviewWorkbook(t *testing.T) {
	b := workbook(t)
	p, err := PreviewDelimited(bytes.NewReader(b), nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	if p.Err != nil || p.Sheet != "Check-ins" || len(p.Rows) != 2 || p.Rows[1].Line != 3 || p.Columns["time"] != 3 || p.Header[4] != "Venue" {
		t.Fatalf("preview %+v", p)
	}
	// A sheet without a header: its coordinates guessed from the cells.
	p, err = PreviewDelimited(bytes.NewReader(b), &Mapping{Sheet: "Stops"}, 20)
	if err != nil {
		t.Fatal(err)
	}
	if p.Err != nil || !p.Guessed || p.Sheet != "Stops" || len(p.Rows) != 2 || p.Rows[0].Fields[0] != "A" || p.Width != 3 || p.Rows[1].Checkin.Lon() != -74.2 {
		t.Fatalf("preview of a sheet without a header %+v", p)
	}
	// No guess to make: the cells shown as they are, and why.
	p, err = PreviewDelimited(bytes.NewReader(b), &Mapping{Sheet: "Stops", Columns: map[string]string{"lat": "1", "lon": "5"}, Header: HeaderYes}, 20)
	if err != nil {
		t.Fatal(err)
	}
	if p.Err == nil || p.Guessed || len(p.Rows) != 2 || p.Rows[0].Fields[0] != "A" {
		t.Fatalf("preview of a sheet that cannot be read %+v", p)
	}
}

// FuzzReadXLSX writes fuzzed cells into a workbook's sheet (rows split
// at newlines, cells at tabs; a cell that reads as a number stored as
// one) and reads it: an error or a result that satisfies checkResult's
// invariants. The workbook's own parsing is excelize's: what is fuzzed
// is privmap's reading of any cells.
func FuzzReadXLSX(f *testing.F) {
	f.Add("User ID\tLatitude\tLongitude\tTime\nann\t40.5\t-74.1\t45292.5\n\nbob\t91\t0\tx\n")
	f.Add("1\t2\n3\t4\n")
	f.Fuzz(func(t *testing.T, cells string) {
		wb := excelize.NewFile()
		defer wb.Close()
		rows := strings.Split(cells, "\n")
		if len(rows) > 50 {
			return
		}
		for i, line := range rows {
			var row []any
			for _, c := range strings.Split(line, "\t") {
				if v, err := strconv.ParseFloat(c, 64); err == nil && !math.IsInf(v, 0) && !math.IsNaN(v) {
					row = append(row, v)
				} else {
					row = append(row, c)
				}
			}
			if len(row) > 20 {
				return
			}
			cell, _ := excelize.CoordinatesToCellName(1, i+1)
			if err := wb.SetSheetRow("Sheet1", cell, &row); err != nil {
				return // a cell excelize refuses to write
			}
		}
		var buf bytes.Buffer
		if err := wb.Write(&buf); err != nil {
			return
		}
		for _, skip := range []bool{false, true} {
			res, err := ReadCheckins(bytes.NewReader(buf.Bytes()), Auto, Options{SkipBad: skip})
			if err != nil {
				continue
			}
			if res.Format != XLSX {
				t.Fatalf("a workbook read as %v", res.Format)
			}
			checkResult(t, res, cells)
		}
	})
}
