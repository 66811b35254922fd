package experiment

import (
	"context"
	"fmt"

	"github.com/privmap/privmap/core"
)

// attackExperiment is fw-attack, registered after FW's figures (fw.go).
func attackExperiment() *Experiment {
	return &Experiment{Name: "fw-attack",
		Title: "FW Tables 5–6 against an attacker: privacy as what one report tells an attacker who knows the map (x) against GIBU's EMD (y), (a) 10 k-RR and (b) 10 planar geometric levels on the check-ins' grid, each used by every user",
		Claim: "Not a figure of FW: its k-RR and planar geometric levels (Tables 5 and 6) placed by the attacker's exact success from one report; lower and to the left is better.",
		Runs:  10, Users: []int{10000}, UsersRole: UsersOne, Data: CheckinData,
		panels: func(d *Data, users []int) ([]Panel, error) {
			a, err := attackPanel("a", "fw-t5", "k-RR (Table 5)", d, users[0])
			if err != nil {
				return nil, err
			}
			b, err := attackPanel("b", "fw-t6", "planar geometric (Table 6)", d, users[0])
			return []Panel{a, b}, err
		}}
}

// attackPanel is one kind's levels of a preset on d's grid, each a
// setting used by all n users and placed on the x-axis by the
// Bayes-optimal attacker's success from one report (core.Expose, with
// d's map as her prior).
func attackPanel(name, preset, title string, d *Data, n int) (Panel, error) {
	specs, err := core.PresetMechanisms(preset, d.Alphabet)
	if err != nil {
		return Panel{}, err
	}
	p := Panel{Name: name, Setting: preset, Title: fmt.Sprintf("%s, %d×%d grid, %s", title, d.Alphabet.Cols, d.Alphabet.Rows, d.Source),
		Alphabet: d.Alphabet, Truth: d.Truth, XLabel: "an attacker's success from one report", ByName: true, MeasuredX: true,
		Metrics: []Metric{EMD}, Variants: []Variant{gibu}}
	for _, spec := range specs {
		spec.Share = nil
		m, err := core.NewMechanism(spec, d.Alphabet)
		if err != nil {
			return Panel{}, err
		}
		e, err := core.Expose(context.Background(), m, d.Alphabet, d.Truth, nil, nil)
		if err != nil {
			return Panel{}, err
		}
		s := &core.Study{Alphabet: d.Alphabet, Mechanisms: []core.MechanismSpec{spec}}
		name := fmt.Sprintf("%s: attacker %.3g%%", spec.ID, 100*e.Success)
		p.Settings = append(p.Settings, Setting{Name: name, X: e.Success, Pops: []Population{{Study: s, Users: []int{n}}}})
	}
	return p, nil
}
