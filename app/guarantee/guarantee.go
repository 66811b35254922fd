package guarantee

import (
	"fmt"
	"math"
	"strings"

	"github.com/privmap/privmap/app/human"
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
		near = fmt.Sprintf("the odds between two places within 1 %s change at most %s", au.GeoUnit, human.Odds(au.GeoIndUpper))
	}
	var s string
	switch {
	case math.IsInf(au.LDP, 1) && near == "":
		s = fmt.Sprintf("Some reports tell %s apart for certain.", what)
	case math.IsInf(au.LDP, 1):
		s = fmt.Sprintf("Seeing a report, %s, but some reports tell %s apart for certain.", near, what)
	case near == "":
		s = fmt.Sprintf("Seeing a report, the odds between %s change at most %s.", what, human.Odds(au.LDP))
	default:
		s = fmt.Sprintf("Seeing a report, %s, and between %s at most %s.", near, what, human.Odds(au.LDP))
	}
	if au.Protected {
		s += " A non-sensitive value may be reported as it is."
	}
	return s
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
		return fmt.Sprintf("All %s reports of one person together: some of them tell %s apart for certain.", human.Thousands(k), what)
	}
	sum := fmt.Sprintf("(ε = %s × %s = %s, sequential composition)", human.Thousands(k), levelText(au.LDP), levelText(kf*au.LDP))
	if NearIsTighter(au) {
		return fmt.Sprintf("All %s reports of one person together: the odds between two places within 1 %s change at most %s, between %s %s %s.",
			human.Thousands(k), au.GeoUnit, human.Odds(kf*au.GeoIndUpper), what, human.Odds(kf*au.LDP), sum)
	}
	return fmt.Sprintf("All %s reports of one person together: the odds between %s change at most %s %s.", human.Thousands(k), what, human.Odds(kf*au.LDP), sum)
}

// levelText writes a privacy level to three decimals, thousands
// separated.
func levelText(eps float64) string {
	if eps >= 1000 {
		return human.Thousands(int(math.Round(eps)))
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
// map (package core/emd's doc) of people: MetricsReadingOf.
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
		m.TV, human.Percent(m.TV), unit, "cell or category"))
	if !math.IsNaN(m.EMD) {
		parts = append(parts, fmt.Sprintf("EMD %.3g %s: moving the estimate onto the truth carries each %s %.3g %s on average.", m.EMD, m.EMDUnit, one, m.EMD, m.EMDUnit))
	}
	parts = append(parts, fmt.Sprintf("JSD %.3g nats: 0 for the same map, ln 2 ≈ 0.693 for maps with nothing in common.", m.JSD),
		fmt.Sprintf("Squared error %.3g: the squared differences of the cells' probabilities, summed.", m.MSE))
	return strings.Join(parts, " ")
}
