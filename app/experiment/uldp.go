package experiment

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/privmap/privmap/app/human"
	"github.com/privmap/privmap/core"
)

// ULDP's comparison: each mechanism used by every user, estimated
// empirically (the mechanism's unbiased estimator, clipped and
// renormalised: ULDP §2.5) and by EM (privmap's GIBU), and the
// non-private empirical distribution as the floor.
const (
	popKRR = iota
	popRAPPOR
	popULDP // uRR, or PUM over uRR
	popULDPBits
	popNone
)

var (
	uldpKRREmp  = Variant{Label: "RR emp", Method: core.MethodINV, Post: core.PostNorm, Pop: popKRR}
	uldpKRREM   = Variant{Label: "RR EM", Method: core.MethodGIBU, Pop: popKRR}
	uldpRAPEmp  = Variant{Label: "RAPPOR emp", Method: core.MethodRAP, Post: core.PostNorm, Pop: popRAPPOR}
	uldpRAPEM   = Variant{Label: "RAPPOR EM", Method: core.MethodGIBU, Pop: popRAPPOR}
	uldpNone    = Variant{Label: "non-private", Estimate: obfDat, Pop: popNone, Reference: true}
	uldpTVUsers = []int{10000}
)

// uldpShares are the shares of sensitive symbols |X_S|/|X| of uldp-tv.
var uldpShares = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1}

// uldpOrderSeed seeds the one random order of the cells from which
// uldp-tv takes its sensitive sets, so that they are nested: the first
// ⌈share·K⌉ cells of the order.
const uldpOrderSeed = 0x756c6470 // "uldp"

func init() {
	register(
		&Experiment{Name: "uldp-tv",
			Title: "ULDP §6: total variation of uRR and uRAP against k-RR and RAPPOR as the share of sensitive cells varies, every user on one mechanism, (a) ε = 0.1, (b) ε = 1, (c) ε = ln K",
			Claim: "ULDP abstract and §4.3: uRR and uRAP give much higher utility (lower TV) than RR and RAPPOR when most data are non-sensitive, and in the low privacy regime (ε = ln K) almost the utility of no privacy; with every cell sensitive uRR is k-RR.",
			Runs:  10, Users: uldpTVUsers, UsersRole: UsersOne, Data: CheckinData,
			panels: func(d *Data, users []int) ([]Panel, error) {
				var out []Panel
				for i, eps := range []float64{0.1, 1, math.Log(float64(d.Alphabet.Len()))} {
					p, err := uldpTVPanel(string(rune('a'+i)), d, eps, users[0])
					if err != nil {
						return nil, err
					}
					out = append(out, p)
				}
				return out, nil
			}},
		&Experiment{Name: "uldp-pum",
			Title: "ULDP §5–6: PUM with each user's home cell as personal sensitive data (uRR and uRAP bases) against k-RR and RAPPOR on every cell, TV against ε, the users' real data",
			Claim: "ULDP abstract and §5: the personalized mechanism keeps each user's own sensitive data (her home) secret, and what is sensitive to whom, with much higher utility than LDP mechanisms that must protect every cell.",
			Runs:  100, UsersRole: UsersFixed, Data: CheckinData,
			panels: func(d *Data, _ []int) ([]Panel, error) {
				p, err := uldpPUMPanel("a", d)
				return []Panel{p}, err
			}},
	)
}

