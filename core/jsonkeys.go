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
	type frame struct {
		object bool
		keys   map[string]string // folded key → as written
	}
	var stack []frame
	line := 1
	for i := 0; i < len(b); i++ {
		switch c := b[i]; c {
		case '\n':
			line++
		case '{', '[':
			stack = append(stack, frame{object: c == '{'})
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case '"':
			start := i
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
			j := i + 1
			for j < len(b) && (b[j] == ' ' || b[j] == '\t' || b[j] == '\r' || b[j] == '\n') {
				j++
			}
			if len(stack) == 0 || !stack[len(stack)-1].object || j >= len(b) || b[j] != ':' {
				continue // a value, not a member's name
			}
			var key string
			if err := json.Unmarshal(b[start:i+1], &key); err != nil {
				return fmt.Errorf("core: study: line %d: %w", line, err)
			}
			top := &stack[len(stack)-1]
			if top.keys == nil {
				top.keys = map[string]string{}
			}
			folded := strings.ToLower(strings.ToUpper(key)) // as encoding/json folds: ſ is s, K (Kelvin) is k
			if prev, ok := top.keys[folded]; ok {
				if prev == key {
					return fmt.Errorf("core: study: line %d: member %q appears twice in one object", line, key)
				}
				return fmt.Errorf("core: study: line %d: members %q and %q differ only in case; JSON readers would take one for the other", line, prev, key)
			}
			top.keys[folded] = key
		}
	}
	return nil
}
