package core

import (
	"encoding/json"
	"fmt"
	"strings"
)

// checkKeys refuses a JSON document, already known to be valid, in which
// an object names a member twice, exactly or in another case: its
// decoder (encoding/json) would keep the last of "epsilon" and
// "EPSILON" without a word, and a study must mean one thing. It scans the
// bytes once, without decoding values, so a study of 10⁸ data costs a
// pass over its bytes.
func checkKeys(b []byte) error {
	var stack []keyFrame
	line := 1
	for i := 0; i < len(b); i++ {
		switch c := b[i]; c {
		case '\n':
			line++
		case '{', '[':
			stack = append(stack, keyFrame{object: c == '{'})
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case '"':
			start := i
			i = stringEnd(b, i)
			if len(stack) == 0 || !stack[len(stack)-1].object || !memberName(b, i+1) {
				continue // a value, not a member's name
			}
			if err := stack[len(stack)-1].add(b[start:i+1], line); err != nil {
				return err
			}
		}
	}
	return nil
}

// keyFrame is an object or array open at a point of checkKeys's scan.
type keyFrame struct {
	object bool
	keys   map[string]string // folded key → as written
}

// add records the member name quoted, refusing one met before in any
// case.
func (f *keyFrame) add(quoted []byte, line int) error {
	var key string
	if err := json.Unmarshal(quoted, &key); err != nil {
		return fmt.Errorf("core: study: line %d: %w", line, err)
	}
	if f.keys == nil {
		f.keys = map[string]string{}
	}
	folded := strings.ToLower(strings.ToUpper(key)) // as encoding/json folds: ſ is s, K (Kelvin) is k
	if prev, ok := f.keys[folded]; ok {
		if prev == key {
			return fmt.Errorf("core: study: line %d: member %q appears twice in one object", line, key)
		}
		return fmt.Errorf("core: study: line %d: members %q and %q differ only in case; JSON readers would take one for the other", line, prev, key)
	}
	f.keys[folded] = key
	return nil
}

// stringEnd returns the index of the quote that closes the string
// opened at b[i].
func stringEnd(b []byte, i int) int {
	for i++; i < len(b) && b[i] != '"'; i++ {
		if b[i] == '\\' {
			i++
		}
	}
	return i
}

// memberName reports whether the next non-space byte from b[j] is a
// colon: the string before it names a member.
func memberName(b []byte, j int) bool {
	for j < len(b) && (b[j] == ' ' || b[j] == '\t' || b[j] == '\r' || b[j] == '\n') {
		j++
	}
	return j < len(b) && b[j] == ':'
}
