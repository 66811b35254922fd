package report

import "testing"

// TestPerUserWords says grid's -per-user rule in words, where the
// report said "per-person rule: 20".
func TestPerUserWords(t *testing.T) {
	for rule, want := range map[string]string{
		"":      "",
		"first": "each person's first record kept (grid -per-user first)",
		"all":   "every record of each person kept (grid -per-user all)",
		"20":    "each person's first 20 records by time kept, at most (grid -per-user 20)",
	} {
		if got := perUserWords(rule); got != want {
			t.Errorf("%q: %q, want %q", rule, got, want)
		}
	}
}
