package geo

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestPreviewDelimited: a spreadsheet's export (BOM, semicolons, decimal
// commas) is previewed with its guesses and each row's outcome; a
// headerless TSMC-style file cannot be read by the guesses (Err, the
// rows split at tabs) and can by a mapping; only n rows are shown.
func TestPreviewDelimited(t *testing.T) {
	in := "\xef\xbb\xbfUser ID;Latitude (WGS84);Longitude;Check-in Time\n" +
		"u1;40,5;-73,9;2024-01-02T03:04:05Z\n" +
		"u2;91;-73,9;2024-01-02T03:04:05Z\n" +
		"\n" +
		"u3;40,6;-73,8;yesterday\n" +
		"u4;40,7;-73,7;2024-01-03T00:00:00Z\n"
	p, err := PreviewDelimited(strings.NewReader(in), nil, 3)
	if err != nil {
		t.Fatal(err)
	}
	if p.Err != nil || p.Delimiter != ';' || len(p.Header) != 4 || p.Header[0] != "User ID" || p.Width != 4 || p.Latin1 {
		t.Fatalf("preview %+v", p)
	}
	if want := map[string]int{"user": 0, "lat": 1, "lon": 2, "time": 3}; len(p.Columns) != len(want) {
		t.Fatalf("columns %v, want %v", p.Columns, want)
	} else {
		for k, v := range want {
			if p.Columns[k] != v {
				t.Fatalf("columns %v, want %v", p.Columns, want)
			}
		}
	}
	if len(p.Rows) != 3 {
		t.Fatalf("%d rows, want 3", len(p.Rows))
	}
	r0, r1, r2 := p.Rows[0], p.Rows[1], p.Rows[2]
	if r0.Err != nil || r0.Line != 2 || r0.Checkin.User != "u1" || r0.Checkin.Lat() != 40.5 || r0.Checkin.Lon() != -73.9 ||
		!r0.Checkin.Time.Equal(time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)) {
		t.Errorf("row 0 %+v", r0)
	}
	var pe *ParseError
	if !errors.As(r1.Err, &pe) || pe.Line != 3 || !errors.Is(r1.Err, ErrBadLatitude) {
		t.Errorf("row 1 error %v, want line 3's latitude", r1.Err)
	}
	if !errors.As(r2.Err, &pe) || pe.Line != 5 || pe.Column != 4 || !errors.Is(r2.Err, ErrBadTime) || r2.Fields[3] != "yesterday" {
		t.Errorf("row 2 %+v, want line 5, field 4's time", r2)
	}

	tsmc := "470\t49bb\t4bf5\tArts & Crafts Store\t40.7198\t-74.0025\t-240\tTue Apr 03 18:00:09 +0000 2012\n" +
		"979\t4a43\t4bf5\tCaf\xe9\t40.6067\t-74.0441\t-240\tTue Apr 03 18:00:25 +0000 2012\n"
	p, err = PreviewDelimited(strings.NewReader(tsmc), nil, 20)
	if err != nil {
		t.Fatal(err)
	}
	if p.Err != nil || !p.Guessed || p.Columns["lat"] != 4 || p.Columns["lon"] != 5 || p.Delimiter != '\t' || len(p.Rows) != 2 || p.Width != 8 ||
		p.Rows[1].Fields[3] != "Café" || p.Rows[0].Checkin.Lon() != -74.0025 || !p.Latin1 || p.Header != nil {
		t.Fatalf("guessed preview of a TSMC file: err %v, guessed %v, columns %v, delimiter %q, %d rows, width %d, latin-1 %v", p.Err, p.Guessed, p.Columns, p.Delimiter, len(p.Rows), p.Width, p.Latin1)
	}
	// A header of names not known: the coordinates guessed below it.
	p, err = PreviewDelimited(strings.NewReader("wer;nord;ost\nann;40.5;-74.1\nbob;40.6;-74.2\n"), nil, 20)
	if err != nil || p.Err != nil || !p.Guessed || p.Header == nil || p.Columns["lat"] != 1 || len(p.Rows) != 2 || p.Rows[1].Checkin.Lon() != -74.2 {
		t.Errorf("a header of unknown names: %v, %+v", err, p)
	}
	// No guess where a line lacks coordinates, nor from x and y.
	for _, in := range []string{"a,1.5,2.5\nb,1.5,x\n", "id,x,y\n1,2.5,3.5\n"} {
		p, err := PreviewDelimited(strings.NewReader(in), nil, 20)
		if err != nil || !errors.Is(p.Err, ErrNoColumns) || p.Guessed || len(p.Rows) != 2 || p.Width != 3 {
			t.Errorf("%q: %v, %+v", in, err, p)
		}
	}
	m := LayoutMapping(TSMC)
	p, err = PreviewDelimited(strings.NewReader(tsmc), m, 20)
	if err != nil {
		t.Fatal(err)
	}
	if p.Err != nil || p.Header != nil || len(p.Rows) != 2 || p.Rows[0].Line != 1 || p.Rows[1].Err != nil || p.Rows[1].Checkin.User != "979" || p.Rows[1].Checkin.Location != "4a43" {
		t.Fatalf("mapped preview %+v", p)
	}

	if _, err := PreviewDelimited(strings.NewReader("\x89PNG\r\n\x1a\n...."), nil, 20); !errors.Is(err, ErrBinary) {
		t.Errorf("PNG: %v, want ErrBinary", err)
	}
	if _, err := PreviewDelimited(strings.NewReader("\n\n"), nil, 20); !errors.Is(err, ErrEmpty) {
		t.Errorf("blank file: %v, want ErrEmpty", err)
	}
}

