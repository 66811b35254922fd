package core

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
)

// CEMOptions tune CorrectedEM.
type CEMOptions struct {
	// Alpha fixes the weight α of the correction; 0 chooses it by
	// simulation (CEM §4.3) unless Fixed.
	Alpha float64
	// Fixed takes Alpha as given even when it is 0 (no correction): a
	// bootstrap's replicates keep their estimate's α.
	Fixed bool
	// From is where the simulation that chooses α draws its data: the
	// EM estimate θ̂ (SimulateEstimate, the default) or the reports'
	// pooled frequencies (SimulateReports, CEM §4.3 as written).
	From CEMSimulation
	// Sims is the number of simulations whose errors are averaged to
	// choose α (default DefaultCEMSims).
	Sims int
	// Loss is the error α's choice minimises: LossTV (the default) or
	// LossSquared (CEM §4.3).
	Loss CEMLoss
	// Lambda is the Tikhonov term λ of CEM eq. (32); default 1e−3.
	Lambda float64
	// Printed uses ∇²s_n as CEM eq. (24) and (61) print it,
	// g⊗g⊗g/(p·g)³, instead of the exact derivative of eq. (23),
	// 2·g⊗g⊗g/(p·g)³; for reproducing the paper's figures.
	Printed bool
	// Seed seeds the simulation that chooses α.
	Seed uint64
	// Progress, when not nil, is called during the bias correction with
	// the name of its stage and the fraction of the stage done.
	Progress func(stage string, done float64)
}

// A CEMSimulation names where CorrectedEM's choice of α draws its
// simulated data.
type CEMSimulation string

// The simulations of α's choice.
const (
	// SimulateEstimate draws from the EM estimate θ̂: a parametric
	// bootstrap, which CEM §4.3's discussion allows ("an estimate of
	// the distribution").
	SimulateEstimate CEMSimulation = "estimate"
	// SimulateReports draws from the pooled frequencies of the reports
	// when every mechanism reports symbols of the input alphabet, else
	// from θ̂: CEM §4.3 as written, for k-RR, whose outputs are its
	// inputs. For a planar mechanism the reports' frequencies are the
	// truth smeared by the noise, flatter than any estimate.
	SimulateReports CEMSimulation = "reports"
)

// A CEMLoss names the error between a simulation's corrected estimate
// and its truth that CorrectedEM's choice of α minimises.
type CEMLoss string

// The losses of α's choice.
const (
	// LossTV is the total variation ½‖θ̃ − p′‖₁: the mass out of place.
	// On New York's check-ins (FW Table 7, at most 20 a person) the
	// squared error chose α = 0.07 from EM's estimate, whose map's EMD
	// was twice GIBU's; the squared error rewards a correction that
	// shaves the largest cells and spreads their mass thinly far away,
	// which total variation and the EMD do not.
	LossTV CEMLoss = "tv"
	// LossSquared is the squared error ‖θ̃ − p′‖₂², CEM §4.3's.
	LossSquared CEMLoss = "squared"
)

// DefaultCEMSims is CEMOptions.Sims' default: the squared errors of
// three simulations averaged, so that one draw's luck does not choose
// α (docs/EXPERIMENTS.md, cem-alpha).
const DefaultCEMSims = 3

// Simulations returns the simulations that choose α: 0 when α is
// given, else Sims or DefaultCEMSims.
func (opt CEMOptions) Simulations() int {
	switch {
	case opt.Alpha > 0 || opt.Fixed:
		return 0
	case opt.Sims > 0:
		return opt.Sims
	}
	return DefaultCEMSims
}

// maxCEMSims bounds CEMOptions.Sims.
const maxCEMSims = 100

// CheckCEMChoice checks the simulation of α's choice: from one of the
// CEMSimulations ("" is SimulateEstimate), sims from 1 to 100 (0 is
// DefaultCEMSims), minimising one of the CEMLosses ("" is LossTV).
func CheckCEMChoice(from CEMSimulation, sims int, loss CEMLoss) error {
	switch from {
	case "", SimulateEstimate, SimulateReports:
	default:
		return fmt.Errorf("α's simulation %q: want estimate or reports", from)
	}
	switch loss {
	case "", LossTV, LossSquared:
	default:
		return fmt.Errorf("α's loss %q: want tv or squared", loss)
	}
	if sims < 0 || sims > maxCEMSims {
		return fmt.Errorf("%d simulations to choose α: want 1 to %d", sims, maxCEMSims)
	}
	return nil
}

