package geo

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"errors"
	"hash/crc32"
	"os"
	"strings"
	"testing"
)

// A part is one file of a forged workbook: its bytes, and the size its
// header declares unzipped (0: the true one).
type part struct {
	name, body string
	declared   uint64
}

// forgedWorkbook zips parts, each deflated, with the sizes they declare.
func forgedWorkbook(t testing.TB, parts []part) []byte {
	t.Helper()
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	for _, p := range parts {
		var d bytes.Buffer
		fw, _ := flate.NewWriter(&d, flate.BestCompression)
		fw.Write([]byte(p.body))
		fw.Close()
		size := uint64(len(p.body))
		if p.declared != 0 {
			size = p.declared
		}
		w, err := z.CreateRaw(&zip.FileHeader{Name: p.name, Method: zip.Deflate, CRC32: crc32.ChecksumIEEE([]byte(p.body)),
			CompressedSize64: uint64(d.Len()), UncompressedSize64: size})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(d.Bytes())
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// minimalParts are the parts of a workbook with one sheet of the given
// rows and shared strings.
func minimalParts(sheetData, sst string) []part {
	return []part{
		{name: "[Content_Types].xml", body: `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>`},
		{name: "_rels/.rels", body: `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`},
		{name: "xl/workbook.xml", body: `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>`},
		{name: "xl/_rels/workbook.xml.rels", body: `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/></Relationships>`},
		{name: "xl/worksheets/sheet1.xml", body: `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>` + sheetData + `</sheetData></worksheet>`},
		{name: "xl/sharedStrings.xml", body: `<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">` + sst + `</sst>`},
	}
}

const twoRows = `<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row><row r="2"><c r="A2"><v>40.7</v></c><c r="B2"><v>-74</v></c></row>`

// TestHostileWorkbooks refuses, before excelize allocates or parses
// them, workbooks whose parts declare 4 GB each (a 2 KB file that
// exhausted memory), a sheet that unzips past the size it declares,
// 200,000 shared strings for 4 cells (4 million took 15 s, deaf to
// SIGTERM), and reads the honest workbook they are forged from.
func TestHostileWorkbooks(t *testing.T) {
	honest := minimalParts(twoRows, `<si><t>lat</t></si><si><t>lon</t></si>`)
	res, err := ReadCheckins(bytes.NewReader(forgedWorkbook(t, honest)), Auto, Options{})
	if err != nil || len(res.Checkins) != 1 || res.Checkins[0].Lat() != 40.7 {
		t.Fatalf("the honest workbook: %v, %+v", err, res)
	}
	declared := make([]part, len(honest))
	for i, p := range honest {
		declared[i] = p
		declared[i].declared = 4e9
	}
	lying := append([]part(nil), honest...)
	lying[4].declared = 100
	many := minimalParts(twoRows, `<si><t>lat</t></si><si><t>lon</t></si>`+strings.Repeat(`<si><t>a</t></si>`, 200_000))
	for _, tc := range []struct {
		name  string
		parts []part
		want  string
	}{
		{"parts declaring 4 GB", declared, "geo: the workbook's part [Content_Types].xml declares 3.7 GiB unzipped (at most 64.0 MiB a part, 2.0 GiB in all)"},
		{"a sheet unzipping past its size", lying, "geo: the workbook's part xl/worksheets/sheet1.xml does not unzip to the 100 bytes it declares"},
		{"200,000 shared strings", many, "geo: the workbook holds 200002 shared strings for 4 cells"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadCheckins(bytes.NewReader(forgedWorkbook(t, tc.parts)), Auto, Options{})
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("%v\nwant %q", err, tc.want)
			}
		})
	}
}

// TestWorkbookTemporaryFiles leaves nothing in the temporary folder,
// whether excelize fails to open a workbook after unzipping its large
// sheet to a temporary file (readXLSX leaked it) or the reading is
// cancelled.
func TestWorkbookTemporaryFiles(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	rows := strings.Repeat(`<row><c><v>40.7</v></c><c><v>-74</v></c></row>`, 400_000) // 18 MB: excelize unzips it to a file
	broken := append(minimalParts(`<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row>`+rows, `<si><t>lat</t></si><si><t>lon</t></si>`),
		part{name: "xl/styles.xml", body: `<styleSheet><numFmts count="x"`})
	if _, err := ReadCheckins(bytes.NewReader(forgedWorkbook(t, broken)), Auto, Options{}); err == nil {
		t.Error("a workbook whose styles do not parse was read")
	}
	honest := forgedWorkbook(t, minimalParts(`<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row>`+rows, `<si><t>lat</t></si><si><t>lon</t></si>`))
	ctx, cancel := context.WithCancel(context.Background())
	_, err := ScanCheckins(ctx, bytes.NewReader(honest), Auto, Options{}, func(Checkin) error {
		cancel()
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	left, _ := os.ReadDir(tmp)
	for _, e := range left {
		t.Errorf("left in the temporary folder: %s", e.Name())
	}
}

// FuzzWorkbookParts reads any bytes that start as a ZIP archive as a
// workbook: an error or check-ins, never a panic or memory past the
// bounds on its parts.
func FuzzWorkbookParts(f *testing.F) {
	f.Add(forgedWorkbook(f, minimalParts(twoRows, `<si><t>lat</t></si><si><t>lon</t></si>`)))
	f.Add(workbook(f))
	f.Fuzz(func(t *testing.T, b []byte) {
		if !bytes.HasPrefix(b, []byte("PK\x03\x04")) {
			return
		}
		res := &Result{sink: func(Checkin) error { return nil }}
		_, _ = readXLSX(context.Background(), bytes.NewReader(b), res, Options{SkipBad: true})
	})
}
