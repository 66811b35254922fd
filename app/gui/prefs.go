package gui

import "slices"

// choice returns stored if it is one of options, else def, so that a
// preference saved by another version never leaves a selection empty.
func choice(stored string, options []string, def string) string {
	if slices.Contains(options, stored) {
		return stored
	}
	return def
}
