package release

import (
	"fmt"

	"github.com/privmap/privmap/app/guarantee"
	"github.com/privmap/privmap/app/human"
)

// A Line is privmap release's JSON line, which its record keeps and
// the window's report writes alike: the fields docs/COMMANDS.md
// names, then budget_pm (PM Table I's reading of the budget), the
// person's split, secure and the number of cells.
type Line struct {
	Mechanism string  `json:"mechanism"`
	WorstEps  float64 `json:"worst_eps"`
	Budget    float64 `json:"budget"`
	AbsMean   float64 `json:"abs_mean"`
	Variance  float64 `json:"variance"`
	Entropy   float64 `json:"entropy"`
	MAE       float64 `json:"mae"`
	MRE       float64 `json:"mre"`
	PWithin   float64 `json:"p_within"`
	BudgetPM  float64 `json:"budget_pm"`
	// WorstSplit is how the person's Δ records fall among the cells at
	// the worst case; BudgetExact is false when the splits were too many
	// to enumerate, and Budget and BudgetPM are the worst case, their
	// bound (package app/release's doc).
	WorstSplit  []int `json:"worst_split,omitempty"`
	BudgetExact bool  `json:"budget_exact"`
	// BoundInAdvance is false when Δ was read off the data: then the
	// figures are not a differential-privacy guarantee, and -secure is
	// refused (guarantee.Contribution.InAdvance).
	BoundInAdvance bool `json:"bound_in_advance"`
	Secure         bool `json:"secure"`
	Cells          int  `json:"cells"`
	// Sensitivity is Δ; MaxPerPerson the most records one person
	// contributes (before clipping; absent without a study, which alone
	// says who contributed which), RecordsDropped those clipping dropped,
	// and Neighbours the neighbouring relation in words.
	Sensitivity    int    `json:"sensitivity"`
	MaxPerPerson   *int   `json:"max_contributions_per_person,omitempty"`
	RecordsDropped int    `json:"records_dropped"`
	Neighbours     string `json:"neighbours"`
	// Unit is whom the figures protect: "person", or "record" when the
	// data do not say who contributed which.
	Unit string `json:"unit"`
	// LedgerSpent is the ε publications of the study's data have spent,
	// this one included when it is published (-secure), and
	// LedgerBudget the budget set (0 for none); both with -study only.
	LedgerSpent  *float64   `json:"ledger_spent,omitempty"`
	LedgerBudget *float64   `json:"ledger_budget,omitempty"`
	Ledger       *LedgerRef `json:"ledger,omitempty"`
	// SmallCells counts the cells whose true count comes from one or
	// two people, Suppressed the released counts -suppress set to 0.
	SmallCells int `json:"small_cells"`
	Suppressed int `json:"suppressed"`
	// With -ci: the level, and the half-widths of the interval of each
	// true count alone and of every one at once.
	CILevel *float64 `json:"ci_level,omitempty"`
	CIEach  *int     `json:"ci_each,omitempty"`
	CIAll   *int     `json:"ci_all,omitempty"`
	// Accuracy says the interval in words as it holds, suppression and
	// clipping included (release.Interval.Statement).
	Accuracy string `json:"accuracy,omitempty"`
	// EpsIn, EpsOut and Break are the noise's parameters as given (the
	// same ε twice for the standard mechanisms, whose Break is 0).
	EpsIn  float64 `json:"eps_in"`
	EpsOut float64 `json:"eps_out"`
	Break  float64 `json:"break"`
}

// A LedgerRef names where a release's data set is accounted: the
// ledger's database, the data set, this publication's entry (0 for a
// preview) and the chain's head after it, which pins the ledger.
type LedgerRef struct {
	Path    string `json:"path"`
	Dataset string `json:"dataset"`
	Entry   int64  `json:"entry,omitempty"`
	Head    string `json:"head"`
}

// Facts are what a release line says of: the noise, its
// summary for a person (Spec.PersonSummary), whom it protects,
// how it was drawn and what it made.
type Facts struct {
	Spec              Spec
	Summary           Summary
	Contribution      guarantee.Contribution
	Secure            bool
	Cells             int
	MAE, MRE, PWithin float64
	Suppressed        int
	Interval          *Interval // nil without an interval
	Accuracy          Accuracy
}

// NewLine returns the JSON line of a release: privmap release
// prints it and the window's report writes it, so that both say the same.
func NewLine(f Facts) *Line {
	sum, c := f.Summary, f.Contribution
	l := &Line{Mechanism: f.Spec.Mechanism, WorstEps: sum.WorstEps, Budget: sum.Budget,
		AbsMean: sum.AbsMean, Variance: sum.Variance, Entropy: sum.Entropy, MAE: f.MAE, MRE: f.MRE, PWithin: f.PWithin,
		BudgetPM: sum.BudgetPM, BudgetExact: true, BoundInAdvance: c.InAdvance(), Secure: f.Secure, Cells: f.Cells,
		Sensitivity: c.Sensitivity, RecordsDropped: c.Dropped, Neighbours: c.Neighbours(), Unit: c.Unit(),
		SmallCells: c.SmallCells, Suppressed: f.Suppressed, EpsIn: f.Spec.EpsIn, EpsOut: f.Spec.EpsOut}
	if f.Spec.Mixture() {
		l.Break = f.Spec.Break
	}
	if p := sum.Person; p != nil {
		l.WorstSplit, l.BudgetExact = p.WorstSplit, p.BudgetExact
	}
	if iv := f.Interval; iv != nil {
		l.CILevel, l.CIEach, l.CIAll = &iv.Level, &iv.Each, &iv.All
		l.Accuracy = iv.Statement(f.Accuracy)
	}
	if c.Known {
		largest := c.Largest
		l.MaxPerPerson = &largest
	}
	return l
}

// Level says the line's ε in words, with their units: "ε 1 nats for
// every count", "ε 0.25 within the break-point 6 and 2.5 beyond it".
func (l *Line) Level() string {
	if l.EpsIn == l.EpsOut && l.Break == 0 {
		return "ε " + human.Eps(l.EpsIn) + " nats for every count"
	}
	return fmt.Sprintf("ε %s within the break-point %s and %s beyond it", human.Eps(l.EpsIn), human.Eps(l.Break), human.Eps(l.EpsOut))
}
