package layer

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"html"
	"io"
	"math"
	"strings"
)

// TIFF field types (TIFF 6.0 §2).
const (
	tiffASCII  = 2
	tiffShort  = 3
	tiffLong   = 4
	tiffDouble = 12
)

// tiffEntry is one IFD entry, its value already in little-endian bytes.
type tiffEntry struct {
	tag, typ uint16
	count    uint32
	data     []byte
}

// geoTIFF is the GeoTIFF format's record (formats).
var geoTIFF = Format{Name: "GeoTIFF", Exts: []string{".tif", ".tiff"}, Holds: "a raster of one pixel a cell",
	Write: func(_ context.Context, w io.Writer, l *Layer) error { return WriteGeoTIFF(w, l) }}

// WriteGeoTIFF writes l as a GeoTIFF of one pixel per cell, the first
// row of pixels the grid's northern row: one uncompressed strip of
// 64-bit floating-point samples, one band (sample) per column, named
// in GDAL's metadata tag (band descriptions), georeferenced in WGS 84
// (EPSG:4326) by a tie point at the box's north-west corner and the
// cells' size in degrees (ModelPixelScale), pixels as areas, so that
// the image's corners are the grid's box.
//
// Written here, in about a hundred lines, because no well-kept Go
// library writes GeoTIFF tags: golang.org/x/image/tiff encodes only
// image.Image types, without float samples or extra tags.
func WriteGeoTIFF(w io.Writer, l *Layer) error {
	if err := l.Check(); err != nil {
		return err
	}
	g, n := l.Grid, len(l.Columns)
	size := 8 * n * g.Len()
	if size > math.MaxUint32/2 {
		return fmt.Errorf("layer: a GeoTIFF of %d bands of %d cells is beyond a classic TIFF's 4 GB", n, g.Len())
	}
	bw := bufio.NewWriter(w)
	bw.Write(tiffHead(geoTIFFEntries(l, size)))
	px := make([]byte, 8*n)
	for r := g.Rows - 1; r >= 0; r-- {
		for c := range g.Cols {
			for i, col := range l.Columns {
				binary.LittleEndian.PutUint64(px[8*i:], math.Float64bits(col.Values[r*g.Cols+c]))
			}
			if _, err := bw.Write(px); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}

func shorts(v ...uint16) []byte {
	b := make([]byte, 0, 2*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint16(b, x)
	}
	return b
}

func long(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }

func doubles(v ...float64) []byte {
	b := make([]byte, 0, 8*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	return b
}

// geoTIFFEntries returns the IFD entries of l's GeoTIFF, in the order of
// their tags, its one strip of size bytes; StripOffsets (273) is left
// for tiffHead to set.
func geoTIFFEntries(l *Layer, size int) []tiffEntry {
	g, n := l.Grid, len(l.Columns)
	each := func(v uint16) []byte {
		s := make([]uint16, n)
		for i := range s {
			s[i] = v
		}
		return shorts(s...)
	}
	var meta strings.Builder
	meta.WriteString("<GDALMetadata>")
	for i, c := range l.Columns {
		fmt.Fprintf(&meta, `<Item name="DESCRIPTION" sample="%d" role="description">%s</Item>`, i, html.EscapeString(c.Name))
	}
	meta.WriteString("</GDALMetadata>\x00")
	entries := []tiffEntry{
		{256, tiffLong, 1, long(uint32(g.Cols))},
		{257, tiffLong, 1, long(uint32(g.Rows))},
		{258, tiffShort, uint32(n), each(64)},
		{259, tiffShort, 1, shorts(1)}, // no compression
		{262, tiffShort, 1, shorts(1)}, // BlackIsZero
		{273, tiffLong, 1, nil},        // StripOffsets, set by tiffHead
		{277, tiffShort, 1, shorts(uint16(n))},
		{278, tiffLong, 1, long(uint32(g.Rows))},
		{279, tiffLong, 1, long(uint32(size))},
		{284, tiffShort, 1, shorts(1)}, // chunky
	}
	if l.Software != "" { // Software (TIFF 6.0, tag 305), NUL-terminated
		entries = append(entries, tiffEntry{305, tiffASCII, uint32(len(l.Software) + 1), append([]byte(l.Software), 0)})
	}
	if n > 1 {
		entries = append(entries, tiffEntry{338, tiffShort, uint32(n - 1), shorts(make([]uint16, n-1)...)})
	}
	dx, dy := (g.East-g.West)/float64(g.Cols), (g.North-g.South)/float64(g.Rows)
	return append(entries,
		tiffEntry{339, tiffShort, uint32(n), each(3)}, // IEEE floating point
		tiffEntry{33550, tiffDouble, 3, doubles(dx, dy, 0)},
		tiffEntry{33922, tiffDouble, 6, doubles(0, 0, 0, g.West, g.North, 0)},
		// GeoKeyDirectory (OGC 19-008r4 §7.1.3): version 1.1.0, 3 keys:
		// GTModelType geographic, GTRasterType PixelIsArea,
		// GeodeticCRS EPSG:4326.
		tiffEntry{34735, tiffShort, 16, shorts(1, 1, 0, 3, 1024, 0, 1, 2, 1025, 0, 1, 1, 2048, 0, 1, 4326)},
		tiffEntry{42112, tiffASCII, uint32(meta.Len()), []byte(meta.String())},
	)
}

// tiffHead returns a little-endian TIFF's bytes before its image data:
// the header, the one IFD of entries (values of more than four bytes
// after it, each at an even offset), and padding to a multiple of 8,
// where the strip starts (StripOffsets).
func tiffHead(entries []tiffEntry) []byte {
	const ifd = 8
	extra := ifd + 2 + 12*len(entries) + 4
	var out []byte
	for _, e := range entries {
		if len(e.data) > 4 {
			out = append(out, e.data...)
			if len(out)%2 == 1 {
				out = append(out, 0)
			}
		}
	}
	data := extra + len(out)
	data += (8 - data%8) % 8
	head := []byte{'I', 'I', 42, 0}
	head = binary.LittleEndian.AppendUint32(head, ifd)
	head = binary.LittleEndian.AppendUint16(head, uint16(len(entries)))
	at := extra
	for _, e := range entries {
		if e.tag == 273 {
			e.data = long(uint32(data))
		}
		head = binary.LittleEndian.AppendUint16(head, e.tag)
		head = binary.LittleEndian.AppendUint16(head, e.typ)
		head = binary.LittleEndian.AppendUint32(head, e.count)
		if len(e.data) <= 4 {
			v := make([]byte, 4)
			copy(v, e.data)
			head = append(head, v...)
			continue
		}
		head = binary.LittleEndian.AppendUint32(head, uint32(at))
		at += len(e.data) + len(e.data)%2
	}
	head = binary.LittleEndian.AppendUint32(head, 0) // no next IFD
	head = append(head, out...)
	return append(head, make([]byte, data-len(head))...)
}
