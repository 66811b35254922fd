// Package human writes numbers for people to read: counts with
// thousands separators, durations and sizes to three figures, odds
// factors e^ε, privacy levels without floating point's noise,
// percentages, coordinates with their hemisphere, and how a person's
// records fall among cells. Every front end, the report and the
// experiments write their numbers through it, so that one figure reads
// the same everywhere.
package human
