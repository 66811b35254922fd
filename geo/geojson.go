package geo

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// ErrNotPoint is the reason of a GeoJSON feature whose geometry is not a
// point.
var ErrNotPoint = errors.New("geometry is not a point")

// What a file's first JSON object says it is (geoJSONKind).
const (
	notGeoJSON        = iota
	geoJSONFeatures   // a Feature: the first of a text sequence's
	geoJSONCollection // a FeatureCollection
)

// geoJSONLayout is the record of GeoJSON point features (readGeoJSON), found
// by its first bytes.
var geoJSONLayout = Layout{Format: GeoJSON, Name: "geojson", Names: []string{"geojson", "geojsonseq"}, Shown: []string{"geojson"},
	Note: "point features", Exts: []string{".geojson", ".geojsonl"}, Unit: "features"}

// isGeoJSON reports whether br starts a GeoJSON document (geoJSONKind).
func isGeoJSON(br *bufio.Reader) bool {
	head, _ := br.Peek(br.Size())
	return geoJSONKind(head) != notGeoJSON
}

// geoJSONKind parses the first JSON object of head (after a byte-order
// mark, white space or RFC 8142's record separator) member by member,
// at its top level only, until one says what it is: "type" naming a
// FeatureCollection or a Feature, or a "features" array (a collection
// whose type comes after it). Members in any order, any white space and
// long members before the type are read as JSON is (a search for
// "type":"FeatureCollection" in the first kilobyte missed all three,
// and found it in a feature's properties). An object that runs past
// head before it says is read as a collection, whose reader names what
// it lacks: it is JSON, never a delimited file.
func geoJSONKind(head []byte) int {
	head = bytes.TrimLeft(bytes.TrimPrefix(head, bom), " \t\r\n\x1e")
	if len(head) == 0 || head[0] != '{' {
		return notGeoJSON
	}
	dec := json.NewDecoder(bytes.NewReader(head))
	undecided := func(err error) int {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return geoJSONCollection
		}
		return notGeoJSON
	}
	if _, err := dec.Token(); err != nil {
		return undecided(err)
	}
	for {
		t, err := dec.Token()
		if err != nil {
			return undecided(err)
		}
		key, ok := t.(string)
		if !ok {
			return notGeoJSON // the object ended without saying
		}
		switch key {
		case "type", "features":
			v, err := dec.Token()
			switch {
			case err != nil:
				return undecided(err)
			case key == "features" && v == json.Delim('['), v == "FeatureCollection":
				return geoJSONCollection
			case v == "Feature":
				return geoJSONFeatures
			}
			return notGeoJSON
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return undecided(err)
		}
	}
}

// feature is a GeoJSON feature as privmap reads it (RFC 7946 §3.2).
type feature struct {
	Type     string `json:"type"`
	Geometry *struct {
		Type        string          `json:"type"`
		Coordinates json.RawMessage `json:"coordinates"`
	} `json:"geometry"`
	Properties map[string]any `json:"properties"`
}

// readGeoJSON reads a GeoJSON FeatureCollection, streaming its features
// one at a time, or a GeoJSON text sequence (RFC 8142; one feature a
// line, as GDAL's GeoJSONSeq writes). Each Point feature is a check-in
// at its coordinates (longitude, latitude; RFC 7946 §3.1.1), its person,
// time and place read from the properties the mapping names or, as in a
// delimited file's header, whose names say so (user, user_id, time,
// venue…). A feature's number stands for a line in its errors.
func readGeoJSON(lr *lineReader, res *Result, opt Options) error {
	props := &properties{m: opt.Mapping}
	if err := props.check(); err != nil {
		return err
	}
	defer func() { res.NoPerson = !props.sawUser }()
	head, _ := lr.br.Peek(lr.br.Size())
	if geoJSONKind(head) == geoJSONCollection {
		// Read from the bytes, not lines: a collection is often one line.
		return readFeatureCollection(lr.ctx, lr.br, res, opt, props)
	}
	return readLines(lr, res, opt, func(line string) (Checkin, error) {
		var f feature
		if err := json.Unmarshal([]byte(strings.TrimLeft(line, "\x1e")), &f); err != nil {
			return Checkin{}, fmt.Errorf("not a GeoJSON feature: %v", clip(err.Error(), 60))
		}
		return props.checkin(&f)
	})
}

// readFeatureCollection streams the features of a FeatureCollection,
// stopping once ctx (nil: never) is done.
func readFeatureCollection(ctx context.Context, r io.Reader, res *Result, opt Options, props *properties) error {
	feed := &featureFeed{r: r}
	dec := json.NewDecoder(feed)
	feed.dec = dec
	bad := func(err error) error {
		return &ParseError{Unit: "feature", Line: res.records + res.Skipped + 1, Err: err}
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return bad(errors.New("not a GeoJSON object"))
	}
	features := false
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return bad(fmt.Errorf("not GeoJSON: %v", err))
		}
		if key == "features" && features {
			// JSON leaves a repeated name's meaning open (RFC 8259
			// §4): both were read, as one collection.
			return bad(errors.New(`a FeatureCollection with two "features" members: which is meant is not said`))
		}
		if key != "features" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return bad(fmt.Errorf("not GeoJSON: %v", err))
			}
			continue
		}
		features = true
		if err := readFeatures(ctx, dec, res, opt, props, bad); err != nil {
			return err
		}
	}
	return nil
}

