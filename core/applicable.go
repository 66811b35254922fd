package core

import "fmt"

// Applicable returns nil if method can estimate the distribution from the
// reports of the study's mechanisms that have users (a positive share),
// else the reason it cannot. It makes, from the mechanisms' kinds alone
// and before any report is drawn, the checks of the kinds of mechanisms
// that Reconstruct makes on the built mechanisms, in the same words, so
// that a front end can offer only the estimators that apply.
func (s *Study) Applicable(method Method) error {
	if _, ok := estimators[method]; !ok {
		return fmt.Errorf("core: unknown method %q (want %s)", method, MethodNames(", ", " or "))
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
	for j, n := range users {
		if n > 0 && s.Mechanisms[j].Kind == KindPUM && method != MethodULDP {
			return pumNeedsULDP(s, j)
		}
	}
	switch method {
	case MethodIBU, MethodINV, MethodRAP:
		if err := oneMechanism(method, s, users); err != nil {
			return err
		}
	}
	for j, n := range users {
		if n > 0 {
			if err := s.kindApplicable(method, j); err != nil {
				return err
			}
		}
	}
	return nil
}

// kindApplicable returns why method cannot take the reports of mechanism
// j's kind, or nil.
func (s *Study) kindApplicable(method Method, j int) error {
	kind := s.Mechanisms[j].Kind
	switch method {
	case MethodINV, MethodINVM, MethodINVR, MethodIBUM:
		if kind == KindRAPPOR || kind == KindURAP {
			return bitVectorsNotInvertible(method, s, j)
		}
	case MethodRAP, MethodRAPM, MethodRAPR:
		if kind != KindRAPPOR {
			return rapNeedsRAPPOR(s, j)
		}
	case MethodULDP:
		if kind != KindURR && kind != KindURAP && kind != KindPUM {
			return uldpNeedsULDP(s, j)
		}
	}
	return nil
}

// pumNeedsULDP says that mechanism j, a PUM, is estimated with uldp only.
func pumNeedsULDP(s *Study, j int) error {
	return fmt.Errorf("core: mechanism %s is a pum, whose reports live on the extended alphabet: estimate them with uldp", mechName(s, j))
}

// bitVectorsNotInvertible says that method, a matrix inversion or
// [IBU]_M on one channel matrix, cannot take mechanism j's bit vectors.
func bitVectorsNotInvertible(method Method, s *Study, j int) error {
	return fmt.Errorf("core: %s needs mechanisms with symbol outputs; mechanism %s (%s) reports bit vectors", method, mechName(s, j), mechKind(s, j))
}

// rapNeedsRAPPOR says that mechanism j is not RAPPOR.
func rapNeedsRAPPOR(s *Study, j int) error {
	return fmt.Errorf("core: rap needs RAPPOR users; mechanism %s is %s", mechName(s, j), mechKind(s, j))
}

// uldpNeedsULDP says that mechanism j is not utility-optimized.
func uldpNeedsULDP(s *Study, j int) error {
	return fmt.Errorf("core: uldp: mechanism %s: the uldp estimator is for urr, urappor and pum, not %s", mechName(s, j), mechKind(s, j))
}
