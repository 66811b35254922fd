package core

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
)

// Mechanism kinds of a study file (DESIGN §7).
const (
	KindKRR      = "krr"
	KindRAPPOR   = "rappor"
	KindGeo      = "geometric"
	KindPlanar   = "planar-geometric"
	KindShokri   = "shokri"
	KindURR      = "urr"
	KindURAP     = "urappor"
	KindPUM      = "pum"
	KindIdentity = "identity"
)

// kinds lists the mechanism kinds with the alphabets they accept (nil:
// any) and whether they take ε and a sensitive set.
var kinds = map[string]struct {
	alphabets []string
	epsilon   bool
	sensitive bool
}{
	KindKRR:      {nil, true, false},
	KindRAPPOR:   {nil, true, false},
	KindGeo:      {[]string{KindLinear}, true, false},
	KindPlanar:   {[]string{KindGrid}, true, false},
	KindShokri:   {[]string{KindLinear, KindGrid}, false, false},
	KindURR:      {nil, true, true},
	KindURAP:     {nil, true, true},
	KindPUM:      {nil, true, true},
	KindIdentity: {nil, false, false},
}

// shareTolerance is how far shares may sum from 1.
const shareTolerance = 1e-9

// ReadStudy reads and validates a study file. Syntax errors carry the
// line; unknown fields are errors, so that a misspelt "epsilon" is not
// silently ignored.
func ReadStudy(r io.Reader) (*Study, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var s Study
	if err := dec.Decode(&s); err != nil {
		return nil, jsonError(b, err)
	}
	if dec.More() {
		return nil, errors.New("core: study: unexpected data after the JSON object")
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

// jsonError adds the line of a JSON syntax or type error.
func jsonError(b []byte, err error) error {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 {
		return fmt.Errorf("core: study: %w", err)
	}
	line := 1 + bytes.Count(b[:min(int(off), len(b))], []byte("\n"))
	return fmt.Errorf("core: study: line %d: %w", line, err)
}

// Validate reports the first problem of s: its alphabet, then each
// mechanism (unknown kind, ε not positive and finite, duplicate id,
// sensitive symbols out of range or repeated, a kind that does not fit
// the alphabet), then the shares (all given and summing to 1 within 1e−9,
// or none given).
func (s *Study) Validate() error {
	if err := s.Alphabet.Validate(); err != nil {
		return err
	}
	ids := make(map[string]bool, len(s.Mechanisms))
	for i, m := range s.Mechanisms {
		if err := m.validate(s.Alphabet); err != nil {
			return fmt.Errorf("core: mechanism %d (%q): %w", i+1, m.ID, err)
		}
		if ids[m.ID] {
			return fmt.Errorf("core: mechanism id %q is used twice", m.ID)
		}
		ids[m.ID] = true
	}
	for i, x := range s.Data {
		if x < 0 || x >= s.Alphabet.Len() {
			return fmt.Errorf("core: datum %d is symbol %d, outside 0..%d", i+1, x, s.Alphabet.Len()-1)
		}
	}
	if err := s.validatePersonal(); err != nil {
		return err
	}
	_, err := s.Shares()
	return err
}

// validatePersonal checks that every tag of Personal gives one cell
// (or −1) per datum.
func (s *Study) validatePersonal() error {
	for _, tag := range slices.Sorted(maps.Keys(s.Personal)) {
		cells := s.Personal[tag]
		if strings.TrimSpace(tag) == "" {
			return errors.New("core: personal data under an empty tag name")
		}
		if len(cells) != len(s.Data) {
			return fmt.Errorf("core: personal tag %q gives %d cells for %d data", tag, len(cells), len(s.Data))
		}
		for i, x := range cells {
			if x < -1 || x >= s.Alphabet.Len() {
				return fmt.Errorf("core: personal tag %q: datum %d has cell %d, outside −1..%d", tag, i+1, x, s.Alphabet.Len()-1)
			}
		}
	}
	return nil
}

// PersonalOf returns, for the tags of a PUM, the personal cells of datum i
// in the order of tags, or an error naming the first tag the study has no
// personal data for.
func (s *Study) PersonalOf(tags []string) ([][]int, error) {
	out := make([][]int, len(tags))
	for k, t := range tags {
		cells, ok := s.Personal[t]
		if !ok {
			return nil, fmt.Errorf("core: the study has no personal data for tag %q (privmap grid -home writes tag \"home\")", t)
		}
		out[k] = cells
	}
	return out, nil
}

func (m MechanismSpec) validate(a Alphabet) error {
	if strings.TrimSpace(m.ID) == "" {
		return errors.New("no id")
	}
	k, ok := kinds[m.Kind]
	if !ok {
		return fmt.Errorf("unknown kind %q (want krr, rappor, geometric, planar-geometric, shokri, urr, urappor, pum or identity)", m.Kind)
	}
	if k.alphabets != nil && !slices.Contains(k.alphabets, a.Kind) {
		return fmt.Errorf("kind %s needs a %s alphabet, not %s", m.Kind, strings.Join(k.alphabets, " or "), a.Kind)
	}
	if err := m.validateParams(k.epsilon, k.sensitive, a); err != nil {
		return err
	}
	if m.Share != nil && (!(*m.Share >= 0) || *m.Share > 1) {
		return fmt.Errorf("share must be in [0, 1], got %v", *m.Share)
	}
	return nil
}

// validateParams checks ε, Shokri's quality loss and the sensitive set
// against what the kind takes.
func (m MechanismSpec) validateParams(epsilon, sensitive bool, a Alphabet) error {
	switch {
	case epsilon:
		if err := checkEpsilon(m.Epsilon); err != nil {
			return errors.New(strings.TrimPrefix(err.Error(), "core: "))
		}
	case m.Epsilon != 0:
		return fmt.Errorf("kind %s takes no epsilon", m.Kind)
	}
	if m.Kind == KindShokri {
		if !(m.QualityLoss > 0) || math.IsInf(m.QualityLoss, 0) {
			return fmt.Errorf("quality_loss must be positive and finite, got %v", m.QualityLoss)
		}
	} else if m.QualityLoss != 0 {
		return fmt.Errorf("kind %s takes no quality_loss", m.Kind)
	}
	return m.validateULDP(sensitive, a)
}

// validateULDP checks the sensitive set, and PUM's tags and base.
func (m MechanismSpec) validateULDP(sensitive bool, a Alphabet) error {
	if sensitive && (len(m.Sensitive) > 0 || m.Kind != KindPUM) {
		if _, _, err := sensitiveSet(a.Len(), m.Sensitive); err != nil {
			return errors.New(strings.TrimPrefix(err.Error(), "core: "))
		}
	} else if len(m.Sensitive) > 0 {
		return fmt.Errorf("kind %s takes no sensitive set", m.Kind)
	}
	if m.Kind == KindPUM {
		if err := checkTags(m.Tags); err != nil {
			return errors.New(strings.TrimPrefix(err.Error(), "core: "))
		}
		if m.Base != "" && m.Base != BaseURR && m.Base != BaseURAP {
			return fmt.Errorf("base %q: want urr or urappor", m.Base)
		}
	} else if m.Base != "" || len(m.Tags) > 0 {
		return fmt.Errorf("kind %s takes no base or tags", m.Kind)
	}
	return nil
}

// Shares returns the share of users of each mechanism: as given, or equal
// when none is given.
func (s *Study) Shares() ([]float64, error) {
	n := len(s.Mechanisms)
	out := make([]float64, n)
	given, sum := 0, 0.0
	for i, m := range s.Mechanisms {
		if m.Share != nil {
			given++
			out[i] = *m.Share
			sum += *m.Share
		}
	}
	switch {
	case given == 0:
		for i := range out {
			out[i] = 1 / float64(n)
		}
	case given < n:
		return nil, fmt.Errorf("core: %d of %d mechanisms give a share; give all or none", given, n)
	case math.Abs(sum-1) > shareTolerance:
		return nil, fmt.Errorf("core: shares sum to %v, not 1", sum)
	}
	return out, nil
}

// Find returns the mechanism with the given id.
func (s *Study) Find(id string) (MechanismSpec, bool) {
	for _, m := range s.Mechanisms {
		if m.ID == id {
			return m, true
		}
	}
	return MechanismSpec{}, false
}

// Validate reports the first problem with m as a mechanism of a study on
// alphabet a, so that an editor can check one mechanism as it is typed.
func (m MechanismSpec) Validate(a Alphabet) error { return m.validate(a) }
