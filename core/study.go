package core

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
)

// A MechanismSpec is one mechanism users of a study may pick, as stored in
// the study file. Fields that a kind does not use are omitted.
type MechanismSpec struct {
	ID   string        `json:"id"`
	Kind MechanismKind `json:"kind"`
	// Epsilon is ε: per km for planar-geometric, per step for geometric.
	Epsilon float64 `json:"epsilon,omitempty"`
	// Share is the fraction of users assigned to the mechanism in
	// simulation; when no mechanism gives one, shares are equal.
	Share *float64 `json:"share,omitempty"`
	// QualityLoss is Shokri's bound Q on the expected distance.
	QualityLoss float64 `json:"quality_loss,omitempty"`
	// Sensitive lists the sensitive symbols X_S of uRR, uRAP and PUM
	// (for PUM, the common ones; it may be empty).
	Sensitive []int `json:"sensitive,omitempty"`
	// G is the range of OLH's hash, 2..MaxHashes; 0 (omitted) for its
	// optimum round(e^ε + 1). It extends the study format of
	// docs/FILES.md compatibly.
	G int `json:"g,omitempty"`
	// Base is PUM's common mechanism on the extended alphabet, urr (the
	// default) or urappor; Tags names its semantic tags ⊥_1..⊥_κ, which
	// are symbols K, K+1, … of the extended alphabet. Both extend
	// the study format of docs/FILES.md compatibly.
	Base MechanismKind `json:"base,omitempty"`
	Tags []string      `json:"tags,omitempty"`
}

// A Study is the alphabet and the mechanisms of a study file
// (docs/FILES.md).
type Study struct {
	Alphabet   Alphabet        `json:"alphabet"`
	Mechanisms []MechanismSpec `json:"mechanisms"`
	// Data optionally lists the true symbol of every datum (one per user
	// under privmap grid's -per-user first), so that a simulation can
	// sanitise the real data rather than draws from their distribution. It
	// extends the study format of docs/FILES.md compatibly: readers
	// may ignore it.
	Data []int `json:"data,omitempty"`
	// Personal optionally gives, for each semantic tag, the personal
	// sensitive cell of every datum's user (−1 for none), parallel to Data:
	// what PUM's users map to the tag (ULDP §5). privmap grid -home writes
	// tag "home", each user's most frequent cell. It extends the study format
	// of docs/FILES.md compatibly.
	Personal map[string][]int `json:"personal,omitempty"`
	// People optionally gives the person of every datum, parallel to
	// Data: the unit of privacy, whose reports compose and whose data a
	// release's sensitivity bounds (privmap grid writes it, numbering
	// the people 0, 1, …). Without it every datum is a person of its own,
	// as a census record is. MaxPerPerson is the bound on each person's
	// data the data were selected under (privmap grid's -per-user: 1 for
	// first, K), 0 when none was set. Both extend the study format of
	// docs/FILES.md compatibly.
	People       []int `json:"people,omitempty"`
	MaxPerPerson int   `json:"max_per_person,omitempty"`
	// PeopleUnknown says the data do not say who contributed which
	// datum (a check-in file without a person column): each datum is
	// counted alone, and what privmap states protects data (records),
	// not people. It goes without People and MaxPerPerson, and extends
	// the study format compatibly.
	PeopleUnknown bool `json:"people_unknown,omitempty"`

	// Extensions holds the top-level members that a layer above core
	// stores with the study (privmap's window keeps its data source and
	// run settings there), as raw JSON that core neither reads nor
	// changes. ReadStudy accepts only the members it is told of, so a
	// misspelt member is still an error.
	Extensions map[string]json.RawMessage `json:"-"`
}

// shareTolerance is how far shares may sum from 1.
const shareTolerance = 1e-9

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
	if err := s.validatePeople(); err != nil {
		return err
	}
	_, err := s.Shares()
	return err
}

// validatePeople checks that People gives one person (≥ 0) per datum and
// that no person has more data than MaxPerPerson.
func (s *Study) validatePeople() error {
	if s.MaxPerPerson < 0 {
		return fmt.Errorf("core: max_per_person %d: want a positive whole number, or none", s.MaxPerPerson)
	}
	if s.PeopleUnknown && (s.People != nil || s.MaxPerPerson > 0) {
		return errors.New("core: people_unknown with people or max_per_person: the data either say who contributed which datum or do not")
	}
	if s.People == nil {
		return nil
	}
	if len(s.People) != len(s.Data) {
		return fmt.Errorf("core: people gives %d persons for %d data", len(s.People), len(s.Data))
	}
	for i, p := range s.People {
		if p < 0 || p >= len(s.Data) {
			return fmt.Errorf("core: datum %d has person %d, outside 0..%d", i+1, p, len(s.Data)-1)
		}
	}
	if _, most := s.Contributions(); s.MaxPerPerson > 0 && most > s.MaxPerPerson {
		return fmt.Errorf("core: a person has %d data, more than max_per_person %d", most, s.MaxPerPerson)
	}
	return nil
}

