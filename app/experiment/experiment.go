// Package experiment reproduces the papers' experiments: a named
// experiment is one published figure, its panels each an alphabet with a
// truth, settings along the figure's x-axis (numbers of users, a share of
// sensitive symbols, a privacy level), the populations of mechanisms that
// users sanitise with at each setting, and the estimators the figure
// compares, run over repeated runs. Every run draws from a seed of its own
// (Seed), so results do not depend on the order or the number of workers,
// and a run once finished need not be run again.
package experiment

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/privmap/privmap/core"
)

// A Variant is one estimator as a figure compares it: a method and, for
// the inversions and RAPPOR's estimator, its post-processing, or an
// estimator of the figure's own (CEM's Uniform, ObfDat and MatInv).
type Variant struct {
	Label  string // as the figure's legend names it
	Method core.Method
	Post   core.Post
	// ULDP tunes the ULDP estimator (PUM's background distributions).
	ULDP core.ULDPOptions
	// Pop is the population of the setting whose reports it estimates
	// from (0 unless a figure compares several mechanisms, each used by
	// all the users).
	Pop int
	// Estimate, when set, is used instead of Method.
	Estimate Estimator
	// Reference marks a floor to read the others against (no privacy),
	// not a contender for the summary's best.
	Reference bool
	// CI is the interval method the coverage experiment measures
	// (core.IntervalBootstrap when empty).
	CI core.IntervalMethod
}

// An Estimator is an estimator that core.Reconstruct does not offer.
type Estimator func(ctx context.Context, in Input) ([]float64, error)

// Input is what an Estimator estimates from: the population's study and
// built mechanisms and the run's grouped reports.
type Input struct {
	Study  *core.Study
	Mechs  []core.Mechanism
	Groups *core.Groups
}

// A Population is the mechanisms of a study and how many users use each.
// When the study lists its data (core.Study.Data), the users are those
// data, sanitised as they are (with their personal cells for PUM,
// Study.Personal); otherwise every run draws the users' data from the
// panel's truth.
type Population struct {
	Study *core.Study
	Users []int // users of each mechanism, in the study's order
}

// N returns the population's number of users.
func (p Population) N() int {
	n := 0
	for _, u := range p.Users {
		n += u
	}
	return n
}

// A Setting is one point of a panel's x-axis.
type Setting struct {
	// Name is the setting as runs.csv records it (e.g. the preset, or
	// "N4=10"); with the users it tells the settings of a panel apart.
	Name string
	// X places it on the figure's x-axis.
	X float64
	// Pops are the populations the variants estimate from; each run
	// sanitises every one.
	Pops []Population
	// N is the setting's number of users (or samples) when it has no
	// populations (a panel that measures with Measure).
	N int
}

// Users returns the setting's number of users: its first population's,
// else N.
func (s Setting) Users() int {
	if len(s.Pops) == 0 {
		return s.N
	}
	return s.Pops[0].N()
}

// A Metric is an error of an estimate against the truth
// (package core/emd's doc).
type Metric string

// The metrics of the figures.
const (
	EMD Metric = "emd"
	MSE Metric = "mse" // squared error Σ(p − p̂)² of one run; its mean over runs is the MSE
	JSD Metric = "jsd"
	TV  Metric = "tv"
	// The central release's (PM): the noise's closed forms and budget,
	// and a release's errors and privacy loss.
	AbsMean  Metric = "abs_mean"
	Variance Metric = "variance"
	Entropy  Metric = "entropy"
	BudgetPM Metric = "budget_pm" // PM Table I's reading, ln E e^{|L|}
	PWithin  Metric = "p_within"  // P(|error| ≤ bound)
	MRE      Metric = "mre"       // PM eq. 36
	Loss     Metric = "privacy_loss"
)

// A Panel is one panel of a figure.
type Panel struct {
	Name  string // "a", "b"
	Title string
	// Setting names the population (a preset) when the settings differ
	// only in their users; the figure's heading.
	Setting  string
	Alphabet core.Alphabet
	Truth    []float64
	// XLabel names the x-axis; LogX and LogY choose logarithmic axes.
	XLabel     string
	LogX, LogY bool
	Metrics    []Metric
	Settings   []Setting
	Variants   []Variant
	// Box draws each setting's runs as box plots (CEM Fig. 8) instead of
	// means with intervals.
	Box bool
	// Paired names two variants whose runs the summary compares pair by
	// pair: their correlation and a paired t-test (CEM Fig. 9).
	Paired [2]string
	// Measure, when set, replaces sanitising and estimating: it returns
	// the values of the metrics of variant vi at setting si in one run
	// drawing from rng (the central release's experiments).
	Measure func(ctx context.Context, rng *rand.Rand, si, vi int) ([]float64, error)
	// Scatter draws the means as marks without lines (settings that are
	// not a sequence); NoBest leaves out the summary's best column (values
	// that are not errors); ByName heads the summary's rows with the
	// settings' names rather than their x.
	Scatter, NoBest, ByName bool
	// MeasuredX: the settings' x are measured (an attacker's success),
	// not chosen, and the axis takes round ticks rather than theirs.
	MeasuredX bool
}

