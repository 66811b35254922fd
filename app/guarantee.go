package app

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/privmap/privmap/core"
	"github.com/privmap/privmap/core/emd"
)

// PlainReading says in words what an adversary who sees one report can
// tell, for a privacy officer: how much the odds between two true values
// can change (e^ε), near (within one km or step) and anywhere.
func PlainReading(au core.Audit) string {
	what := "any two values"
	if au.Protected {
		what = "any two sensitive values"
	}
	near := "" // said only when it is tighter than the bound anywhere
	if NearIsTighter(au) {
		near = fmt.Sprintf("the odds between two places within 1 %s change at most %s", au.GeoUnit, Odds(au.GeoIndUpper))
	}
	var s string
	switch {
	case math.IsInf(au.LDP, 1) && near == "":
		s = fmt.Sprintf("Some reports tell %s apart for certain.", what)
	case math.IsInf(au.LDP, 1):
		s = fmt.Sprintf("Seeing a report, %s, but some reports tell %s apart for certain.", near, what)
	case near == "":
		s = fmt.Sprintf("Seeing a report, the odds between %s change at most %s.", what, Odds(au.LDP))
	default:
		s = fmt.Sprintf("Seeing a report, %s, and between %s at most %s.", near, what, Odds(au.LDP))
	}
	if au.Protected {
		s += " A non-sensitive value may be reported as it is."
	}
	return s
}

// Odds writes the odds factor e^eps for people: ×1.88, ×4,625,
// ×3.71 million, ×2.4 billion, and past a trillion ×10^16 (the power of
// ten below it).
func Odds(eps float64) string {
	f := math.Exp(eps)
	switch {
	case f < 10:
		return fmt.Sprintf("×%.3g", f)
	case f < 1e6:
		return "×" + Thousands(int(math.Round(f)))
	case f < 1e9:
		return fmt.Sprintf("×%.3g million", f/1e6)
	case f < 1e12:
		return fmt.Sprintf("×%.3g billion", f/1e9)
	}
	return fmt.Sprintf("×10^%d", int(eps/math.Ln10))
}

// NearIsTighter reports whether an audit's geo-indistinguishability
// bounds the odds between two near places (within one km or step) more
// tightly than its ε-LDP bounds them anywhere: only then is the near
// bound worth saying.
func NearIsTighter(au core.Audit) bool {
	return !math.IsNaN(au.GeoInd) && !math.IsInf(au.GeoIndUpper, 1) && au.GeoIndUpper < au.LDP
}

// PersonReading says what an adversary who sees every report of one
// person can tell when she sends up to k: by basic sequential
// composition the ε of her reports add up (ε-LDP k·ε, and
// ε-geo-indistinguishability k·ε per km or step), so the odds between
// any two of her values change at most e^{kε}. It returns "" for k ≤ 1,
// where PlainReading says it all.
func PersonReading(au core.Audit, k int) string {
	if k <= 1 {
		return ""
	}
	kf := float64(k)
	what := "any two of her values"
	if au.Protected {
		what = "any two of her sensitive values"
	}
	if math.IsInf(au.LDP, 1) {
		return fmt.Sprintf("All %s reports of one person together: some of them tell %s apart for certain.", Thousands(k), what)
	}
	sum := fmt.Sprintf("(ε = %s × %s = %s, sequential composition)", Thousands(k), levelText(au.LDP), levelText(kf*au.LDP))
	if NearIsTighter(au) {
		return fmt.Sprintf("All %s reports of one person together: the odds between two places within 1 %s change at most %s, between %s %s %s.",
			Thousands(k), au.GeoUnit, Odds(kf*au.GeoIndUpper), what, Odds(kf*au.LDP), sum)
	}
	return fmt.Sprintf("All %s reports of one person together: the odds between %s change at most %s %s.", Thousands(k), what, Odds(kf*au.LDP), sum)
}

// levelText writes a privacy level to three decimals, thousands
// separated.
func levelText(eps float64) string {
	if eps >= 1000 {
		return Thousands(int(math.Round(eps)))
	}
	return fmt.Sprintf("%.3f", eps)
}

// MapUnit names what a study's map counts, for the words of its errors:
// "people" when each holds one datum (a census record, -per-user
// first), "check-ins" on a grid of several a person, else "records".
func MapUnit(s *core.Study) string {
	switch {
	case s.Unit() == "record":
		return "records"
	case s.People == nil || s.MaxPerPerson == 1:
		return "people"
	case s.Alphabet.Kind == core.KindGrid:
		return "check-ins"
	}
	return "records"
}

// MetricsReading says in words what an estimate's errors mean for the
// map (docs/ARCHITECTURE.md §5) of people: MetricsReadingOf.
func MetricsReading(m emd.Metrics) string { return MetricsReadingOf(m, "people") }

