package core

import (
	"context"
	"fmt"
	"math"
	"strings"
)

// EstimateOptions tune Reconstruct.
type EstimateOptions struct {
	// EM tunes the iterative estimators.
	EM EMOptions
	// Post is PostProj (default) or PostNorm for the inversion
	// estimators (inv, rap and their variants).
	Post Post
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
func Reconstruct(ctx context.Context, method Method, s *Study, mechs []Mechanism, g *Groups, opt EstimateOptions) (*Estimate, error) {
	return reconstruct(ctx, method, s, mechs, g, opt, true)
}

// reconstruct is Reconstruct, which computes the log-likelihood of an
// estimator that does not give it only when logLik (a bootstrap
// replicate needs none).
func reconstruct(ctx context.Context, method Method, s *Study, mechs []Mechanism, g *Groups, opt EstimateOptions, logLik bool) (*Estimate, error) {
	if g.N() == 0 {
		return nil, fmt.Errorf("core: no reports")
	}
	info := lookup(method)
	if info == nil {
		return nil, unknownMethod(method)
	}
	pum := personalizedUsed(mechs, g.Users)
	if pum >= 0 && info.Refuses&CapPersonal != 0 {
		return nil, pumNeedsULDP(s, pum)
	}
	if info.Single {
		if err := oneMechanism(method, s, g.Users); err != nil {
			return nil, err
		}
	}
	if err := blindChannels(info, s, mechs, g.Users); err != nil {
		return nil, err
	}
	e := &estimation{ctx: ctx, method: method, s: s, mechs: mechs, g: g, opt: opt}
	est, err := info.run(e)
	if err != nil {
		return nil, err
	}
	if err := checkEstimate(est.Theta, method, opt.Post); err != nil {
		return nil, err
	}
	switch {
	case info.ownLogLik, !logLik: // their EM computed it, or it is not wanted
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

// blindChannels refuses, as Applicable does, an inversion of Shokri's
// mechanism whose quality bound does not bind (Shokri.Blind), once the
// mechanisms' kinds pass the estimator's own checks (whose refusals
// Applicable gives first).
func blindChannels(info *Estimator, s *Study, mechs []Mechanism, users []int) error {
	blind := make([]float64, len(mechs))
	for j, m := range mechs {
		if b, ok := m.(blinder); ok {
			if obj, isBlind := b.blindObjective(); isBlind {
				blind[j] = obj
			}
		}
	}
	j := blindInverted(info, users, blind)
	if j < 0 {
		return nil
	}
	if s != nil {
		for i, n := range users {
			kind, _ := s.Mechanisms[i].Kind.Info()
			if n > 0 && capsApplicable(info, kind.Caps, s, i) != nil {
				return nil // the estimator says so in its own words
			}
		}
	}
	return blindNotInvertible(info.Method, s, j, blind[j])
}

// personalizedUsed returns the first Personalized mechanism (a PUM) that
// some users used (users[j] > 0), or −1.
func personalizedUsed(mechs []Mechanism, users []int) int {
	for j, m := range mechs {
		if _, ok := m.(Personalized); ok && users[j] > 0 {
			return j
		}
	}
	return -1
}

// estimation is one call of Reconstruct.
type estimation struct {
	ctx    context.Context
	method Method
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

// oneMechanism checks that all reports come from one mechanism, users[j]
// being the users of mechanism j.
func oneMechanism(method Method, s *Study, users []int) error {
	var used []string
	for j, n := range users {
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
// (1/n) Σ c·log P(report | θ) of θ on the grouped reports. The users of a
// mechanism whose likelihood columns would pass the column budget are
// taken in operator form, as GIBU takes them (report probabilities below
// 1e−12 of the mean are the operators' rounding and count as that floor);
// the others' columns are exact, and −Inf when θ rules a report out.
func LogLikelihood(mechs []Mechanism, g *Groups, s *Study, theta []float64) (float64, error) {
	m, err := newModel(mechs, g, s, ColumnBudget)
	if err != nil {
		return 0, err
	}
	if len(theta) != m.dims() {
		return 0, fmt.Errorf("core: a distribution of %d symbols for mechanisms of %d", len(theta), m.dims())
	}
	ll, _ := m.step(theta, make([]float64, m.dims()))
	return ll, nil
}

// DefaultGapTol is EMOptions.GapTol's default, a certified gap of 1e−11
// nats per report: on k-RR's closed-form MLE (TestKRRMLEOracle) it
// brings GIBU within 1e−9 (L∞).
const DefaultGapTol = 1e-11

// EMOptions tune GIBU and the other EM estimators. Zero values select the
// defaults.
type EMOptions struct {
	// GapTol is the certified gap at which the iterations stop: the
	// estimate is Converged when the MLE's normalised log-likelihood
	// exceeds its own by at most GapTol (see Estimate.Gap); default
	// DefaultGapTol.
	GapTol float64
	// Tol is δ: iterations also stop, converged or not, when the
	// normalised log-likelihood L changes by less than δ·max(1, |L|) over
	// one accelerated cycle (three EM steps) or one plain step: EM has
	// stalled; default 1e−14.
	Tol float64
	// MaxIter bounds the steps, EM and Newton; default 100,000.
	MaxIter int
	// Init is θ⁰, which must be positive where the MLE may be; default
	// uniform.
	Init []float64
	// Plain turns off the SQUAREM acceleration: every iteration is then
	// one step of FW Algorithm 1 and Tol applies per step.
	Plain bool
	// Progress, when not nil, is called once a cycle with the EM steps
	// done, the normalised log-likelihood of the current estimate and its
	// certified gap (Estimate.Gap), which falls towards GapTol.
	Progress func(iter int, loglik, gap float64)
	// Inner, when not nil, is called during a Newton step that solves
	// by conjugate gradients (on large alphabets, where one step may take
	// seconds) with the step's number and the fraction of its conjugate
	// gradients done, in [0, 1]; Progress follows once the step is taken.
	Inner func(iter int, done float64)
}

// An Estimate is the result of an estimator.
type Estimate struct {
	// Theta is the estimated distribution over the K input symbols.
	Theta []float64
	// LogLik is the normalised log-likelihood (1/n) Σ c log P(report | θ)
	// of Theta; Iterations the EM and Newton steps run (0 for closed
	// forms); Converged, for the iterative estimators, whether Gap is
	// within EMOptions.GapTol (closed forms are always converged).
	LogLik     float64
	Iterations int
	Converged  bool
	// Gap, for the iterative estimators (gibu, ibu, ibu-m; ibu-r per
	// mechanism), certifies Theta: the MLE's normalised log-likelihood
	// exceeds LogLik by at most Gap (≥ 0).
	Gap float64
	// Alpha is the weight of the corrected EM's correction.
	Alpha float64
	// AlphaLoss and EMLoss are, when the corrected EM chose α, the mean
	// losses (CEMOptions.Loss) of its simulations (CEM §4.3) corrected
	// with α and not at all (EM's estimate); both 0 when α was given.
	AlphaLoss, EMLoss float64
}

// checkEstimate returns an error when θ is not what an estimate must be:
// every entry finite, and none negative unless the raw estimate of an
// inversion was asked for (PostNone). A numeric failure is thus an error
// with its reason, never a file of NaN or negative probabilities.
func checkEstimate(theta []float64, method Method, post Post) error {
	for x, v := range theta {
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0):
			return fmt.Errorf("core: %s gave a non-finite probability (%v) for symbol %d: a numeric failure; gibu does not invert the channels", method, v, x)
		case v < 0 && post != PostNone:
			return fmt.Errorf("core: %s gave a negative probability (%v) for symbol %d after post-processing %q: a numeric failure", method, v, x, post)
		}
	}
	return nil
}
