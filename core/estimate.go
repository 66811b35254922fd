package core

import (
	"context"
	"fmt"
	"math"
	"strings"
)

// Estimation methods of privmap estimate (DESIGN §4, §8).
const (
	MethodGIBU  = "gibu"
	MethodEM    = "em" // alias of gibu
	MethodCEM   = "cem"
	MethodIBU   = "ibu"
	MethodIBUM  = "ibu-m"
	MethodIBUR  = "ibu-r"
	MethodINV   = "inv"
	MethodINVM  = "inv-m"
	MethodINVR  = "inv-r"
	MethodRAP   = "rap"
	MethodRAPM  = "rap-m"
	MethodRAPR  = "rap-r"
	MethodULDP  = "uldp"
	methodNames = "gibu, em, cem, ibu, ibu-m, ibu-r, inv, inv-m, inv-r, rap, rap-m, rap-r or uldp"
)

// Methods lists the estimation methods.
var Methods = []string{MethodGIBU, MethodEM, MethodCEM, MethodIBU, MethodIBUM, MethodIBUR,
	MethodINV, MethodINVM, MethodINVR, MethodRAP, MethodRAPM, MethodRAPR, MethodULDP}

// EstimateOptions tune Reconstruct.
type EstimateOptions struct {
	// EM tunes the iterative estimators.
	EM EMOptions
	// Post is PostProj (default) or PostNorm for the inversion
	// estimators (inv, rap and their variants).
	Post string
	// CEM tunes the corrected EM.
	CEM CEMOptions
	// ULDP tunes the ULDP empirical estimator.
	ULDP ULDPOptions
}

// Reconstruct estimates the distribution of the users' data from their
// grouped reports with the named method, and returns the estimate with
// its log-likelihood on the reports: −Inf when it gives some report
// probability 0, NaN for uldp on a PUM's reports, whose probability
// depends on each user's personal cells and not on θ alone.
func Reconstruct(ctx context.Context, method string, s *Study, mechs []Mechanism, g *Groups, opt EstimateOptions) (*Estimate, error) {
	if g.N() == 0 {
		return nil, fmt.Errorf("core: no reports")
	}
	run, ok := estimators[method]
	if !ok {
		return nil, fmt.Errorf("core: unknown method %q (want %s)", method, methodNames)
	}
	pum := pumUsed(mechs, g)
	if pum >= 0 && method != MethodULDP {
		return nil, fmt.Errorf("core: mechanism %s is a pum, whose reports live on the extended alphabet: estimate them with uldp", mechName(s, pum))
	}
	e := &estimation{ctx: ctx, method: method, s: s, mechs: mechs, g: g, opt: opt}
	est, err := run(e)
	if err != nil {
		return nil, err
	}
	switch {
	case method == MethodGIBU, method == MethodEM, method == MethodIBU, method == MethodCEM: // their EM computed it
	case pum >= 0:
		// A PUM user's report depends on their own personal cells, not on
		// θ alone: the likelihood of θ is not defined.
		est.LogLik = math.NaN()
	default:
		if est.LogLik, err = LogLikelihood(mechs, g, s, est.Theta); err != nil {
			return nil, err
		}
	}
	return est, nil
}

// pumUsed returns the first PUM that some users of g used, or −1.
func pumUsed(mechs []Mechanism, g *Groups) int {
	for j, m := range mechs {
		if _, ok := m.(*PUM); ok && g.Users[j] > 0 {
			return j
		}
	}
	return -1
}

// estimation is one call of Reconstruct.
type estimation struct {
	ctx    context.Context
	method string
	s      *Study
	mechs  []Mechanism
	g      *Groups
	opt    EstimateOptions
}

// closed wraps a closed-form estimate.
func closed(theta []float64, err error) (*Estimate, error) {
	if err != nil {
		return nil, err
	}
	return &Estimate{Theta: theta, Converged: true}, nil
}

