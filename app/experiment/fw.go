package experiment

import (
	"fmt"
	"math"

	"github.com/privmap/privmap/core"
)

// The estimators as FW's figures compare them.
var (
	gibu  = Variant{Label: "GIBU", Method: core.MethodGIBU, Post: core.PostProj}
	ibuM  = Variant{Label: "[IBU]_M", Method: core.MethodIBUM, Post: core.PostProj}
	ibuR  = Variant{Label: "[IBU]_R", Method: core.MethodIBUR, Post: core.PostProj}
	invMP = Variant{Label: "[INV]_M projection", Method: core.MethodINVM, Post: core.PostProj}
	invMN = Variant{Label: "[INV]_M normalisation", Method: core.MethodINVM, Post: core.PostNorm}
	invRP = Variant{Label: "[INV]_R projection", Method: core.MethodINVR, Post: core.PostProj}
	invRN = Variant{Label: "[INV]_R normalisation", Method: core.MethodINVR, Post: core.PostNorm}
	rapMP = Variant{Label: "[RAP]_M projection", Method: core.MethodRAPM, Post: core.PostProj}
	rapMN = Variant{Label: "[RAP]_M normalisation", Method: core.MethodRAPM, Post: core.PostNorm}
	rapRP = Variant{Label: "[RAP]_R projection", Method: core.MethodRAPR, Post: core.PostProj}
	rapRN = Variant{Label: "[RAP]_R normalisation", Method: core.MethodRAPR, Post: core.PostNorm}
	// FW §8 plots the EMD against 10³ … 10⁵ users.
	fwUsers = []int{1000, 3000, 10000, 30000, 100000}
)

func init() {
	rappor := func(name, title, claim string, vs ...Variant) *Experiment {
		return &Experiment{Name: name, Title: title, Claim: claim, Runs: 30, Users: fwUsers,
			panels: func(_ *Data, users []int) ([]Panel, error) {
				a, err := linearPanel("a", "fw-t4-high", "high privacy", 20, users, vs)
				if err != nil {
					return nil, err
				}
				b, err := linearPanel("b", "fw-t4-low", "low privacy", 20, users, vs)
				return []Panel{a, b}, err
			}}
	}
	linearOnly := func(name, title, claim, preset string, vs ...Variant) *Experiment {
		return &Experiment{Name: name, Title: title, Claim: claim, Runs: 30, Users: fwUsers,
			panels: func(_ *Data, users []int) ([]Panel, error) {
				a, err := linearPanel("a", preset, "linear alphabet {0…99}", 100, users, vs)
				return []Panel{a}, err
			}}
	}
	both := func(name, title, claim, preset string, vs ...Variant) *Experiment {
		return &Experiment{Name: name, Title: title, Claim: claim, Runs: 30, Users: fwUsers, Data: CheckinData,
			panels: func(d *Data, users []int) ([]Panel, error) {
				a, err := linearPanel("a", preset, "linear alphabet {0…99}", 100, users, vs)
				if err != nil {
					return nil, err
				}
				b, err := planarPanel("b", preset, d, users, vs)
				return []Panel{a, b}, err
			}}
	}
	register(
		rappor("fw-fig2", "FW Fig. 2: [RAP]_R (projection, normalisation) and GIBU, 10 RAPPOR on 20 symbols, (a) high and (b) low privacy (Table 4)",
			"FW Table 2: [RAP]_R is bad in both regimes; GIBU is excellent.", rapRP, rapRN, gibu),
		linearOnly("fw-fig3", "FW Fig. 3: [INV]_R, [IBU]_R and GIBU, 10 k-RR on {0…99} (Table 5)",
			"FW Table 1 and §7: [INV]_R and [IBU]_R are bad under k-RR, significantly worse than GIBU.", "fw-t5", invRP, invRN, ibuR, gibu),
		linearOnly("fw-fig4", "FW Fig. 4: [INV]_R, [IBU]_R and GIBU, 5 geometric and 5 k-RR on {0…99} (Table 7)",
			"FW Table 1 and §7: [INV]_R and [IBU]_R are bad under k-RR and geometric mechanisms, significantly worse than GIBU.", "fw-t7", invRP, invRN, ibuR, gibu),
		linearOnly("fw-fig5", "FW Fig. 5: [INV]_R, [IBU]_R and GIBU, 10 geometric on {0…99} (Table 6)",
			"FW Table 1 and §7: [INV]_R and [IBU]_R are bad under geometric mechanisms, significantly worse than GIBU.", "fw-t6", invRP, invRN, ibuR, gibu),
		linearOnly("fw-fig6", "FW Fig. 6: [IBU]_R and GIBU, 10 Shokri on {0…99} (Table 8)",
			"FW Table 1 and §7: [IBU]_R is bad under Shokri's mechanisms, significantly worse than GIBU.", "fw-t8", ibuR, gibu),
		both("fw-fig7", "FW Fig. 7: [INV]_M (projection, normalisation) and GIBU, 10 k-RR, (a) linear, (b) planar (Table 5)",
			"FW Table 1 and §8.1.1: [INV]_M is excellent under k-RR, projection significantly better than normalisation, and GIBU slightly better than [INV]_M with projection.", "fw-t5", invMP, invMN, gibu),
		both("fw-fig8", "FW Fig. 8: [INV]_M and GIBU, 10 geometric, (a) linear, (b) planar (Table 6)",
			"FW Table 1 and §8.1.2: [INV]_M is bad under geometric mechanisms; GIBU is significantly better.", "fw-t6", invMP, invMN, gibu),
		both("fw-fig9", "FW Fig. 9: [INV]_M and GIBU, 5 geometric and 5 k-RR, (a) linear, (b) planar (Table 7)",
			"FW Table 1 and §8.1.3: [INV]_M is bad under the mixture; GIBU is better.", "fw-t7", invMP, invMN, gibu),
		both("fw-fig10", "FW Fig. 10: [IBU]_M and GIBU, 10 k-RR, (a) linear, (b) planar (Table 5)",
			"FW Table 1 and §8.2.1: [IBU]_M is good under k-RR but worse than GIBU (and than [INV]_M, Fig. 7).", "fw-t5", ibuM, gibu),
		both("fw-fig11", "FW Fig. 11: [IBU]_M and GIBU, 10 geometric, (a) linear, (b) planar (Table 6)",
			"FW Table 1 and §8.2.2: [IBU]_M is bad under geometric mechanisms; GIBU is superior.", "fw-t6", ibuM, gibu),
		both("fw-fig12", "FW Fig. 12: [IBU]_M and GIBU, 5 geometric and 5 k-RR, (a) linear, (b) planar (Table 7)",
			"FW Table 1 and §8.2.3: [IBU]_M is bad under the mixture; GIBU is superior.", "fw-t7", ibuM, gibu),
		both("fw-fig13", "FW Fig. 13: [IBU]_M and GIBU, 10 Shokri, (a) linear, (b) planar (Table 8)",
			"FW Table 1 and §8.2.4: [IBU]_M is bad under Shokri's mechanisms, and may not converge to the real distribution however many users; GIBU is superior.", "fw-t8", ibuM, gibu),
		rappor("fw-fig14", "FW Fig. 14: [RAP]_M (projection, normalisation) and GIBU, 10 RAPPOR on 20 symbols, (a) high and (b) low privacy (Table 4)",
			"FW Table 2 and §8.3: [RAP]_M is excellent at high privacy, where it performs like GIBU, and good at low privacy, where GIBU is clearly better.",
			rapMP, rapMN, gibu),
		attackExperiment(),
		oraclesExperiment(),
	)
}