// uldpTVPanel is one privacy level of uldp-tv on d's cells (taken as
// categories: ULDP's mechanisms know no distance): n users drawn from the
// truth, each population used by all of them.
func uldpTVPanel(name string, d *Data, eps float64, n int) (Panel, error) {
	a := d.Alphabet
	k := a.Len()
	p := Panel{Name: name, Title: fmt.Sprintf("ε = %.3g, %s users", eps, human.Thousands(n)),
		Alphabet: a, Truth: d.Truth, XLabel: "share of sensitive cells |X_S|/|X|", LogX: true, LogY: true,
		Metrics: []Metric{TV},
		Variants: []Variant{uldpKRREmp, uldpKRREM, uldpRAPEmp, uldpRAPEM,
			{Label: "uRR emp", Method: core.MethodULDP, Pop: popULDP}, {Label: "uRR EM", Method: core.MethodGIBU, Pop: popULDP},
			{Label: "uRAP emp", Method: core.MethodULDP, Pop: popULDPBits}, {Label: "uRAP EM", Method: core.MethodGIBU, Pop: popULDPBits},
			uldpNone}}
	one := func(spec core.MechanismSpec) Population {
		spec.Epsilon = eps
		return Population{Study: &core.Study{Alphabet: a, Mechanisms: []core.MechanismSpec{spec}}, Users: []int{n}}
	}
	krr, rappor := one(core.MechanismSpec{ID: "krr", Kind: core.KindKRR}), one(core.MechanismSpec{ID: "rappor", Kind: core.KindRAPPOR})
	none := Population{Study: &core.Study{Alphabet: a, Mechanisms: []core.MechanismSpec{{ID: "none", Kind: core.KindIdentity}}}, Users: []int{n}}
	order := rand.New(rand.NewPCG(uldpOrderSeed, uint64(k))).Perm(k)
	for _, share := range uldpShares {
		sens := slices.Sorted(slices.Values(order[:int(math.Ceil(share*float64(k)))]))
		p.Settings = append(p.Settings, Setting{Name: "share=" + strconv.FormatFloat(share, 'g', -1, 64), X: share, Pops: []Population{
			krr, rappor,
			one(core.MechanismSpec{ID: "urr", Kind: core.KindURR, Sensitive: sens}),
			one(core.MechanismSpec{ID: "urap", Kind: core.KindURAP, Sensitive: sens}),
			none}})
	}
	return p, nil
}

// uldpPUMLevels are the privacy levels of uldp-pum (ln K is added).
var uldpPUMLevels = []float64{0.1, 0.5, 1, 2, 4}

// uldpPUMPanel compares PUM, whose users map their own home cell to the
// tag "home" before a uRR or uRAP on the cells plus the tag, with k-RR and
// RAPPOR, which must protect every cell as anyone's home may be anywhere.
// Every population sanitises the users' real data. The collector returns
// the tag's mass to the cells by a background distribution: the users'
// homes' (as if known from a census of residences: privmap's default for
// a study with personal cells), or the uniform one (knowing nothing).
func uldpPUMPanel(name string, d *Data) (Panel, error) {
	a := d.Alphabet
	k := a.Len()
	if len(d.Homes) != len(d.Symbols) {
		return Panel{}, fmt.Errorf("uldp-pum needs every datum's home cell")
	}
	n := len(d.Symbols)
	uniformHome := core.ULDPOptions{Background: map[string][]float64{"home": slices.Repeat([]float64{1 / float64(k)}, k)}}
	p := Panel{Name: name, Title: fmt.Sprintf("%s users' real data and homes", human.Thousands(n)),
		Alphabet: a, Truth: d.Truth, XLabel: "ε", LogX: true, LogY: true, Metrics: []Metric{TV},
		Variants: []Variant{{Label: "PUM (uRR), homes known", Method: core.MethodULDP, Pop: popULDP},
			{Label: "PUM (uRAP), homes known", Method: core.MethodULDP, Pop: popULDPBits},
			{Label: "PUM (uRR), uniform", Method: core.MethodULDP, Pop: popULDP, ULDP: uniformHome},
			{Label: "PUM (uRAP), uniform", Method: core.MethodULDP, Pop: popULDPBits, ULDP: uniformHome},
			uldpKRREmp, uldpKRREM, uldpRAPEmp, uldpRAPEM}}
	personal := map[string][]int{"home": d.Homes}
	one := func(spec core.MechanismSpec) Population {
		return Population{Study: &core.Study{Alphabet: a, Mechanisms: []core.MechanismSpec{spec}, Data: d.Symbols, Personal: personal}, Users: []int{n}}
	}
	for _, eps := range append(slices.Clone(uldpPUMLevels), math.Log(float64(k))) {
		pops := make([]Population, popULDPBits+1)
		pops[popKRR] = one(core.MechanismSpec{ID: "krr", Kind: core.KindKRR, Epsilon: eps})
		pops[popRAPPOR] = one(core.MechanismSpec{ID: "rappor", Kind: core.KindRAPPOR, Epsilon: eps})
		pops[popULDP] = one(core.MechanismSpec{ID: "pum-urr", Kind: core.KindPUM, Epsilon: eps, Tags: []string{"home"}, Base: core.KindURR})
		pops[popULDPBits] = one(core.MechanismSpec{ID: "pum-urap", Kind: core.KindPUM, Epsilon: eps, Tags: []string{"home"}, Base: core.KindURAP})
		p.Settings = append(p.Settings, Setting{Name: "eps=" + strconv.FormatFloat(eps, 'g', 6, 64), X: eps, Pops: pops})
	}
	return p, nil
}
