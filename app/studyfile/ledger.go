package studyfile

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"

	"github.com/privmap/privmap/app/ledger"
)

// A Ledger is the study's member "ledger" that privmap wrote before the
// budget moved into the organisation's database (package app/ledger,
// package app/release's doc): every publication one entry, and the budget
// set. It is still read, and imported into the database once; privmap
// no longer writes it (docs/FILES.md).
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

// Import imports the member into the ledger's database db as data set
// dataset, once (the database remembers the member's SHA-256): its
// budget and its publications, each noted as imported, study naming the
// study file. It reports whether it imported.
func (l *Ledger) Import(ctx context.Context, db *ledger.DB, dataset, study string) (bool, error) {
	b, err := json.Marshal(l)
	if err != nil {
		return false, err
	}
	sum := sha256.Sum256(b)
	var pubs []ledger.Entry
	for _, e := range l.Entries {
		pubs = append(pubs, ledger.Entry{Date: e.Date, Mechanism: e.Mechanism, Sensitivity: e.Sensitivity, Epsilon: ledger.EpsString(e.Epsilon),
			Output: e.Output, OutputSHA256: e.SHA256, Study: study})
	}
	return db.Import(ctx, dataset, hex.EncodeToString(sum[:]), l.Budget, pubs)
}
