package core

import (
	"strings"
	"testing"
)

// TestCheckKeys checks that a member named twice in one object, exactly,
// in another case, through an escape or by Unicode folding, is refused
// with its names and line, and that names repeated in different objects,
// strings holding quotes and colons, and arrays of strings are not.
func TestCheckKeys(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{`{"a": 1, "b": 2}`, ""},
		{`{"a": {"a": 1}, "b": [{"a": 1}, {"a": 2}]}`, ""},
		{`{"s": "\"a\": 1", "a": ["a", ":", "a"]}`, ""},
		{`{"a": 1, "a": 2}`, `line 1: member "a" appears twice in one object`},
		{"{\n\"epsilon\": 1,\n\"EPSILON\": 2}", `line 3: members "epsilon" and "EPSILON" differ only in case`},
		{`{"epsilon": 1, "\u0065psilon": 2}`, `member "epsilon" appears twice`},
		{`{"kind": 1, "Kind": 2}`, `members "kind" and "Kind" differ only in case`},
		{`{"s": 1, "ſ": 2}`, `members "s" and "ſ" differ only in case`},
		{`[{"m": [{"x": 1, "y": {"z": 0}, "X": 2}]}]`, `members "x" and "X"`},
	} {
		err := checkKeys([]byte(tc.doc))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.doc, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want %q", tc.doc, err, tc.want)
		}
	}
}
