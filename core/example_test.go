package core_test

import (
	"context"
	"fmt"
	"log"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/privmap/privmap/core"
	"github.com/privmap/privmap/core/emd"
)

// A study names the alphabet and the mechanisms users may choose; each
// spec builds into a Mechanism.
func ExampleNewMechanism() {
	s, err := core.ReadStudy(strings.NewReader(`{
	  "alphabet": {"kind": "linear", "size": 5},
	  "mechanisms": [{"id": "g", "kind": "geometric", "epsilon": 1}]}`))
	if err != nil {
		log.Fatal(err)
	}
	m, err := core.NewMechanism(s.Mechanisms[0], s.Alphabet)
	if err != nil {
		log.Fatal(err)
	}
	c := m.(core.Channel) // the geometric mechanism has symbol outputs
	fmt.Printf("%d inputs; P(2 | 2) = %.4f, P(3 | 2) = %.4f\n", m.Inputs(), c.Prob(2, 2), c.Prob(3, 2))
	// Output:
	// 5 inputs; P(2 | 2) = 0.4621, P(3 | 2) = 0.1700
}

// An audit reads the guarantee off the channel: k-RR with ε = ln 3 on
// four symbols keeps its datum with probability 1/2, and reports each
// other symbol with probability 1/6: from 0 the expected distance is
// (1+2+3)/6 = 1, from 1 it is (1+1+2)/6, so the mean is 5/6.
func ExampleAuditMechanism() {
	a := core.Alphabet{Kind: core.KindLinear, Size: 4}
	m, err := core.NewMechanism(core.MechanismSpec{ID: "k", Kind: core.KindKRR, Epsilon: 1.0986122886681098}, a)
	if err != nil {
		log.Fatal(err)
	}
	au, err := core.AuditMechanism(context.Background(), m, a)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("ε-LDP %.4f, geo-ind %.4f per %s, expected loss %.4f %s\n", au.LDP, au.GeoInd, au.GeoUnit, au.QualityMean, au.GeoUnit)
	// Output:
	// ε-LDP 1.0986, geo-ind 1.0986 per step, expected loss 0.8333 step
}

