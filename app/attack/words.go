package attack

import (
	"fmt"
	"math"
	"strings"

	"github.com/privmap/privmap/app/guarantee"
	"github.com/privmap/privmap/app/human"
	"github.com/privmap/privmap/core"
)

// Knows says what the adversary knows before any report, for a
// sentence: "who knows the data's map".
func (p Prior) Knows() string {
	if p.Name == Uniform(1).Name {
		return "who knows nothing of the map"
	}
	return "who knows " + p.Name
}

// target names what the attacker must name on alphabet a: "the right
// 0.5 km cell", "the right value", "the right category".
func target(a core.Alphabet) string {
	switch a.Kind {
	case core.KindGrid:
		return fmt.Sprintf("the right %s km cell", trim(a.CellKm))
	case core.KindLinear:
		return "the right value"
	}
	return "the right category"
}

// trim writes v with at most three significant digits.
func trim(v float64) string { return fmt.Sprintf("%.3g", v) }

// distance writes a distance with its unit: "1.8 km", "2.3 steps".
func distance(v float64, unit string) string {
	if unit == "step" || unit == "steps" {
		unit = "steps"
		if v == 1 {
			unit = "step"
		}
	}
	return fmt.Sprintf("%.2g %s", v, unit)
}

// Sentence says in plain words what an adversary with prior learns from
// one report of m, on study s: "Seeing one report, an attacker who
// knows the data's map names the right 0.5 km cell for 4.1% of people
// (1.2% without the report) and is 1.8 km off on average (6.3 km
// without it)."
func Sentence(s *core.Study, m Mechanism, prior Prior) string {
	if m.NotMeasured != "" {
		return fmt.Sprintf("What one report of %s tells an attacker is not measured: %s.", m.Spec.ID, m.NotMeasured)
	}
	out := fmt.Sprintf("Seeing one report, an attacker %s names %s for %s of %s (%s without the report)",
		prior.Knows(), target(s.Alphabet), human.Percent(m.Success), guarantee.MapUnit(s), human.Percent(m.Prior))
	if m.Distance {
		out += fmt.Sprintf(" and is %s off on average (%s without it)", distance(m.ExpectedError, m.Unit), distance(m.PriorError, m.Unit))
	}
	if m.Over != "" {
		out += fmt.Sprintf("; computed over %s, which the report's seeded hash stands in for", m.Over)
	}
	return out + "."
}

// PeopleSentence says in plain words what the home attack found for
// the people of g: "Seeing all the reports of each person, an attacker
// finds the home cell of 63% of the people who sent more than 10,
// within 1 km for 81%."
func PeopleSentence(a core.Alphabet, g Group) string {
	if g.All.People == 0 {
		return "No person was attacked."
	}
	home := "home cell"
	if a.Kind != core.KindGrid {
		home = "most frequent value"
	}
	within := func(h Homes) string {
		if !h.Distance || math.IsNaN(h.Within1) {
			return ""
		}
		unit := "1 km"
		if a.Kind == core.KindLinear {
			unit = "1 step"
		}
		return fmt.Sprintf(", within %s for %s", unit, human.Percent(h.Within1))
	}
	if g.All.People == g.Bins[0].People {
		return fmt.Sprintf("Seeing each person's one report, an attacker finds the %s of %s of the people%s.",
			home, human.Percent(g.All.Exact), within(g.All))
	}
	out := fmt.Sprintf("Seeing all the reports of each person, an attacker finds the %s of %s of the people%s",
		home, human.Percent(g.All.Exact), within(g.All))
	if many := over10(g); many.People > 0 {
		out += fmt.Sprintf("; of the %s who sent more than 10, %s%s",
			human.Plural(many.People, "person", "people"), human.Percent(many.Exact), within(many))
	}
	return out + "."
}

// over10 joins the bins of more than 10 reports: their people, and
// their shares weighted by them.
func over10(g Group) Homes {
	var h Homes
	var exact, within float64
	for i, b := range Bins {
		hb := g.Bins[i]
		if b.Lo <= 10 || hb.People == 0 {
			continue
		}
		h.People += hb.People
		h.Distance = hb.Distance
		exact += hb.Exact * float64(hb.People)
		within += hb.Within1 * float64(hb.People)
	}
	if h.People > 0 {
		h.Exact, h.Within1 = exact/float64(h.People), within/float64(h.People)
	}
	return h
}

// SweepSentence says in plain words what a sweep shows: "For krr alone
// from ε 0.5 to 8, an attacker's success from one report rises from
// 0.3% to 41% (0.2% without a report) while the estimate's median TV
// falls from 0.61 to 0.05."
func SweepSentence(sw *Sweep) string {
	first, last := sw.Points[0], sw.Points[len(sw.Points)-1]
	unit := ""
	if sw.Unit != "" {
		unit = " " + sw.Unit
	}
	out := fmt.Sprintf("For %s alone from ε %.3g to %.3g, an attacker's success from one report goes from %s to %s (%s without a report) while the estimate's median %s goes from %.3g%s to %.3g%s",
		sw.Kind, first.Eps, last.Eps, human.Percent(first.Success), human.Percent(last.Success), human.Percent(first.Prior),
		strings.ToUpper(string(sw.Metric)), first.Error, unit, last.Error, unit)
	for _, p := range sw.Points {
		if p.Eps == sw.Current {
			out += fmt.Sprintf("; at the ε of the population's first %s mechanism, %.3g: %s and %.3g%s", sw.Kind, p.Eps, human.Percent(p.Success), p.Error, unit)
		}
	}
	return out + "."
}
