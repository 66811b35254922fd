package output

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/png"
	"io"

	"github.com/privmap/privmap/app/build"
)

// Software names the running privmap as files record it: "privmap 0.1.0"
// and, when built from a checkout, the commit ("privmap 0.1.0 (commit
// 5e15773…)").
func Software() string {
	s := "privmap " + build.Version
	if c := build.Commit(); c != "" {
		s += " (commit " + c + ")"
	}
	return s
}

// pngSignature starts every PNG file (PNG specification §5.2).
var pngSignature = []byte("\x89PNG\r\n\x1a\n")

// StampPNG returns the PNG file b with a tEXt chunk "Software" naming
// the running privmap (PNG specification §11.3.4.2), placed right after
// the IHDR chunk; b is returned as it is when it does not start with a
// PNG signature and IHDR.
func StampPNG(b []byte) []byte {
	const ihdrEnd = 8 + 4 + 4 + 13 + 4 // signature, IHDR's length, type, data, CRC
	if len(b) < ihdrEnd || !bytes.Equal(b[:8], pngSignature) || string(b[12:16]) != "IHDR" {
		return b
	}
	data := append([]byte("Software\x00"), Software()...)
	chunk := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	chunk = append(chunk, "tEXt"...)
	chunk = append(chunk, data...)
	chunk = binary.BigEndian.AppendUint32(chunk, crc32.ChecksumIEEE(chunk[4:]))
	out := make([]byte, 0, len(b)+len(chunk))
	out = append(out, b[:ihdrEnd]...)
	out = append(out, chunk...)
	return append(out, b[ihdrEnd:]...)
}

// StampSVG returns the SVG file b with a comment naming the running
// privmap after its XML declaration (or first, when it has none).
func StampSVG(b []byte) []byte {
	comment := []byte("<!-- written by " + Software() + " -->\n")
	at := 0
	if bytes.HasPrefix(b, []byte("<?xml")) {
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			at = i + 1
		} else {
			return b
		}
	}
	out := make([]byte, 0, len(b)+len(comment))
	out = append(out, b[:at]...)
	out = append(out, comment...)
	return append(out, b[at:]...)
}

// WritePNG writes img as a PNG file stamped with the running privmap
// (StampPNG).
func WritePNG(w io.Writer, img image.Image) error {
	return WriteStamped(w, StampPNG, func(w io.Writer) error { return png.Encode(w, img) })
}

// WriteStamped writes what fill writes, passed through stamp (StampPNG
// or StampSVG), to w.
func WriteStamped(w io.Writer, stamp func([]byte) []byte, fill func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := fill(&buf); err != nil {
		return err
	}
	_, err := w.Write(stamp(buf.Bytes()))
	return err
}