// readFeatures reads the "features" array whose name dec has just
// read, a feature at a time; bad makes the error of malformed JSON.
func readFeatures(ctx context.Context, dec *json.Decoder, res *Result, opt Options, props *properties, bad func(error) error) error {
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return bad(errors.New(`"features" is not an array`))
	}
	for n := 1; dec.More(); n++ {
		if n&1023 == 0 && ctx != nil {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		var f feature
		if err := dec.Decode(&f); err != nil {
			// The stream cannot be followed past a malformed feature.
			return bad(fmt.Errorf("not a GeoJSON feature: %v", clip(err.Error(), 60)))
		}
		res.Lines = n
		c, err := props.checkin(&f)
		if err := res.recordAs("feature", n, c, err, opt.SkipBad); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return bad(fmt.Errorf("not GeoJSON: %v", err))
	}
	return nil
}

// maxFeature bounds the bytes of one GeoJSON feature (a point's are a
// few hundred): the decoder holds a whole feature in memory. A variable
// so that a test can lower it.
var maxFeature int64 = 64 << 20

// featureFeed feeds a json.Decoder, failing once the decoder holds more
// than maxFeature bytes past its last token: a feature too large.
type featureFeed struct {
	r    io.Reader
	dec  *json.Decoder
	read int64
}

func (f *featureFeed) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	f.read += int64(n)
	if f.read-f.dec.InputOffset() > maxFeature {
		return 0, fmt.Errorf("a feature of more than %d bytes", maxFeature)
	}
	return n, err
}

// properties finds a feature's person, time and place among its
// properties: by the names a mapping gives, else by the names a
// delimited file's header would use (headerNames).
type properties struct {
	m *Mapping
	// sawUser: some feature named a person.
	sawUser bool
}

// check refuses a mapping of coordinates (a point layer's are its
// geometry's) or by numbers (attributes have names).
func (p *properties) check() error {
	if p.m == nil {
		return nil
	}
	for _, kind := range []string{"lat", "lon"} {
		if _, ok := p.m.Columns[kind]; ok {
			return fmt.Errorf("geo: %w: a point layer's coordinates come from its geometry: map user, time and loc only", ErrMapping)
		}
	}
	for kind, col := range p.m.Columns {
		if _, err := strconv.Atoi(col); err == nil {
			return fmt.Errorf("geo: %w: %s=%s: a layer's attributes have names, not numbers", ErrMapping, kind, col)
		}
	}
	return nil
}

// value returns the property of a feature that holds kind, "" if none.
func (p *properties) value(props map[string]any, kind string) string {
	name, mapped := "", false
	if p.m != nil {
		name, mapped = p.m.Columns[kind]
	}
	if mapped && strings.EqualFold(name, "none") {
		return ""
	}
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	slices.Sort(keys) // the first match, whatever the map's order
	for _, k := range keys {
		if mapped && normalForm(k) == normalForm(name) || !mapped && slices.Contains(kindNames(kind), normalForm(k)) {
			return propertyText(props[k])
		}
	}
	return ""
}

// kindNames are the header names of kind (headerNames).
func kindNames(kind string) []string {
	i := slices.Index([]string{"lat", "lon", "user", "time", "loc"}, kind)
	return headerNames[i].names
}

// propertyText is a property's value as text: a string as it is, a
// number as written, anything else as JSON.
func propertyText(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return strings.TrimSpace(v)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// checkin reads a feature as a check-in.
func (p *properties) checkin(f *feature) (Checkin, error) {
	if f.Type != "Feature" {
		return Checkin{}, fmt.Errorf("a %q, not a Feature", clip(f.Type, 30))
	}
	if f.Geometry == nil {
		return Checkin{}, fmt.Errorf("%w: it has none", ErrNotPoint)
	}
	if f.Geometry.Type != "Point" {
		return Checkin{}, fmt.Errorf("%w: a %s", ErrNotPoint, clip(f.Geometry.Type, 30))
	}
	var xy []float64
	if err := json.Unmarshal(f.Geometry.Coordinates, &xy); err != nil || len(xy) < 2 {
		return Checkin{}, fmt.Errorf("%w: its coordinates are not [longitude, latitude]", ErrNotPoint)
	}
	pt, err := floatPoint(xy[1], xy[0])
	if err != nil {
		return Checkin{}, err
	}
	c := Checkin{Point: pt, User: p.value(f.Properties, "user"), Location: p.value(f.Properties, "loc")}
	p.sawUser = p.sawUser || c.User != ""
	if s := p.value(f.Properties, "time"); s != "" {
		layout := ""
		if p.m != nil {
			layout = p.m.TimeLayout
		}
		if c.Time, err = timeParser(layout)(s); err != nil {
			return Checkin{}, fieldError(ErrBadTime, s)
		}
	}
	return c, nil
}