// TestMappingText: Text writes what the Parse functions read back.
func TestMappingText(t *testing.T) {
	for _, m := range []Mapping{
		{},
		{Columns: map[string]string{"lat": "Latitude (WGS84)", "lon": "6", "user": "1"}, Delim: ';', Header: HeaderNo, Latin1: true, TimeLayout: "unixms"},
		{Delim: '\t', Header: HeaderYes},
		{Delim: '#'},
	} {
		cols, delim, header, enc, tf := m.Text()
		var back Mapping
		var err error
		if cols != "" {
			if back.Columns, err = ParseColumns(cols); err != nil {
				t.Fatal(err)
			}
		}
		if back.Delim, err = ParseDelimiter(delim); err != nil {
			t.Fatal(err)
		}
		if back.Header, err = ParseHeader(header); err != nil {
			t.Fatal(err)
		}
		if back.Latin1, err = ParseEncoding(enc); err != nil {
			t.Fatal(err)
		}
		back.TimeLayout = tf
		if back.Delim != m.Delim || back.Header != m.Header || back.Latin1 != m.Latin1 || back.TimeLayout != m.TimeLayout || len(back.Columns) != len(m.Columns) {
			t.Fatalf("%+v written %q %q %q %q %q read back %+v", m, cols, delim, header, enc, tf, back)
		}
		for k, v := range m.Columns {
			if back.Columns[k] != v {
				t.Fatalf("%+v: columns read back %v", m, back.Columns)
			}
		}
	}
}

// TestDetectFormat: the format Auto reads, from the first data line.
func TestDetectFormat(t *testing.T) {
	for in, want := range map[string]Format{
		"\n0\t2010-10-19T23:55:27Z\t30.2\t-97.7\t22847\n":                      SNAP,
		"470\tv\tc\tArts\t40.7\t-74.0\t-240\tTue Apr 03 18:00:09 +0000 2012\n": TSMC,
		"40.5,-74.1\n":               LatLon,
		"\xef\xbb\xbfuser;lat;lon\n": Delimited,
	} {
		if got, err := DetectFormat(strings.NewReader(in)); got != want || err != nil {
			t.Errorf("DetectFormat(%q) = %v, %v, want %v", in, got, err, want)
		}
	}
	if _, err := DetectFormat(strings.NewReader("%PDF-1.4")); !errors.Is(err, ErrBinary) {
		t.Errorf("a PDF: %v", err)
	}
}
