package core

import "fmt"

// Applicable returns nil if method can estimate the distribution from the
// reports of the study's mechanisms that have users (a positive share),
// else the reason it cannot. It makes, from the mechanisms' kinds alone
// and before any report is drawn, the checks of the kinds of mechanisms
// that Reconstruct makes on the built mechanisms, in the same words, so
// that a front end can offer only the estimators that apply.
func (s *Study) Applicable(method Method) error {
	e := lookup(method)
	if e == nil {
		return unknownMethod(method)
	}
	shares, err := s.Shares()
	if err != nil {
		return err
	}
	users := make([]int, len(shares))
	for j, sh := range shares {
		if sh > 0 {
			users[j] = 1
		}
	}
	caps := make([]Caps, len(users))
	for j := range users {
		kind, _ := s.Mechanisms[j].Kind.Info()
		caps[j] = kind.Caps
		if users[j] > 0 && caps[j]&e.Refuses&CapPersonal != 0 {
			return pumNeedsULDP(s, j)
		}
	}
	if e.Single {
		if err := oneMechanism(method, s, users); err != nil {
			return err
		}
	}
	if err := s.eachApplicable(e, caps, users); err != nil {
		return err
	}
	blind := s.blindShokris()
	if j := blindInverted(e, users, blind); j >= 0 {
		return blindNotInvertible(e.Method, s, j, blind[j])
	}
	return nil
}

// eachApplicable checks, mechanism by mechanism in the order
// Reconstruct meets them, the capabilities of the reports of those with
// users and their output alphabets.
func (s *Study) eachApplicable(e *Estimator, caps []Caps, users []int) error {
	out := outputCheck{e: e, s: s, first: -1}
	for j, n := range users {
		if n > 0 {
			if err := capsApplicable(e, caps[j], s, j); err != nil {
				return err
			}
			if err := out.add(j); err != nil {
				return err
			}
		}
	}
	return out.square()
}

// blindShokris returns, for each mechanism, Shokri's least expected
// distance P where its quality bound cannot bind (ShokriBlind), else 0.
func (s *Study) blindShokris() []float64 {
	blind := make([]float64, len(s.Mechanisms))
	for j, spec := range s.Mechanisms {
		if spec.Kind == KindShokri {
			if p, ok := ShokriBlind(s.Alphabet, spec.QualityLoss); ok {
				blind[j] = p
			}
		}
	}
	return blind
}

// blindInverted returns a mechanism with users whose channel e would
// invert although it reports one symbol whatever the input (Shokri's,
// its quality bound not binding: blind[j] > 0), or −1: e inverts each
// mechanism alone (inv, inv-r), or the mixture of mechanisms that are
// all such.
func blindInverted(e *Estimator, users []int, blind []float64) int {
	if e.Cost != CostInversion && e.Cost != CostInversionEach {
		return -1
	}
	first, all := -1, true
	for j, n := range users {
		if n == 0 {
			continue
		}
		if blind[j] > 0 && first < 0 {
			first = j
		}
		all = all && blind[j] > 0
	}
	if e.Single || e.PerMechanism || all {
		return first
	}
	return -1
}

// blindNotInvertible says that Shokri's mechanism j, its quality bound
// at or above p, reports one symbol and cannot be inverted.
func blindNotInvertible(method Method, s *Study, j int, p float64) error {
	q := "its quality bound"
	if s != nil && j < len(s.Mechanisms) {
		q = fmt.Sprintf("its quality bound %g", s.Mechanisms[j].QualityLoss)
	}
	return fmt.Errorf("core: %s cannot invert mechanism %s (shokri): %s is at or above %.4g, the loss of reporting one fixed symbol, "+
		"which is then the optimum and tells nothing of the input; lower Q below %.4g, or use GIBU or IBU", method, mechName(s, j), q, p, p)
}

// capsApplicable returns why estimator e cannot take the reports of
// mechanism j, whose kind has capabilities caps, or nil: the first
// capability, in the order of their bits, that e refuses and caps has or
// that e needs and caps lacks, in that capability's words.
func capsApplicable(e *Estimator, caps Caps, s *Study, j int) error {
	for c := CapBits; c <= capLast; c <<= 1 {
		switch {
		case e.Refuses&c != 0 && caps&c != 0:
			return capReason(c, true, e.Method, s, j)
		case e.Needs&c != 0 && caps&c == 0:
			return capReason(c, false, e.Method, s, j)
		}
	}
	return nil
}