// alphaGrid is CEM §5.1's grid {c·10^−k : c = 1..9, k = 1..10} and 0,
// no correction: the choice can then keep EM's own estimate where every
// correction makes the simulated one worse (on New York's check-ins
// through FW Table 7's mechanisms the grid's top, α = 0.9, put a
// quarter of the mass on empty cells).
func alphaGrid() []float64 {
	out := []float64{0}
	for k := 1; k <= 10; k++ {
		for c := 1; c <= 9; c++ {
			out = append(out, float64(c)*math.Pow(10, -float64(k)))
		}
	}
	return out
}

// CorrectedEM is CEM Algorithm 2: the EM estimate θ̂ (GIBU, started from
// the uniform distribution so that it is the MLE), corrected by the
// plug-in second-order bias â₋₁ of CEM eq. (28)–(32) (cem_bias.go),
//
//	θ̃ = θ̂ − α â₋₁,
//
// then clipped and renormalised. α is opt.Alpha, or chosen by CEM §4.3's
// simulation: opt.Sims data sets X' are drawn from p' (θ̂, or with
// SimulateReports the pooled frequencies of the reports when every
// mechanism reports symbols of the input alphabet), sanitised by the
// same mechanisms for the same numbers of users, estimated and
// corrected, and the α of the grid {0} ∪ {c·10^−k : c = 1..9,
// k = 1..10} whose corrected estimates come closest to p', averaged
// over the simulations, is taken: in total variation, or with
// LossSquared in squared error as CEM §4.3 measures it. The result's
// Alpha says which, AlphaLoss and EMLoss the mean losses with it and
// with none (α = 0: EM's estimate, which the choice keeps when every
// correction loses). The estimate's Gap and Converged are those of θ̂,
// its LogLik that of θ̃.
func CorrectedEM(ctx context.Context, mechs []Mechanism, g *Groups, s *Study, em EMOptions, opt CEMOptions) (*Estimate, error) {
	if err := CheckCEMChoice(opt.From, opt.Sims, opt.Loss); err != nil {
		return nil, fmt.Errorf("core: cem: %w", err)
	}
	cm, m, est, err := cemEM(ctx, mechs, g, s, em)
	if err != nil {
		return nil, err
	}
	// One K×K work space for both bias corrections (650 MB at 9,024
	// cells).
	work := make([]float64, cm.k*cm.k)
	a, err := cm.biasCorrection(ctx, est.Theta, opt.Lambda, opt.Printed, opt.stage(""), work)
	if err != nil {
		return nil, err
	}
	alpha := opt.Alpha
	if alpha == 0 && !opt.Fixed {
		em.Progress, em.Inner = nil, nil
		var losses []float64
		if losses, err = alphaLosses(ctx, mechs, g, s, est.Theta, em, opt, work); err != nil {
			return nil, err
		}
		best := pickAlpha(losses)
		alpha, est.AlphaLoss, est.EMLoss = alphaGrid()[best], losses[best], losses[0]
	}
	if !(alpha >= 0) || math.IsInf(alpha, 0) {
		return nil, fmt.Errorf("core: cem: α must be ≥ 0 and finite, got %v", alpha)
	}
	est.Theta = corrected(est.Theta, a, alpha)
	est.Alpha = alpha
	est.LogLik, _ = m.step(est.Theta, make([]float64, cm.k))
	return est, nil
}

// cemEM returns corrected EM's model of the reports g, their EM model
// and EM's estimate from them (GIBU, started from the uniform
// distribution so that it is the MLE): for the data and for each of
// α's simulations. It refuses first a K×K matrix that does not fit
// (checkCEMSize).
func cemEM(ctx context.Context, mechs []Mechanism, g *Groups, s *Study, em EMOptions) (*cemModel, emModel, *Estimate, error) {
	cm, err := newCEMModel(mechs, g, s, ColumnBudget)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := checkCEMSize(cm.k); err != nil {
		return nil, nil, nil, err
	}
	m, err := newModel(mechs, g, s, ColumnBudget)
	if err != nil {
		return nil, nil, nil, err
	}
	est, err := gibuRun(ctx, m, mechs, g, em)
	if err != nil {
		return nil, nil, nil, err
	}
	return cm, m, est, nil
}

