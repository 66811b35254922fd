package guarantee

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/privmap/privmap/app/human"
	"github.com/privmap/privmap/core"
)

// A Contribution says whom a central release protects: the sensitivity Δ
// it is drawn at, and what the data say of their people.
type Contribution struct {
	// Sensitivity is Δ, the most one person changes a count (L1 over
	// the histogram) under the neighbouring relation.
	Sensitivity int
	// Known reports whether the data say who contributed which records
	// (a study with people); without it each record is taken for a
	// person, which protects records, not people.
	Known bool
	// Largest is the most records one person contributes to the data,
	// before any clipping; Bound reports whether Δ is the bound the data
	// were selected under (privmap grid -per-user), rather than a number
	// given or read off the data.
	Largest int
	Bound   bool
	// Clipped reports that Δ was given by the officer and each person
	// clipped to it (-sensitivity Δ -clip): a bound fixed before the
	// data were read, whoever it drops.
	Clipped bool
	// Dropped counts the records clipping dropped, each person's beyond Δ.
	Dropped int
	// SmallCells counts the cells whose true count comes from one or two
	// people (records, when the data do not say who gave which): their
	// released counts are mostly noise, and a reader may take them for
	// people.
	SmallCells int
}

// SmallCells counts the cells with one or two records, each taken for a
// person.
func SmallCells(counts []float64) int {
	n := 0
	for _, c := range counts {
		if c >= 1 && c <= 2 {
			n++
		}
	}
	return n
}

// Unit names whom the release protects: "person", or "record" when the
// data do not say who contributed which.
func (c Contribution) Unit() string {
	if c.Known {
		return "person"
	}
	return "record"
}

// InAdvance reports whether Δ was fixed before the data were read — the
// bound the data were selected under (grid -per-user K) or one the
// officer gave and clipped each person to — as differential privacy
// requires of a guarantee: a Δ read off the data (the largest
// contribution) depends on them, and so does the noise drawn with it.
// Without people (records taken for persons) Δ is the officer's.
func (c Contribution) InAdvance() bool { return !c.Known || c.Bound || c.Clipped }

// ErrBoundFromData refuses a publication whose Δ was read off the data.
var ErrBoundFromData = errors.New("the bound was read from the data, so this is not a differential-privacy guarantee: " +
	"bound each person's data when gridding (-per-user K), or give a bound and clip each person to it (-sensitivity Δ -clip)")

// Neighbours says in words whom Δ protects.
func (c Contribution) Neighbours() string {
	if !c.Known {
		return "add or remove one record, changing a count by at most " + human.Thousands(c.Sensitivity) + " (the data do not say who contributed which records: this protects records, not people)"
	}
	if c.Sensitivity == 1 {
		return "add or remove one person with her one record"
	}
	return "add or remove one person with all her records, at most " + human.Thousands(c.Sensitivity)
}

// A ContributionError refuses a release whose sensitivity is below the
// records one person contributes: the guarantee stated would be a
// record's, not a person's.
type ContributionError struct {
	Sensitivity, Largest int
}

func (e *ContributionError) Error() string {
	kept := "records"
	if e.Sensitivity == 1 {
		kept = "record"
	}
	return fmt.Sprintf("sensitivity %d is below the %s records one person contributes to these counts: one person could change them by up to %s, not %d. "+
		"Release at sensitivity %s, bound each person's data when gridding (-per-user K), or clip each person to %d %s (dropping the rest, seeded)",
		e.Sensitivity, human.Thousands(e.Largest), human.Thousands(e.Largest), e.Sensitivity, human.Thousands(e.Largest), e.Sensitivity, kept)
}

// ErrNoData says a study holds no data to release.
var ErrNoData = errors.New("the study holds no data (privmap grid writes them with -study-out)")

// StudyCounts returns the counts of study s's data to release at
// sensitivity delta (0: the study's own, its per-person bound or else
// the largest contribution), with what the release protects. A person
// with more than Δ records is refused (a *ContributionError), or with
// clip keeps Δ of them drawn by rng and the rest are dropped.
func StudyCounts(s *core.Study, delta int, clip bool, rng *rand.Rand) ([]float64, Contribution, error) {
	if len(s.Data) == 0 {
		return nil, Contribution{}, ErrNoData
	}
	_, largest := s.Contributions()
	c := ContributionOf(s, largest, delta, clip)
	keep := make([]int, len(s.Data))
	for i := range keep {
		keep[i] = i
	}
	if largest > c.Sensitivity {
		if !clip {
			return nil, c, &ContributionError{Sensitivity: c.Sensitivity, Largest: largest}
		}
		keep, c.Dropped = core.BoundContributions(s.People, len(s.Data), c.Sensitivity, rng)
	}
	counts := make([]float64, s.Alphabet.Len())
	for _, i := range keep {
		counts[s.Data[i]]++
	}
	c.SmallCells = smallCells(s, keep, counts)
	return counts, c, nil
}

// ContributionOf says whom a release of study s's data at sensitivity
// delta protects (0: the study's own, its per-person bound or else the
// largest contribution), largest being the most records one person
// contributes (s.Contributions): whether the data name their people, Δ,
// and whether Δ is a bound fixed in advance. A Δ at or above the bound
// the data were selected under is a bound too; one given and clipped to
// is fixed in advance.
func ContributionOf(s *core.Study, largest, delta int, clip bool) Contribution {
	c := Contribution{Known: s.Unit() == "person", Largest: largest}
	c.Sensitivity, c.Bound = s.Sensitivity()
	if delta > 0 {
		c.Sensitivity, c.Bound = delta, s.MaxPerPerson > 0 && delta >= s.MaxPerPerson
		c.Clipped = clip
	}
	return c
}

// DroppedCells returns in how many cells the counts after clipping are
// below those before, and at most by how many records in one: what a
// preview may say of where clipping dropped records.
func DroppedCells(before, after []float64) (cells, most int) {
	for x, v := range before {
		if d := int(v - after[x]); d > 0 {
			cells++
			most = max(most, d)
		}
	}
	return cells, most
}

// DataCounts returns how many of s's data each symbol holds: the truth's
// counts that privmap grid wrote beside the study.
func DataCounts(s *core.Study) []float64 {
	counts := make([]float64, s.Alphabet.Len())
	for _, x := range s.Data {
		counts[x]++
	}
	return counts
}

// smallCells counts the cells whose kept data come from one or two
// people (a cell's set of people stops growing at three).
func smallCells(s *core.Study, keep []int, counts []float64) int {
	if s.People == nil {
		return SmallCells(counts)
	}
	people := make(map[int]map[int]bool)
	for _, i := range keep {
		x := s.Data[i]
		if people[x] == nil {
			people[x] = map[int]bool{}
		}
		if len(people[x]) <= 2 {
			people[x][s.People[i]] = true
		}
	}
	n := 0
	for _, p := range people {
		if len(p) >= 1 && len(p) <= 2 {
			n++
		}
	}
	return n
}