// Unit names what the study's data protect: "person" when People says
// who contributed which datum, or each datum is a person's one (a census
// record: MaxPerPerson 1), else "record".
func (s *Study) Unit() string {
	if s.People != nil || !s.PeopleUnknown && s.MaxPerPerson == 1 {
		return "person"
	}
	return "record"
}

// Contributions returns how many people the data hold and the most data
// one of them contributes: from People, or one datum a person without
// it.
func (s *Study) Contributions() (people, most int) {
	if s.People == nil {
		return len(s.Data), min(1, len(s.Data))
	}
	per := make(map[int]int, len(s.People)/4+1)
	for _, p := range s.People {
		per[p]++
		most = max(most, per[p])
	}
	return len(per), most
}

// Sensitivity returns Δ, the most one person changes a count of the
// data under add/remove-one-person neighbours (the L1 sensitivity of the
// histogram), and whether it is the bound the data were selected under
// (MaxPerPerson) rather than the largest contribution read off the data,
// which itself depends on them.
func (s *Study) Sensitivity() (delta int, bound bool) {
	if s.MaxPerPerson > 0 {
		return s.MaxPerPerson, true
	}
	_, most := s.Contributions()
	return max(most, 1), false
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
			return nil, fmt.Errorf("core: the study has no personal data for tag %q", t)
		}
		out[k] = cells
	}
	return out, nil
}

func (m MechanismSpec) validate(a Alphabet) error {
	if strings.TrimSpace(m.ID) == "" {
		return errors.New("no id")
	}
	if strings.TrimSpace(m.ID) != m.ID {
		// Report files' readers trim their fields: " k1 " would be
		// written by simulate and not found by estimate.
		return fmt.Errorf("id %q begins or ends with a space; write it as %q", m.ID, strings.TrimSpace(m.ID))
	}
	k, ok := m.Kind.Info()
	if !ok {
		return fmt.Errorf("unknown kind %q (want %s)", m.Kind, kindNames())
	}
	if k.Alphabets != nil && !slices.Contains(k.Alphabets, a.Kind) {
		return fmt.Errorf("kind %s needs a %s alphabet, not %s", m.Kind, joinKinds(k.Alphabets, " or "), a.Kind)
	}
	if err := m.validateParams(k, a); err != nil {
		return err
	}
	if m.Share != nil && (!(*m.Share >= 0) || *m.Share > 1) {
		return fmt.Errorf("share must be in [0, 1], got %v", *m.Share)
	}
	return nil
}

// validateParams checks ε, Shokri's quality loss and the sensitive set
// against what the kind takes.
func (m MechanismSpec) validateParams(k Kind, a Alphabet) error {
	switch {
	case k.Param == ParamEpsilon:
		if err := checkEpsilon(m.Epsilon); err != nil {
			return errors.New(strings.TrimPrefix(err.Error(), "core: "))
		}
	case m.Epsilon != 0:
		return fmt.Errorf("kind %s takes no epsilon", m.Kind)
	}
	if k.Param == ParamQualityLoss {
		if !(m.QualityLoss > 0) || math.IsInf(m.QualityLoss, 0) {
			return fmt.Errorf("quality_loss must be positive and finite, got %v", m.QualityLoss)
		}
	} else if m.QualityLoss != 0 {
		return fmt.Errorf("kind %s takes no quality_loss", m.Kind)
	}
	if k.Hashes && m.G != 0 && (m.G < 2 || m.G > MaxHashes) {
		return fmt.Errorf("g must be in 2..%d hash values, got %d", MaxHashes, m.G)
	} else if !k.Hashes && m.G != 0 {
		return fmt.Errorf("kind %s takes no g", m.Kind)
	}
	return m.validateULDP(k, a)
}

// validateULDP checks the sensitive set, and PUM's tags and base.
func (m MechanismSpec) validateULDP(k Kind, a Alphabet) error {
	if k.Sensitive && (len(m.Sensitive) > 0 || !k.Personal) {
		if _, _, err := sensitiveSet(a.Len(), m.Sensitive); err != nil {
			return errors.New(strings.TrimPrefix(err.Error(), "core: "))
		}
	} else if len(m.Sensitive) > 0 {
		return fmt.Errorf("kind %s takes no sensitive set", m.Kind)
	}
	if k.Personal {
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

// joinKinds joins kinds with sep.
func joinKinds[K ~string](kinds []K, sep string) string {
	s := make([]string, len(kinds))
	for i, k := range kinds {
		s[i] = string(k)
	}
	return strings.Join(s, sep)
}

// joinLast joins names with sep, the last two with last: "a, b or c".
func joinLast[K ~string](names []K, sep, last string) string {
	s := joinKinds(names, sep)
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s
	}
	return s[:i] + last + s[i+len(sep):]
}