// stage returns the cemStage that reports to opt.Progress with the
// stage's name after prefix.
func (opt CEMOptions) stage(prefix string) cemStage {
	if opt.Progress == nil {
		return nil
	}
	return func(name string, done float64) { opt.Progress(prefix+name, done) }
}

// corrected returns clip-and-renormalise(θ − α a).
func corrected(theta, a []float64, alpha float64) []float64 {
	t := make([]float64, len(theta))
	floats.AddScaledTo(t, theta, -alpha, a)
	return ClipNormalize(t)
}

// checkCEMSize refuses, before anything is allocated, a corrected EM
// whose K×K matrix Ŝ + λI (inverted in place) does not fit in the
// memory this machine has.
func checkCEMSize(k int) error {
	return CheckMemory(fmt.Sprintf("corrected EM's %d×%d matrix Ŝ + λI (CEM eq. (31)–(32))", k, k), cemBytes(k))
}

// alphaLosses runs CEM §4.3's simulations and returns, for each α of
// alphaGrid, the loss (opt.Loss) of the corrected estimates to p',
// averaged over the simulations. Simulation i draws from its own PCG
// stream, so the choice does not depend on how many run.
func alphaLosses(ctx context.Context, mechs []Mechanism, g *Groups, s *Study, theta []float64, em EMOptions, opt CEMOptions, work []float64) ([]float64, error) {
	p := theta
	if opt.From == SimulateReports {
		p = simulationTruth(mechs, g, theta)
	}
	sims := opt.Simulations()
	grid := alphaGrid()
	losses := make([]float64, len(grid))
	for i := range sims {
		rng := rand.New(rand.NewPCG(opt.Seed, 0x63656d+uint64(i)))
		sim, err := SimulateGroups(ctx, rng, mechs, g.Users, p)
		if err != nil {
			return nil, err
		}
		cm, _, est, err := cemEM(ctx, mechs, sim, s, em)
		if err != nil {
			return nil, err
		}
		stage := "Choosing α: "
		if sims > 1 {
			stage = fmt.Sprintf("Choosing α (%d of %d): ", i+1, sims)
		}
		a, err := cm.biasCorrection(ctx, est.Theta, opt.Lambda, opt.Printed, opt.stage(stage), work)
		if err != nil {
			return nil, err
		}
		for j, alpha := range grid {
			losses[j] += opt.Loss.of(corrected(est.Theta, a, alpha), p) / float64(sims)
		}
	}
	return losses, nil
}

// of returns the loss between a corrected estimate t and the truth p.
func (l CEMLoss) of(t, p []float64) float64 {
	if l == LossSquared {
		d := floats.Distance(t, p, 2)
		return d * d
	}
	return floats.Distance(t, p, 1) / 2
}

// pickAlpha returns the index in alphaGrid of the least loss, the
// smaller α on a tie (no correction before any).
func pickAlpha(losses []float64) int {
	best := 0
	for j, l := range losses {
		if l < losses[best] {
			best = j
		}
	}
	return best
}

// simulationTruth is CEM §4.3's p': the pooled frequencies of the
// reports when every mechanism in use reports symbols of the input
// alphabet, else θ̂.
func simulationTruth(mechs []Mechanism, g *Groups, theta []float64) []float64 {
	k := len(theta)
	for j, m := range mechs {
		c, ok := m.(Channel)
		if g.Users[j] > 0 && (!ok || c.Outputs() != k) {
			return theta
		}
	}
	p := make([]float64, k)
	for _, gr := range g.List {
		p[gr.Report.Symbol] += float64(gr.Count) / float64(g.N())
	}
	return p
}

// MethodCEM names the corrected EM (CEM Alg. 2).
const MethodCEM Method = "cem"

// cemEstimator is the corrected EM, registered in registry.
var cemEstimator = Estimator{Method: MethodCEM, Title: "Corrected EM", Help: "EM with CEM's error correction (CEM Alg. 2)",
	Refuses: CapPersonal, Alpha: true, Cost: CostCorrectedEM, memory: cemBytes, ownLogLik: true,
	run: func(e *estimation) (*Estimate, error) {
		return CorrectedEM(e.ctx, e.mechs, e.g, e.s, e.opt.EM, e.opt.CEM)
	}}