// MetricsReadingOf says in words what an estimate's errors mean for a
// map of unit (MapUnit: people, check-ins, records): TV as the share of
// them that would have to move, EMD as how far, JSD between its bounds,
// the squared error as what it sums.
func MetricsReadingOf(m emd.Metrics, unit string) string {
	one := map[string]string{"people": "person", "check-ins": "check-in", "records": "record"}[unit]
	if one == "" {
		one, unit = "datum", "data"
	}
	var parts []string
	parts = append(parts, fmt.Sprintf("TV %.3g: %s of the %s would have to move to another %s to turn the estimate into the truth.",
		m.TV, percent(m.TV), unit, "cell or category"))
	if !math.IsNaN(m.EMD) {
		parts = append(parts, fmt.Sprintf("EMD %.3g %s: moving the estimate onto the truth carries each %s %.3g %s on average.", m.EMD, m.EMDUnit, one, m.EMD, m.EMDUnit))
	}
	parts = append(parts, fmt.Sprintf("JSD %.3g nats: 0 for the same map, ln 2 ≈ 0.693 for maps with nothing in common.", m.JSD),
		fmt.Sprintf("Squared error %.3g: the squared differences of the cells' probabilities, summed.", m.MSE))
	return strings.Join(parts, " ")
}

// percent writes a share as a percentage to three figures.
func percent(v float64) string { return fmt.Sprintf("%.3g%%", 100*v) }

// ReleaseReading says in words what a central release's noise
// guarantees whom c protects — one person, or one record when the data
// do not say who contributed which: the worst case, and PM's general
// privacy budget as the average loss. With sum.Person (PersonSummary)
// both are over every way her records fall among the cells, and the
// reading says which way is worst.
func ReleaseReading(sum ReleaseSummary, c Contribution) string {
	who := "one person"
	switch {
	case !c.Known:
		who = "one record"
	case c.Sensitivity > 1:
		who = fmt.Sprintf("one person (up to %s records)", Thousands(c.Sensitivity))
	}
	p := sum.Person
	// e^{E|L|} is the geometric mean of the odds factor e^{|L|}; the
	// plain mean is E e^{|L|} = e^{ε_PM}, PM Table I's reading.
	avg := fmt.Sprintf("on average over the noise ε_g %s (PM's general privacy budget: the odds change %s as a geometric mean, %s as a plain mean)",
		EpsText(sum.Budget), Odds(sum.Budget), Odds(sum.BudgetPM))
	if p == nil || p.Records == 1 {
		return fmt.Sprintf("Whether %s is in the data changes the odds of any released map at most %s (worst-case ε %s), and %s.",
			who, Odds(sum.WorstEps), EpsText(sum.WorstEps), avg)
	}
	if p.BudgetExact {
		avg += ", at its largest with her records " + SplitText(p.BudgetSplit)
	} else {
		avg = fmt.Sprintf("on average at most as much (the ways %s records can fall among %s cells are too many to enumerate, so the average loss is stated by its bound, the worst case)",
			Thousands(p.Records), Thousands(p.Cells))
	}
	how := "however her records fall among the cells"
	if p.Worst > p.OneCell*(1+1e-12) {
		how = fmt.Sprintf("with her records %s; all in one cell, ε %s", SplitText(p.WorstSplit), EpsText(p.OneCell))
	}
	return fmt.Sprintf("Whether %s is in the data changes the odds of any released map at most %s (worst-case ε %s, %s), and %s.",
		who, Odds(sum.WorstEps), EpsText(sum.WorstEps), how, avg)
}

// SplitText says how a person's records fall among the cells: "all 3 in
// one cell", "one in each of 3 cells", "3, 2 and 2 in 3 cells".
func SplitText(split []int) string {
	switch {
	case len(split) == 0:
		return "no records"
	case len(split) == 1:
		return fmt.Sprintf("all %s in one cell", Thousands(split[0]))
	case len(split) > 1 && split[0] == 1:
		return fmt.Sprintf("one in each of %s cells", Thousands(len(split)))
	}
	parts := make([]string, len(split))
	for i, d := range split {
		parts[i] = Thousands(d)
	}
	if len(parts) > 6 {
		parts = append(parts[:3], "…", parts[len(parts)-1])
	}
	return fmt.Sprintf("%s and %s in %s cells", strings.Join(parts[:len(parts)-1], ", "), parts[len(parts)-1], Thousands(len(split)))
}

// EpsText writes a privacy level for people to read: at most six
// significant figures, without the binary noise of floating point
// (0.9999999999999999 is 1).
func EpsText(eps float64) string {
	return strconv.FormatFloat(eps, 'g', 6, 64)
}