// Simulation draws every user's datum from the truth and sanitises it
// with the user's mechanism; the reports are grouped by mechanism and
// report, all an estimator needs.
func ExampleSimulateGroups() {
	k1, _ := core.NewKRR(3, 1)
	k2, _ := core.NewKRR(3, 4)
	mechs := []core.Mechanism{k1, k2}
	counts := core.Assign([]float64{0.5, 0.5}, 1000) // 500 users each
	rng := rand.New(rand.NewPCG(1, 2))
	g, err := core.SimulateGroups(context.Background(), rng, mechs, counts, []float64{0.6, 0.3, 0.1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(g.N(), "users in", len(g.List), "groups; per mechanism", g.Users)
	// Output:
	// 1000 users in 6 groups; per mechanism [500 500]
}

// Reconstruct estimates the users' distribution from grouped reports —
// here GIBU, the maximum-likelihood estimate over both mechanisms — and
// Compare measures it against the truth.
func ExampleReconstruct() {
	k1, _ := core.NewKRR(3, 1)
	k2, _ := core.NewKRR(3, 4)
	mechs := []core.Mechanism{k1, k2}
	truth := []float64{0.6, 0.3, 0.1}
	rng := rand.New(rand.NewPCG(1, 2))
	g, err := core.SimulateGroups(context.Background(), rng, mechs, core.Assign([]float64{0.5, 0.5}, 100000), truth)
	if err != nil {
		log.Fatal(err)
	}
	est, err := core.Reconstruct(context.Background(), core.MethodGIBU, nil, mechs, g, core.EstimateOptions{})
	if err != nil {
		log.Fatal(err)
	}
	met, err := emd.Compare(context.Background(), truth, est.Theta, core.Alphabet{Kind: core.KindLinear, Size: 3})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("θ̂ = [%.2f %.2f %.2f], converged %v\n", est.Theta[0], est.Theta[1], est.Theta[2], est.Converged)
	fmt.Printf("EMD %.3f %s, TV %.3f\n", met.EMD, met.EMDUnit, met.TV)
	// Output:
	// θ̂ = [0.60 0.30 0.10], converged true
	// EMD 0.003 step, TV 0.001
}

// The registry of mechanism kinds says what each kind takes, in which
// units (on a grid, or on a line for the kinds that take only lines), and
// what its reports are; front ends list the kinds from it. (The nine
// kinds of the papers; a kind registered later follows them.)
func ExampleKinds() {
	grid := core.Alphabet{Kind: core.KindGrid, Cols: 24, Rows: 16, CellKm: 0.5}
	line := core.Alphabet{Kind: core.KindLinear, Size: 10}
	for _, k := range core.Kinds() {
		a := grid
		if k.Alphabets != nil && !slices.Contains(k.Alphabets, core.KindGrid) {
			a = line
		}
		fmt.Printf("%-16s %-10s sensitive %-5v bits %v\n", k.Name, k.LevelName(a), k.Sensitive, k.Caps&core.CapBits != 0)
	}
	// Output:
	// krr              ε          sensitive false bits false
	// rappor           ε          sensitive false bits true
	// oue              ε          sensitive false bits true
	// olh              ε          sensitive false bits false
	// blh              ε          sensitive false bits false
	// ss               ε          sensitive false bits true
	// hr               ε          sensitive false bits false
	// geometric        ε per step sensitive false bits false
	// planar-geometric ε per km   sensitive false bits false
	// shokri           Q (km)     sensitive false bits false
	// urr              ε          sensitive true  bits false
	// urappor          ε          sensitive true  bits true
	// pum              ε          sensitive true  bits false
	// identity                    sensitive false bits false
}

// A kind's record reads and sets its privacy parameter whatever it is:
// Shokri's Q, or ε.
func ExampleMechanismKind_Info() {
	shokri, _ := core.KindShokri.Info()
	var m core.MechanismSpec
	shokri.SetLevel(&m, 0.8)
	fmt.Println(m.QualityLoss, m.Epsilon, shokri.Level(m), shokri.Solved)
	// Output:
	// 0.8 0 0.8 true
}

// The registry of estimators: the window offers those that take the
// users of several mechanisms, under their titles. (The papers'
// thirteen; an estimator registered later follows them.)
func ExampleEstimators() {
	for _, e := range core.Estimators() {
		if e.Offered() {
			fmt.Printf("%-8s %-15s certified %v\n", e.Method, e.Title, e.Certified)
		}
	}
	// Output:
	// gibu     GIBU            certified true
	// cem      Corrected EM    certified false
	// ibu-m    [IBU]_M         certified true
	// ibu-r    [IBU]_R         certified true
	// inv-m    [INV]_M         certified false
	// inv-r    [INV]_R         certified false
	// rap-m    [RAP]_M         certified false
	// rap-r    [RAP]_R         certified false
	// oracle-m [Oracle]_M      certified false
	// oracle-r [Oracle]_R      certified false
	// own-r    [Own]_R         certified false
	// uldp     ULDP empirical  certified false
}

// Which estimators apply to a population is decided from its kinds'
// capabilities before any report is drawn.
func ExampleMethod_Info() {
	rap, _ := core.MethodRAPM.Info()
	fmt.Println(rap.Needs&core.CapRAPPOR != 0, rap.Refuses&core.CapPersonal != 0, rap.Cost == core.CostInversion)
	s := &core.Study{Alphabet: core.Alphabet{Kind: core.KindLinear, Size: 4},
		Mechanisms: []core.MechanismSpec{{ID: "k", Kind: core.KindKRR, Epsilon: 1}}}
	fmt.Println(s.Applicable(core.MethodRAPM))
	// Output:
	// true true true
	// core: rap needs RAPPOR users; mechanism "k" is krr
}
