package core

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"strconv"
)

// MaxStudyBytes bounds a study file: 1 GB, some 100 million per-user
// data; decoding takes about three times that in memory.
const MaxStudyBytes = 1 << 30

// ReadAllLimited reads r to its end unless it holds more than limit
// bytes, which it refuses, naming what the file is, before reading
// further.
func ReadAllLimited(r io.Reader, limit int64, what string) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("core: %s larger than %s is more than privmap reads", what, bytesText(float64(limit)))
	}
	return b, nil
}

// ReadStudy reads and validates a study file. Syntax errors carry the
// line; unknown members are errors, so that a misspelt "epsilon" is not
// silently ignored, except the top-level members named in extensions,
// which are kept raw in Study.Extensions for the layer that wrote them
// (privmap's application layer names its own: studyfile.ApplicationMembers).
func ReadStudy(r io.Reader, extensions ...string) (*Study, error) {
	b, err := ReadAllLimited(r, MaxStudyBytes, "a study file")
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	v := studyWith(extensions)
	if err := dec.Decode(v.Interface()); err != nil {
		return nil, jsonError(b, err)
	}
	if dec.More() {
		return nil, errors.New("core: study: unexpected data after the JSON object")
	}
	if err := checkKeys(b); err != nil {
		return nil, err
	}
	e := v.Elem()
	s := e.Field(0).Addr().Interface().(*Study)
	for i, name := range extensions {
		if raw := e.Field(i + 1).Bytes(); raw != nil {
			if s.Extensions == nil {
				s.Extensions = make(map[string]json.RawMessage)
			}
			s.Extensions[name] = raw
		}
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return s, nil
}

// studyMembers are the top-level members of a study file that core reads.
var studyMembers = []string{"alphabet", "mechanisms", "data", "personal", "people", "max_per_person", "people_unknown"}

// studyWith returns a pointer to a new struct that embeds Study and adds
// one json.RawMessage member for each name, so that the strict decoder
// accepts those members and nothing else. encoding/json has no
// "accept these extra keys" option; building the type by reflection
// keeps the decoder's own line offsets and unknown-member errors.
func studyWith(names []string) reflect.Value {
	fields := []reflect.StructField{{Name: "Study", Type: reflect.TypeFor[Study](), Anonymous: true}}
	for i, name := range names {
		if slices.Contains(studyMembers, name) {
			panic(fmt.Sprintf("core: study extension %q is a member of the study itself", name))
		}
		fields = append(fields, reflect.StructField{
			Name: fmt.Sprintf("X%d", i),
			Type: reflect.TypeFor[json.RawMessage](),
			Tag:  reflect.StructTag(fmt.Sprintf("json:%q", name)),
		})
	}
	return reflect.New(reflect.StructOf(fields))
}

// jsonError adds the line of a JSON syntax or type error.
func jsonError(b []byte, err error) error {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 {
		return fmt.Errorf("core: study: %w", err)
	}
	line := 1 + bytes.Count(b[:min(int(off), len(b))], []byte("\n"))
	return fmt.Errorf("core: study: line %d: %w", line, err)
}

// WriteStudy writes s as indented JSON, with Data, if any, on one line
// rather than one number a line. Extensions follow the mechanisms in the
// order of their names.
func WriteStudy(w io.Writer, s *Study) error {
	c := *s
	if c.Mechanisms == nil {
		c.Mechanisms = []MechanismSpec{}
	}
	c.Data, c.Personal, c.People, c.Extensions = nil, nil, nil, nil
	// An Encoder, unlike MarshalIndent, can leave < > & in labels as
	// they are rather than \u003c escapes.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(&c); err != nil {
		return err
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n}\n"))
	for _, name := range slices.Sorted(maps.Keys(s.Extensions)) {
		b = appendKey(b, ",\n  ", name)
		var v bytes.Buffer
		if err := json.Indent(&v, s.Extensions[name], "  ", "  "); err != nil {
			return fmt.Errorf("core: study member %q: %w", name, err)
		}
		b = append(b, v.Bytes()...)
	}
	if len(s.Data) > 0 {
		b = appendInts(appendKey(b, ",\n  ", "data"), s.Data)
	}
	if len(s.People) > 0 {
		b = appendInts(appendKey(b, ",\n  ", "people"), s.People)
	}
	if len(s.Personal) > 0 {
		b = appendKey(b, ",\n  ", "personal")
		b = append(b, '{')
		for i, tag := range slices.Sorted(maps.Keys(s.Personal)) {
			sep := ",\n    "
			if i == 0 {
				sep = "\n    "
			}
			b = appendInts(appendKey(b, sep, tag), s.Personal[tag])
		}
		b = append(b, "\n  }"...)
	}
	b = append(b, "\n}\n"...)
	_, err := w.Write(b)
	return err
}

// appendKey appends sep and the object key name as JSON, then ": ".
func appendKey(b []byte, sep, name string) []byte {
	b = append(b, sep...)
	q, _ := json.Marshal(name) // a string always marshals
	b = append(b, q...)
	return append(b, ": "...)
}

// appendInts appends v as a JSON array on one line.
func appendInts(b []byte, v []int) []byte {
	b = append(b, '[')
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(x), 10)
	}
	return append(b, ']')
}