// capReason says why method cannot take mechanism j, which has
// capability c when refused, and lacks it otherwise.
func capReason(c Caps, refused bool, method Method, s *Study, j int) error {
	switch {
	case (c == CapBits || c == CapHashed) && refused:
		return bitVectorsNotInvertible(method, s, j, capNames[c])
	case c == CapPersonal && refused:
		return pumNeedsULDP(s, j)
	case c == CapRAPPOR && !refused:
		return rapNeedsRAPPOR(s, j)
	case c == CapUtility && !refused:
		return uldpNeedsULDP(s, j)
	case refused:
		return fmt.Errorf("core: %s cannot take mechanism %s (%s): its reports are %s", method, mechName(s, j), mechKind(s, j), capNames[c])
	}
	return fmt.Errorf("core: %s needs mechanisms whose reports are %s; mechanism %s is %s", method, capNames[c], mechName(s, j), mechKind(s, j))
}

// capNames describe the capabilities in capReason's words.
var capNames = map[Caps]string{
	CapBits:     "bit vectors",
	CapRAPPOR:   "basic RAPPOR's flipped bits",
	CapUtility:  "utility-optimized",
	CapPersonal: "on an alphabet extended by personal tags",
	CapHashed:   "hashed values with their seeds",
	CapOracle:   "a frequency oracle's (krr, rappor, oue, olh, blh, ss or hr)",
}

// pumNeedsULDP says that mechanism j, a PUM, is estimated with uldp only.
func pumNeedsULDP(s *Study, j int) error {
	return fmt.Errorf("core: mechanism %s is a pum, whose reports live on the extended alphabet: estimate them with uldp", mechName(s, j))
}

// bitVectorsNotInvertible says that method, a matrix inversion or
// [IBU]_M on one channel matrix, cannot take mechanism j's reports,
// which are what (bit vectors, hashed values).
func bitVectorsNotInvertible(method Method, s *Study, j int, what string) error {
	return fmt.Errorf("core: %s needs mechanisms with symbol outputs; mechanism %s (%s) reports %s", method, mechName(s, j), mechKind(s, j), what)
}

// rapNeedsRAPPOR says that mechanism j is not RAPPOR.
func rapNeedsRAPPOR(s *Study, j int) error {
	return fmt.Errorf("core: rap needs RAPPOR users; mechanism %s is %s", mechName(s, j), mechKind(s, j))
}

// uldpNeedsULDP says that mechanism j is not utility-optimized.
func uldpNeedsULDP(s *Study, j int) error {
	return fmt.Errorf("core: uldp: mechanism %s: the uldp estimator is for urr, urappor and pum, not %s", mechName(s, j), mechKind(s, j))
}

// An outputCheck makes, from the kinds' records, the checks of the
// mechanisms' output alphabets that the estimators on one channel matrix
// make (symbolChannels, invert): those that refuse bit vectors.
type outputCheck struct {
	e              *Estimator
	s              *Study
	outputs, first int
}

// inversion reports whether c's estimator inverts the channel matrix.
func (c *outputCheck) inversion() bool {
	return c.e.Cost == CostInversion || c.e.Cost == CostInversionEach
}

// add checks mechanism j's outputs: alone against the inputs for an
// estimator per mechanism, else against the first mechanism's.
func (c *outputCheck) add(j int) error {
	if c.e.Refuses&(CapBits|CapHashed) == 0 {
		return nil
	}
	kind, _ := c.s.Mechanisms[j].Kind.Info()
	o := kind.outputsOn(c.s.Alphabet.Len())
	switch {
	case c.e.PerMechanism && c.inversion() && o != c.s.Alphabet.Len():
		return notSquare(c.s.Alphabet.Len(), o)
	case c.e.PerMechanism:
	case c.first >= 0 && o != c.outputs:
		return notCommon(c.e.Method, c.s, c.first, c.outputs, j, o)
	case c.first < 0:
		c.outputs, c.first = o, j
	}
	return nil
}

// square checks that an inversion of the common matrix has as many
// outputs as inputs.
func (c *outputCheck) square() error {
	if c.first < 0 || c.e.PerMechanism || !c.inversion() || c.outputs == c.s.Alphabet.Len() {
		return nil
	}
	return notSquare(c.s.Alphabet.Len(), c.outputs)
}

// notCommon says that method needs one output alphabet where mechanism
// first has outputs symbols and j has o.
func notCommon(method Method, s *Study, first, outputs, j, o int) error {
	return fmt.Errorf("core: %s needs a common output alphabet: mechanism %s has %d outputs, %s has %d",
		method, mechName(s, first), outputs, mechName(s, j), o)
}

// notSquare says that a channel of k inputs and z outputs cannot be
// inverted.
func notSquare(k, z int) error {
	return fmt.Errorf("core: the channel has %d inputs and %d outputs; matrix inversion needs as many of each", k, z)
}