// linearPanel is a panel on the linear alphabet {0…k−1} with FW §8's
// binomial(0.5) data and the preset's mechanisms in equal shares.
func linearPanel(name, preset, title string, k int, users []int, vs []Variant) (Panel, error) {
	a := core.Alphabet{Kind: core.KindLinear, Size: k}
	return fwPanel(Panel{Name: name, Setting: preset, Title: title, Alphabet: a, Truth: Binomial(k), Variants: vs}, users)
}

// planarPanel is a panel on d's grid with the preset's mechanisms.
func planarPanel(name, preset string, d *Data, users []int, vs []Variant) (Panel, error) {
	a := d.Alphabet
	title := fmt.Sprintf("planar %d×%d grid, %s", a.Cols, a.Rows, d.Source)
	return fwPanel(Panel{Name: name, Setting: preset, Title: title, Alphabet: a, Truth: d.Truth, Variants: vs}, users)
}

// fwPanel completes an FW panel: the EMD against the number of users on
// a log axis, one setting per number of users, the preset's mechanisms
// built once for all of them.
func fwPanel(p Panel, users []int) (Panel, error) {
	ms, err := core.PresetMechanisms(p.Setting, p.Alphabet)
	if err != nil {
		return Panel{}, err
	}
	s := &core.Study{Alphabet: p.Alphabet, Mechanisms: ms}
	p.XLabel, p.LogX, p.Metrics = "users", true, []Metric{EMD}
	for _, n := range users {
		counts, err := assign(s, n)
		if err != nil {
			return Panel{}, err
		}
		p.Settings = append(p.Settings, Setting{Name: p.Setting, X: float64(n), Pops: []Population{{Study: s, Users: counts}}})
	}
	return p, nil
}

// Binomial returns the binomial(k−1, 0.5) distribution on {0…k−1}, FW
// §8's data on the linear alphabet: C(k−1, x) / 2^(k−1), computed in
// logarithms so that it holds for any k.
func Binomial(k int) []float64 {
	p := make([]float64, k)
	n := float64(k - 1)
	ln2 := math.Ln2
	for x := range p {
		lc, _ := math.Lgamma(n + 1)
		la, _ := math.Lgamma(float64(x) + 1)
		lb, _ := math.Lgamma(n - float64(x) + 1)
		p[x] = math.Exp(lc - la - lb - n*ln2)
	}
	return p
}
