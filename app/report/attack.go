package report

import (
	"context"
	"fmt"
	"math"

	"github.com/privmap/privmap/app/attack"
	"github.com/privmap/privmap/app/guarantee"
	"github.com/privmap/privmap/app/pipeline"
	"github.com/privmap/privmap/core"
)

// Attack is the report's "What an attacker learns": for every
// mechanism, what one report tells an attacker who knows the prior,
// exactly, and, when the data say who sent what, the home attack on
// every person with all her reports, simulated.
type Attack struct {
	Prior      string            `json:"prior"` // what the attacker knows
	Mechanisms []AttackMechanism `json:"mechanisms"`
	People     *AttackPeople     `json:"people,omitempty"`
}

// AttackMechanism is one mechanism's exposure (attack.Mechanism).
type AttackMechanism struct {
	ID            string   `json:"id"`
	Level         string   `json:"level"`
	Success       *float64 `json:"bayes_success"`
	PriorSuccess  *float64 `json:"prior_success"`
	ExpectedError *float64 `json:"expected_error,omitempty"`
	PriorError    *float64 `json:"prior_error,omitempty"`
	Unit          string   `json:"unit,omitempty"`
	Within1km     *float64 `json:"within_1km,omitempty"`
	HomeExact     *float64 `json:"home_exact,omitempty"`
	Sentence      string   `json:"sentence"`
}

// AttackPeople is the home attack on every person (attack.People).
type AttackPeople struct {
	Seed     uint64      `json:"seed"`
	HomeFrom string      `json:"home_from"`
	People   int         `json:"people"`
	Exact    *float64    `json:"home_exact"`
	Within1  *float64    `json:"home_within_1"`
	Median   *float64    `json:"home_median"`
	Bins     []AttackBin `json:"by_reports"`
	Left     int         `json:"not_attacked,omitempty"`
	Sentence string      `json:"sentence"`
}

// AttackBin is the home attack on the people of a number of reports.
type AttackBin struct {
	Reports string   `json:"reports"`
	People  int      `json:"people"`
	Exact   *float64 `json:"exact"`
	Within1 *float64 `json:"within_1"`
}

// AttackSeed seeds the reports of the report's home attack, as privmap
// attack's default -seed.
const AttackSeed = 1

// attackFacts measures the attack on s: the prior is the truth when
// given, else the study's data, else uniform.
func attackFacts(ctx context.Context, s *core.Study, truth []float64) (*Attack, error) {
	prior := attack.Prior{Name: "the data's map", Masses: truth}
	switch {
	case truth != nil:
	case len(s.Data) > 0:
		prior.Masses = guarantee.DataCounts(s)
	default:
		prior = attack.Uniform(s.Alphabet.Len())
	}
	mechs, err := pipeline.BuildMechanisms(ctx, s, nil)
	if err != nil {
		return nil, err
	}
	ms, err := attack.Expose(ctx, s, mechs, prior, nil)
	if err != nil {
		return nil, err
	}
	var people *attack.People
	if len(s.Data) > 0 && !s.PeopleUnknown {
		if people, err = attack.AttackPeople(ctx, s, mechs, prior, AttackSeed, nil); err != nil {
			return nil, err
		}
	}
	out := &Attack{Prior: prior.Name}
	for j, m := range ms {
		am := mechanismExposure(s, m, prior)
		if people != nil {
			am.HomeExact = ptr(people.Mechs[j].All.Exact)
		}
		out.Mechanisms = append(out.Mechanisms, am)
	}
	if people != nil {
		out.People = peopleFacts(s, people)
	}
	return out, nil
}

// mechanismExposure states one mechanism's exposure.
func mechanismExposure(s *core.Study, m attack.Mechanism, prior attack.Prior) AttackMechanism {
	am := AttackMechanism{ID: m.Spec.ID, Level: m.Level, Sentence: attack.Sentence(s, m, prior)}
	if m.NotMeasured == "" {
		am.Success, am.PriorSuccess = ptr(m.Success), ptr(m.Prior)
	}
	if m.Distance {
		am.ExpectedError, am.PriorError, am.Unit = ptr(m.ExpectedError), ptr(m.PriorError), m.Unit
		for i, r := range m.Radii {
			if r == 1 {
				am.Within1km = ptr(m.Within[i])
			}
		}
	}
	return am
}

// peopleFacts states the home attack on every person.
func peopleFacts(s *core.Study, people *attack.People) *AttackPeople {
	g := people.All
	out := &AttackPeople{Seed: people.Seed, HomeFrom: people.HomeFrom, People: g.All.People, Exact: ptr(g.All.Exact),
		Within1: ptr(g.All.Within1), Median: ptr(g.All.Median), Left: people.Left, Sentence: attack.PeopleSentence(s.Alphabet, g)}
	for i, b := range attack.Bins {
		h := g.Bins[i]
		out.Bins = append(out.Bins, AttackBin{Reports: b.Label, People: h.People, Exact: ptr(h.Exact), Within1: ptr(h.Within1)})
	}
	return out
}

// ptr returns a pointer to v, nil for NaN (JSON's null).
func ptr(v float64) *float64 {
	if math.IsNaN(v) {
		return nil
	}
	return &v
}

// attackModel says the adversary in words, for the PDF.
const attackModel = "The attacker knows every mechanism and a map of where people are (%s). " +
	"From one report, she names the cell the report most likely came from; the figures below are exact, summed over every report the mechanism can send. " +
	"From all the reports of one person, she estimates that person's own map and names its largest cell, her home; " +
	"these figures come from reports simulated on the data (seed %d), one draw of what a collection would give."

func (d *pdfDoc) attack(x *Attack) {
	d.heading("What an attacker learns")
	d.para(fmt.Sprintf(attackModel, x.Prior, AttackSeed))
	for _, m := range x.Mechanisms {
		d.subheading(fmt.Sprintf("%s — %s", m.ID, m.Level))
		d.para(m.Sentence)
	}
	if p := x.People; p != nil {
		d.subheading("Every person, with all her reports")
		d.para(p.Sentence)
		d.kv("Home", p.HomeFrom)
		for _, b := range p.Bins {
			if b.People == 0 || b.Exact == nil {
				continue
			}
			v := fmt.Sprintf("%d people: home named for %.3g%%", b.People, 100**b.Exact)
			if b.Within1 != nil {
				v += fmt.Sprintf(", within 1 km for %.3g%%", 100**b.Within1)
			}
			d.kv(b.Reports+" reports", v)
		}
	}
}
