package app

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"time"
)

// A Ledger keeps count of the privacy a data set has spent on
// publications: every draw for publication (privmap release -secure, the
// window's publication mode) is one entry, and under basic composition
// the ε of releases of the same people add up — two publications at
// ε = 1 are ε = 2 for everyone. Previews, drawn from a seed, are not
// published and not spent. It is the study's member "ledger"
// (docs/ARCHITECTURE.md §7).
type Ledger struct {
	// Budget is the total ε the privacy officer allows on the data set,
	// 0 for none set.
	Budget float64 `json:"budget,omitempty"`
	// Entries are the publications, oldest first.
	Entries []LedgerEntry `json:"entries,omitempty"`
}

// A LedgerEntry is one publication.
type LedgerEntry struct {
	// Date is when it was drawn, RFC 3339 in UTC.
	Date string `json:"date"`
	// Mechanism and Epsilon are the release's noise and its worst-case
	// ε per person at Sensitivity Δ (one count, under
	// add/remove-one-person neighbours when the study names its people).
	Mechanism   string  `json:"mechanism"`
	Epsilon     float64 `json:"epsilon"`
	Sensitivity int     `json:"sensitivity"`
	// Draw is "secure" (exact noise from crypto/rand).
	Draw string `json:"draw"`
	// Output names the file published, and SHA256 its content's hash.
	Output string `json:"output"`
	SHA256 string `json:"sha256"`
}

// Spent returns the ε spent on the data set: the sum of the entries'
// (basic sequential composition).
func (l *Ledger) Spent() float64 {
	if l == nil {
		return 0
	}
	s := 0.0
	for _, e := range l.Entries {
		s += e.Epsilon
	}
	return s
}

// A BudgetError refuses a publication that would spend more than the
// budget.
type BudgetError struct {
	Spent, Eps, Budget float64
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("this release would spend ε = %.4g more on these people, %.4g in all, beyond the budget of %.4g (%.4g spent by %s)",
		e.Eps, e.Spent+e.Eps, e.Budget, e.Spent, "earlier publications")
}

// Check refuses a publication of ε when it would take the total beyond
// the budget (allowing rounding of 1e−9 of it).
func (l *Ledger) Check(eps float64) error {
	if l == nil || l.Budget <= 0 {
		return nil
	}
	if spent := l.Spent(); spent+eps > l.Budget*(1+1e-9) {
		return &BudgetError{Spent: spent, Eps: eps, Budget: l.Budget}
	}
	return nil
}

// Record appends the publication of content as output, of worst-case ε
// at sensitivity Δ with mechanism, drawn now.
func (l *Ledger) Record(now time.Time, mechanism string, eps float64, sensitivity int, output string, content []byte) {
	sum := sha256.Sum256(content)
	l.Entries = append(l.Entries, LedgerEntry{Date: now.UTC().Format(time.RFC3339), Mechanism: mechanism,
		Epsilon: eps, Sensitivity: sensitivity, Draw: "secure", Output: output, SHA256: hex.EncodeToString(sum[:])})
}

// Validate checks the ledger's numbers: a budget and every ε positive
// and finite, every Δ at least 1.
func (l *Ledger) Validate() error {
	if l == nil {
		return nil
	}
	if l.Budget < 0 || math.IsInf(l.Budget, 0) || math.IsNaN(l.Budget) {
		return fmt.Errorf("ledger budget %v: want a positive number of ε, or none", l.Budget)
	}
	for i, e := range l.Entries {
		if !(e.Epsilon > 0) || math.IsInf(e.Epsilon, 0) || e.Sensitivity < 1 {
			return fmt.Errorf("ledger entry %d: ε %v at sensitivity %d: want a positive ε and a sensitivity of at least 1", i+1, e.Epsilon, e.Sensitivity)
		}
	}
	return nil
}