func (e *estimation) gibu() (*Estimate, error) { return GIBU(e.ctx, e.mechs, e.g, e.s, e.opt.EM) }

// single runs f after checking that the users share one mechanism.
func (e *estimation) single(f func() (*Estimate, error)) (*Estimate, error) {
	if err := oneMechanism(e.method, e.s, e.g); err != nil {
		return nil, err
	}
	return f()
}

func (e *estimation) inv(g *Groups) ([]float64, error) { return InvM(e.mechs, g, e.s, e.opt.Post) }
func (e *estimation) rap(g *Groups) ([]float64, error) { return RapM(e.mechs, g, e.s, e.opt.Post) }

// estimators maps each method to its computation.
var estimators = map[string]func(*estimation) (*Estimate, error){
	MethodGIBU: (*estimation).gibu,
	MethodEM:   (*estimation).gibu,
	MethodIBU:  func(e *estimation) (*Estimate, error) { return e.single(e.gibu) },
	MethodIBUM: func(e *estimation) (*Estimate, error) { return IbuM(e.ctx, e.mechs, e.g, e.s, e.opt.EM) },
	MethodIBUR: func(e *estimation) (*Estimate, error) {
		iters, converged := 0, true
		theta, err := PerMechanism(e.g, func(sub *Groups) ([]float64, error) {
			est, err := GIBU(e.ctx, e.mechs, sub, e.s, e.opt.EM)
			if err != nil {
				return nil, err
			}
			iters += est.Iterations
			converged = converged && est.Converged
			return est.Theta, nil
		})
		est, err := closed(theta, err)
		if est != nil {
			est.Iterations, est.Converged = iters, converged
		}
		return est, err
	},
	MethodINV: func(e *estimation) (*Estimate, error) {
		return e.single(func() (*Estimate, error) { return closed(e.inv(e.g)) })
	},
	MethodINVM: func(e *estimation) (*Estimate, error) { return closed(e.inv(e.g)) },
	MethodINVR: func(e *estimation) (*Estimate, error) { return closed(PerMechanism(e.g, e.inv)) },
	MethodRAP: func(e *estimation) (*Estimate, error) {
		return e.single(func() (*Estimate, error) { return closed(e.rap(e.g)) })
	},
	MethodRAPM: func(e *estimation) (*Estimate, error) { return closed(e.rap(e.g)) },
	MethodRAPR: func(e *estimation) (*Estimate, error) { return closed(PerMechanism(e.g, e.rap)) },
	MethodCEM: func(e *estimation) (*Estimate, error) {
		return CorrectedEM(e.ctx, e.mechs, e.g, e.s, e.opt.EM, e.opt.CEM)
	},
	MethodULDP: func(e *estimation) (*Estimate, error) { return closed(ULDPEstimate(e.mechs, e.g, e.s, e.opt.ULDP)) },
}

// oneMechanism checks that all reports come from one mechanism.
func oneMechanism(method string, s *Study, g *Groups) error {
	var used []string
	for j, n := range g.Users {
		if n > 0 {
			used = append(used, mechName(s, j))
		}
	}
	if len(used) > 1 {
		return fmt.Errorf("core: %s is for the users of one mechanism; the reports come from %d (%s): use %s-m, %s-r or gibu",
			method, len(used), strings.Join(used, ", "), method, method)
	}
	return nil
}

// LogLikelihood returns the normalised log-likelihood
// (1/n) Σ c·log P(report | θ) of θ on the grouped reports.
func LogLikelihood(mechs []Mechanism, g *Groups, s *Study, theta []float64) (float64, error) {
	c, err := newColumns(mechs, g, s)
	if err != nil {
		return 0, err
	}
	if len(theta) != c.k {
		return 0, fmt.Errorf("core: a distribution of %d symbols for mechanisms of %d", len(theta), c.k)
	}
	return c.step(theta, make([]float64, c.k)), nil
}
