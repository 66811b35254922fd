package experiment

import "github.com/privmap/privmap/core"

// The estimators the oracles experiment compares with GIBU.
var (
	ownR = Variant{Label: "[Own]_R", Method: core.MethodOwnR, Post: core.PostProj}
)

// oraclesExperiment is fw-oracles, registered after fw-attack (fw.go):
// FW's free-will setting on the check-ins' grid with the frequency
// oracles that deployed systems chose (core's preset "oracles": k-RR,
// OUE and OLH at ε 1 and 4, two planar geometric), GIBU against each
// kind's own estimator on its own users ([Own]_R: support counting with
// Norm-Sub for the oracles, FW's inversion for the planar mechanisms)
// and [IBU]_R. [IBU]_M and [INV]_R cannot take OUE's bit vectors nor
// OLH's hashed reports (core.Applicable says so), so they are not drawn.
func oraclesExperiment() *Experiment {
	return &Experiment{Name: "fw-oracles",
		Title: "FW's free will with the deployed oracles: [Own]_R (each kind's own estimator on its own users), [IBU]_R and GIBU, k-RR, OUE and OLH at ε 1 and 4 with 2 planar geometric, on the check-ins' grid",
		Claim: "Not a figure of FW: its thesis (GIBU, the MLE over every user, beats per-mechanism estimates, Table 1) put to the frequency oracles of Wang et al. 2017 mixed with geometric mechanisms.",
		Runs:  30, Users: fwUsers, Data: CheckinData,
		panels: func(d *Data, users []int) ([]Panel, error) {
			a, err := planarPanel("a", "oracles", d, users, []Variant{ownR, ibuR, gibu})
			return []Panel{a}, err
		}}
}
