package experiment

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/floats"

	"github.com/privmap/privmap/core"
)

// The estimators of CEM §5.1's figures: Uniform, ObfDat, MatInv with the
// normalised and the projected decoder (CEM eq. 13), EM (eq. 14: privmap's
// GIBU, the same maximum-likelihood estimate) and the Proposal (Algorithm
// 2, privmap's corrected EM).
var (
	cemUniform  = Variant{Label: "Uniform", Estimate: uniform}
	cemObfDat   = Variant{Label: "ObfDat", Estimate: obfDat}
	cemMatNorm  = Variant{Label: "MatInv_norm", Estimate: matInv(core.PostNorm)}
	cemMatProj  = Variant{Label: "MatInv_proj", Estimate: matInv(core.PostProj)}
	cemEM       = Variant{Label: "EM", Method: core.MethodEM}
	cemProposal = Variant{Label: "Proposal", Method: core.MethodCEM}
	cemAll      = []Variant{cemUniform, cemObfDat, cemMatNorm, cemMatProj, cemEM, cemProposal}
)

// CEM §5.1's numbers of users: N₁, N₂ and N₃ users choose k-RR with
// ε = 0.1, 2 and ln K, and N₄ no obfuscation (ε = ∞).
var (
	cemN4     = []int{0, 10, 20, 30, 40, 50}
	cemFig6N  = []int{110, 220, 440, 660, 1320, 2200, 4400, 11000} // N₁:N₂:N₃:N₄ = 10:10:1:1
	cemFig8N2 = []int{100, 1000, 10000}
	cemFig8N3 = []int{0, 10, 30, 60, 100, 200, 500}
)

func init() {
	fig5or7 := func(name, title, claim string, n1 int) *Experiment {
		return &Experiment{Name: name, Title: title, Claim: claim, Runs: 100, UsersRole: UsersFixed, Data: CensusData,
			panels: func(d *Data, _ []int) ([]Panel, error) {
				p, s, err := cemPanel("a", d, fmt.Sprintf("(N₁, N₂, N₃) = (%d, 500, 50)", n1))
				if err != nil {
					return nil, err
				}
				p.XLabel = "N₄ (users with ε = ∞)"
				for _, n4 := range cemN4 {
					users := []int{n1, 500, 50, n4}
					p.Settings = append(p.Settings, Setting{Name: cemName(users), X: float64(n4), Pops: []Population{{Study: s, Users: users}}})
				}
				return []Panel{p}, nil
			}}
	}
	register(
		fig5or7("cem-fig5", "CEM Fig. 5: MSE and JSD of six estimators, k-RR with ε = 0.1, 2, ln K, ∞ for (N₁, N₂, N₃) = (500, 500, 50) and N₄ from 0 to 50, census data on CEM Table 2's attributes",
			"CEM §5.2: MatInv (norm, proj) are far worse than EM, MatInv_proj the worst; the Proposal outperforms EM, significantly when N₄ is small; Uniform or ObfDat can be best when N₄ is small.", 500),
		&Experiment{Name: "cem-fig6",
			Title: "CEM Fig. 6: MSE and JSD of six estimators against the number of users N, N₁:N₂:N₃:N₄ = 10:10:1:1 (k-RR with ε = 0.1, 2, ln K, ∞), census data on CEM Table 2's attributes",
			Claim: "CEM §5.2: with very few users Uniform or ObfDat has the smallest MSE; the Proposal's errors fall fast as N grows and it is the best from N = 440 on (US Census).",
			Runs:  100, Users: cemFig6N, UsersRole: UsersAxis, Data: CensusData,
			panels: func(d *Data, users []int) ([]Panel, error) {
				p, s, err := cemPanel("a", d, "N₁:N₂:N₃:N₄ = 10:10:1:1")
				if err != nil {
					return nil, err
				}
				p.XLabel, p.LogX = "users N", true
				for _, n := range users {
					counts, err := assign(s, n)
					if err != nil {
						return nil, err
					}
					p.Settings = append(p.Settings, Setting{Name: cemName(counts), X: float64(n), Pops: []Population{{Study: s, Users: counts}}})
				}
				return []Panel{p}, nil
			}},
		fig5or7("cem-fig7", "CEM Fig. 7: as Fig. 5 with N₁ = 20,000 users at ε = 0.1",
			"CEM §5.2: very similar to Fig. 5; the errors are only slightly smaller (or not) with 20,000 users at ε = 0.1, who rarely send their true value.", 20000),
		&Experiment{Name: "cem-fig8",
			Title: "CEM Fig. 8–9: box plots of the squared errors of EM and the Proposal, N₁ = N₄ = 0, N₂ users at ε = 2 and N₃ at ε = ln K, census data on CEM Table 2's attributes",
			Claim: "CEM §5.2: the Proposal significantly outperforms EM when N₃ is small (about 30 to 60 on US Census), the two runs' errors correlate closely (r near 1, paired p < 0.05); with N₂ and N₃ large they perform alike.",
			Runs:  100, UsersRole: UsersFixed, Data: CensusData,
			panels: func(d *Data, _ []int) ([]Panel, error) {
				var out []Panel
				for i, n2 := range cemFig8N2 {
					p, s, err := cemPanel(string(rune('a'+i)), d, fmt.Sprintf("N₂ = %d", n2))
					if err != nil {
						return nil, err
					}
					p.XLabel, p.Metrics, p.Box, p.Paired = "N₃ (users with ε = ln K)", []Metric{MSE}, true, [2]string{"EM", "Proposal"}
					p.Variants = []Variant{cemEM, cemProposal}
					for _, n3 := range cemFig8N3 {
						users := []int{0, n2, n3, 0}
						p.Settings = append(p.Settings, Setting{Name: cemName(users), X: float64(n3), Pops: []Population{{Study: s, Users: users}}})
					}
					out = append(out, p)
				}
				return out, nil
			}},
	)
}

