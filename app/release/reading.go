package release

import (
	"fmt"

	"github.com/privmap/privmap/app/guarantee"
	"github.com/privmap/privmap/app/human"
)

// Reading says in words what a central release's noise
// guarantees whom c protects — one person, or one record when the data
// do not say who contributed which: the worst case, and PM's general
// privacy budget as the average loss. With sum.Person (PersonSummary)
// both are over every way her records fall among the cells, and the
// reading says which way is worst.
func Reading(sum Summary, c guarantee.Contribution) string {
	who := "one person"
	switch {
	case !c.Known:
		who = "one record"
	case c.Sensitivity > 1:
		who = fmt.Sprintf("one person (up to %s records)", human.Thousands(c.Sensitivity))
	}
	p := sum.Person
	// e^{E|L|} is the geometric mean of the odds factor e^{|L|}; the
	// plain mean is E e^{|L|} = e^{ε_PM}, PM Table I's reading.
	avg := fmt.Sprintf("on average over the noise ε_g %s (PM's general privacy budget: the odds change %s as a geometric mean, %s as a plain mean)",
		human.Eps(sum.Budget), human.Odds(sum.Budget), human.Odds(sum.BudgetPM))
	if p == nil || p.Records == 1 {
		return fmt.Sprintf("Whether %s is in the data changes the odds of any released map at most %s (worst-case ε %s), and %s.",
			who, human.Odds(sum.WorstEps), human.Eps(sum.WorstEps), avg)
	}
	if p.BudgetExact {
		avg += ", at its largest with her records " + human.Split(p.BudgetSplit)
	} else {
		avg = fmt.Sprintf("on average at most as much (the ways %s records can fall among %s cells are too many to enumerate, so the average loss is stated by its bound, the worst case)",
			human.Thousands(p.Records), human.Thousands(p.Cells))
	}
	how := "however her records fall among the cells"
	if p.Worst > p.OneCell*(1+1e-12) {
		how = fmt.Sprintf("with her records %s; all in one cell, ε %s", human.Split(p.WorstSplit), human.Eps(p.OneCell))
	}
	return fmt.Sprintf("Whether %s is in the data changes the odds of any released map at most %s (worst-case ε %s, %s), and %s.",
		who, human.Odds(sum.WorstEps), human.Eps(sum.WorstEps), how, avg)
}

// Notes are the lines a released file begins with when its counts
// are not simply the data's plus noise: records dropped to bound each
// person's, released counts suppressed (privmap's readers skip them).
func Notes(c guarantee.Contribution, suppressed int, threshold float64) []string {
	var notes []string
	if c.Dropped > 0 {
		kept := fmt.Sprintf("%d records", c.Sensitivity)
		if c.Sensitivity == 1 {
			kept = "1 record"
		}
		notes = append(notes, fmt.Sprintf("records_dropped: %d (each person kept at most %s, a seeded draw, before the noise)", c.Dropped, kept))
	}
	if suppressed > 0 {
		notes = append(notes, fmt.Sprintf("suppressed: %d released counts of at most %g set to 0 (post-processing of the noisy counts, which costs no privacy)", suppressed, threshold))
	}
	return notes
}