// Unit returns the unit of metric m on the panel's alphabet.
func (p Panel) Unit(m Metric) string {
	switch m {
	case EMD:
		if p.Alphabet.Kind == core.KindGrid {
			return "km"
		}
		return "steps"
	case JSD, Entropy, BudgetPM, Loss:
		return "nats"
	}
	return ""
}

// Users says what privmap experiment's -users means for an experiment.
type Users int

const (
	// UsersAxis: the numbers of users are the x-axis, and -users lists
	// them.
	UsersAxis Users = iota
	// UsersOne: every setting has the same number of users, which -users
	// sets (one value).
	UsersOne
	// UsersFixed: the paper fixes every setting's users; -users is
	// refused.
	UsersFixed
)

// DataKind is the kind of data file an experiment's -data takes.
type DataKind int

const (
	// NoData: the experiment generates its data (FW's linear alphabet).
	NoData DataKind = iota
	// CheckinData: check-ins, gridded (FW's planar panels, ULDP).
	CheckinData
	// CensusData: a census file on CEM Table 2's attributes.
	CensusData
	// RecordData: a census file's records on chosen attributes (the
	// central release's count queries).
	RecordData
)

// An Experiment is one published figure.
type Experiment struct {
	Name  string
	Title string // what it reproduces
	// Claim is what the paper says the figure shows, for the summary.
	Claim string
	// Runs and Users are the defaults: runs at each setting, reduced from
	// the paper's 100 so that the experiment finishes within minutes on
	// two cores, and the users (see UsersRole).
	Runs      int
	Users     []int
	UsersRole Users
	// Data is the kind of data its panels need besides its own.
	Data DataKind
	// panels builds the panels from the data (nil for NoData) and the
	// users.
	panels func(d *Data, users []int) ([]Panel, error)
	// rank is the order of registration.
	rank int
}

// Data are the data an experiment's panels are built on: gridded
// check-ins or a census table.
type Data struct {
	Alphabet core.Alphabet
	Truth    []float64
	// Symbols is every datum's symbol (one per user), and Homes, for
	// check-ins gridded with homes, the home cell of each datum's user.
	Symbols, Homes []int
	// Records holds, for record data, each attribute's value of every
	// record as a code, attribute by attribute; Values the number of
	// values of each attribute and Attrs their names.
	Records [][]uint16
	Values  []int
	Attrs   []string
	// Source names the data (a file's name, or the embedded data's).
	Source string
	// StandIn, when not empty, says how the data stand in for the
	// paper's.
	StandIn string
}

// Panels returns the experiment's panels on d (nil when the experiment
// needs no data) with the given users (nil for the defaults).
func (e *Experiment) Panels(d *Data, users []int) ([]Panel, error) {
	if e.Data != NoData && d == nil {
		return nil, fmt.Errorf("experiment %s needs data", e.Name)
	}
	if users == nil {
		users = e.Users
	}
	if len(users) == 0 && e.UsersRole != UsersFixed {
		return nil, fmt.Errorf("experiment %s: no numbers of users", e.Name)
	}
	return e.panels(d, users)
}

// List returns the experiments by paper, in the order each paper's are
// registered (its figures').
func List() []*Experiment {
	out := make([]*Experiment, 0, len(registry))
	for _, e := range registry {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := family(out[i].Name), family(out[j].Name)
		if a != b {
			return a < b
		}
		return out[i].rank < out[j].rank
	})
	return out
}

// families orders the papers' experiments as the papers are cited.
var families = map[string]int{"fw": 1, "cem": 2, "uldp": 3, "pm": 4, "coverage": 5}

// family returns the rank of the paper of an experiment's name.
func family(name string) int {
	fam, _, _ := strings.Cut(name, "-")
	return families[fam]
}

// Lookup returns the experiment called name.
func Lookup(name string) (*Experiment, error) {
	if e, ok := registry[name]; ok {
		return e, nil
	}
	var names []string
	for _, e := range List() {
		names = append(names, e.Name)
	}
	return nil, fmt.Errorf("unknown experiment %q (want %s)", name, strings.Join(names, ", "))
}

var registry = map[string]*Experiment{}

// register adds experiments to the registry.
func register(es ...*Experiment) {
	for _, e := range es {
		if _, dup := registry[e.Name]; dup {
			panic("experiment: " + e.Name + " registered twice")
		}
		e.rank = len(registry)
		registry[e.Name] = e
	}
}

// assign splits n users among a study's mechanisms by their shares
// (equal when the study gives none, as FW §8 divides the users), with
// core.Assign.
func assign(s *core.Study, n int) ([]int, error) {
	shares, err := s.Shares()
	if err != nil {
		return nil, err
	}
	return core.Assign(shares, n), nil
}
