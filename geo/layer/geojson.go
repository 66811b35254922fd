package layer

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strconv"
)

// geoJSON is the GeoJSON format's record (formats).
var geoJSON = Format{Name: "GeoJSON", Exts: []string{".geojson"}, Holds: "a polygon a cell, with its numbers, for QGIS or kepler.gl",
	Write: func(_ context.Context, w io.Writer, l *Layer) error { return WriteGeoJSON(w, l) }}

// WriteGeoJSON writes l as an RFC 7946 feature collection: one Polygon
// feature a cell, in cell order, with the properties cell, row, col and
// one per column. Coordinates are written with the shortest decimal
// that reads back as the same float64, so the cells' edges are the
// grid's exactly.
//
// It streams with strconv rather than orb/geojson's maps: a city grid
// of 40,000 cells would otherwise build 40,000 maps of interfaces.
func WriteGeoJSON(w io.Writer, l *Layer) error {
	if err := l.Check(); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	name, _ := json.Marshal(l.Name)
	bw.WriteString(`{"type":"FeatureCollection","name":`)
	bw.Write(name)
	if l.Software != "" { // a foreign member (RFC 7946 §6.1)
		gen, _ := json.Marshal(l.Software)
		bw.WriteString(`,"generator":`)
		bw.Write(gen)
	}
	bw.WriteString(`,"features":[`)
	g := l.Grid
	var buf []byte
	for x := range g.Len() {
		buf = buf[:0]
		if x > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, "\n{\"type\":\"Feature\",\"id\":"...)
		buf = strconv.AppendInt(buf, int64(x), 10)
		buf = append(buf, `,"geometry":{"type":"Polygon","coordinates":[[`...)
		for i, p := range g.ring(x) {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = append(buf, '[')
			buf = strconv.AppendFloat(buf, p[0], 'g', -1, 64)
			buf = append(buf, ',')
			buf = strconv.AppendFloat(buf, p[1], 'g', -1, 64)
			buf = append(buf, ']')
		}
		buf = append(buf, `]]},"properties":{"cell":`...)
		buf = strconv.AppendInt(buf, int64(x), 10)
		buf = append(buf, `,"row":`...)
		buf = strconv.AppendInt(buf, int64(x/g.Cols), 10)
		buf = append(buf, `,"col":`...)
		buf = strconv.AppendInt(buf, int64(x%g.Cols), 10)
		for _, c := range l.Columns {
			buf = append(buf, ",\""...)
			buf = append(buf, c.Name...)
			buf = append(buf, "\":"...)
			buf = appendValue(buf, c, x)
		}
		buf = append(buf, "}}"...)
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	bw.WriteString("\n]}\n")
	return bw.Flush()
}

// appendValue appends column c's value at cell x: an integer, or the
// shortest decimal of the float64.
func appendValue(buf []byte, c Column, x int) []byte {
	v := c.Values[x]
	if c.Integer {
		return strconv.AppendInt(buf, int64(v), 10)
	}
	return strconv.AppendFloat(buf, v, 'g', -1, 64)
}