// cemPanel is a panel of CEM §5 on the census data d: k-RR at ε = 0.1, 2
// and ln K and the identity (core's "cem" preset), the six estimators, MSE
// and JSD on log axes. It returns the study the settings share.
func cemPanel(name string, d *Data, title string) (Panel, *core.Study, error) {
	ms, err := core.PresetMechanisms("cem", d.Alphabet)
	if err != nil {
		return Panel{}, nil, err
	}
	s := &core.Study{Alphabet: d.Alphabet, Mechanisms: ms}
	p := Panel{Name: name, Setting: "cem", Title: title, Alphabet: d.Alphabet, Truth: d.Truth,
		LogY: true, Metrics: []Metric{MSE, JSD}, Variants: cemAll}
	return p, s, nil
}

// cemName names a setting by its users of each mechanism,
// "N=500:500:50:10".
func cemName(users []int) string {
	s := "N="
	for i, n := range users {
		if i > 0 {
			s += ":"
		}
		s += fmt.Sprint(n)
	}
	return s
}

// uniform is CEM's Uniform: p̂ = (1/K, …, 1/K) whatever the reports.
func uniform(_ context.Context, in Input) ([]float64, error) {
	k := in.Study.Alphabet.Len()
	p := make([]float64, k)
	for i := range p {
		p[i] = 1 / float64(k)
	}
	return p, nil
}

// obfDat is CEM's ObfDat: the empirical distribution of the reports, taken
// as estimates of the data (mechanisms whose outputs are the input
// symbols).
func obfDat(_ context.Context, in Input) ([]float64, error) {
	k := in.Study.Alphabet.Len()
	p := make([]float64, k)
	n := float64(in.Groups.N())
	for _, g := range in.Groups.List {
		c, ok := in.Mechs[g.Mech].(core.Channel)
		if !ok || c.Outputs() != k {
			return nil, fmt.Errorf("ObfDat: mechanism %q does not report symbols of the data's alphabet", in.Study.Mechanisms[g.Mech].ID)
		}
		p[g.Report.Symbol] += float64(g.Count) / n
	}
	return p, nil
}

// matInv returns CEM's matrix inversion with several mechanisms, eq. (13):
// each mechanism's users' reports inverted alone (INV), the M estimates of
// the mechanisms in use averaged with equal weights 1/M — not by their
// users, as FW's [INV]_R weighs them — and the average post-processed.
func matInv(post core.Post) Estimator {
	return func(ctx context.Context, in Input) ([]float64, error) {
		var sum []float64
		m := 0
		for j, nj := range in.Groups.Users {
			if nj == 0 {
				continue
			}
			sub := &core.Groups{Users: make([]int, len(in.Groups.Users))}
			sub.Users[j] = nj
			for _, g := range in.Groups.List {
				if g.Mech == j {
					sub.List = append(sub.List, g)
				}
			}
			est, err := core.Reconstruct(ctx, core.MethodINV, in.Study, in.Mechs, sub, core.EstimateOptions{Post: core.PostNone})
			if err != nil {
				return nil, err
			}
			if sum == nil {
				sum = make([]float64, len(est.Theta))
			}
			floats.Add(sum, est.Theta)
			m++
		}
		floats.Scale(1/float64(m), sum)
		return core.PostProcess(sum, post)
	}
}
