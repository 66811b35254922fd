package core

import (
	"fmt"
	"slices"
)

// Method names an estimator as privmap estimate's -method does.
type Method string

// An Estimator is one estimation method: what privmap estimate, the
// window's Run screen, the cost model and Applicable need to know of it.
// Each estimator's file declares its Estimator next to its algorithm
// (gibuEstimator in gibu.go, …), and registry lists them; adding one is
// its file and one line there (docs/ARCHITECTURE.md, "Adding to privmap").
type Estimator struct {
	// Method is its name on the command line and in files.
	Method Method
	// Title names it in the window ("[INV]_M"), Help says in a line what
	// it is; empty for the aliases and the one-mechanism forms, which the
	// window does not offer.
	Title, Help string
	// Alias, when not empty, is the method this one is another name of.
	Alias Method
	// Single: it is for the users of one mechanism (ibu, inv, rap); its
	// mixtures of mechanisms are the _M and _R forms.
	Single bool
	// PerMechanism: it estimates each mechanism's users alone and
	// averages the estimates (FW eq. 4); its steps are the sum of theirs.
	PerMechanism bool
	// Needs are the capabilities (Kind.Caps) every mechanism with users
	// must have, Refuses those none may have.
	Needs, Refuses Caps
	// Certified: its estimates carry a certified gap to the MLE
	// (Estimate.Gap).
	Certified bool
	// Alpha: its estimates carry the weight of a correction
	// (Estimate.Alpha).
	Alpha bool
	// Cost is the shape of its work, for a front end's cost model.
	Cost CostShape
	// memory, when not nil, is the most memory it needs on k symbols,
	// which Study.Fits checks against what the machine can still give.
	memory func(k int) float64
	// run computes the estimate; ownLogLik says that run sets
	// Estimate.LogLik itself (its EM computed it).
	run       func(*estimation) (*Estimate, error)
	ownLogLik bool
}

// Fits reports, before anything runs, whether method's largest working
// memory on s's alphabet fits in what this process can still allocate:
// a *TooLargeError when it does not, naming the estimate it refines.
func (s *Study) Fits(method Method) error {
	e, ok := method.Info()
	if !ok || e.memory == nil {
		return nil
	}
	k := s.Alphabet.Len()
	if err := CheckMemory(fmt.Sprintf("%s on %d symbols", e.Title, k), e.memory(k)); err != nil {
		return fmt.Errorf("%w (GIBU, the estimate it refines, needs a small part of that)", err)
	}
	return nil
}

// Memory returns the most memory method needs on k symbols, 0 when it
// is small (vectors of K, the reports' groups).
func (m Method) Memory(k int) float64 {
	if e, ok := m.Info(); ok && e.memory != nil {
		return e.memory(k)
	}
	return 0
}

// CostShape is the shape of an estimator's work, from which a front end
// prices a run (pipeline.EstimateCost).
type CostShape int

// Shapes of an estimator's work.
const (
	// CostEM: steps of the EM map over every mechanism's users, the
	// planar ones sharing their transforms (gibu and its kin).
	CostEM CostShape = iota
	// CostEMAverage: steps of the EM map of the users' average channel,
	// whose planar mechanisms are one convolution ([IBU]_M).
	CostEMAverage
	// CostEMEach: each mechanism's own steps, the mechanisms on every
	// core ([IBU]_R).
	CostEMEach
	// CostInversion: an LU factorisation of the average channel, or
	// products of it by GMRES beyond the dense limit.
	CostInversion
	// CostInversionEach: the same for each mechanism's channel ([INV]_R,
	// [RAP]_R).
	CostInversionEach
	// CostPass: one pass over the reports.
	CostPass
	// CostCorrectedEM: CostEM's steps, then a bias correction
	// (Study.CorrectedEMCost), once more for each simulation that chooses α.
	CostCorrectedEM
)

// registry lists the estimators, in the order privmap estimate's help
// and the Run screen give them.
var registry = []*Estimator{&gibuEstimator, &emEstimator, &cemEstimator,
	&ibuEstimator, &ibuMEstimator, &ibuREstimator,
	&invEstimator, &invMEstimator, &invREstimator,
	&rapEstimator, &rapMEstimator, &rapREstimator,
	&oracleEstimator, &oracleMEstimator, &oracleREstimator, &ownREstimator,
	&uldpEstimator}

// Methods lists the estimation methods.
var Methods = methodList()

func methodList() []Method {
	out := make([]Method, len(registry))
	for i, e := range registry {
		out[i] = e.Method
	}
	return out
}

// Estimators returns the estimators, in the registry's order.
func Estimators() []Estimator {
	out := make([]Estimator, len(registry))
	for i, e := range registry {
		out[i] = *e
	}
	return out
}

// Offered reports whether a front end that mixes mechanisms offers e:
// it is no alias and takes the users of several mechanisms.
func (e Estimator) Offered() bool { return e.Alias == "" && !e.Single }

// Info returns the estimator of method m, and whether there is one.
func (m Method) Info() (Estimator, bool) {
	e := lookup(m)
	if e == nil {
		return Estimator{}, false
	}
	return *e, true
}

// lookup returns the registered estimator of m, or nil.
func lookup(m Method) *Estimator {
	i := slices.IndexFunc(registry, func(e *Estimator) bool { return e.Method == m })
	if i < 0 {
		return nil
	}
	return registry[i]
}

// Title returns m's name as people read it (Estimator.Title: "GIBU",
// "[IBU]_M"), or m itself when it has none.
func (m Method) Title() string {
	if e := lookup(m); e != nil && e.Title != "" {
		return e.Title
	}
	return string(m)
}

// Certified reports whether the estimates of m carry a certified gap to
// the MLE (Estimate.Gap): gibu, em, ibu, ibu-m, and ibu-r per mechanism.
func (m Method) Certified() bool {
	e := lookup(m)
	return e != nil && e.Certified
}

// MethodNames lists Methods joined by sep, the last two by last.
func MethodNames(sep, last string) string { return joinLast(Methods, sep, last) }

// unknownMethod says that m names no estimator.
func unknownMethod(m Method) error {
	return fmt.Errorf("core: unknown method %q (want %s)", m, MethodNames(", ", " or "))
}
