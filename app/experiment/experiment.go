// Package experiment reproduces the papers' experiments: a named
// experiment is one published figure, its panels each an alphabet with a
// truth, a population of mechanisms and the estimators the figure
// compares, run over numbers of users and repeated runs. Every run draws
// from a seed of its own (Seed), so results do not depend on the order or
// the number of workers, and a run once finished need not be run again.
package experiment

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/privmap/privmap/core"
)

// A Variant is one estimator as a figure compares it: a method and, for
// the inversions and RAPPOR's estimator, its post-processing.
type Variant struct {
	Label  string // as the figure's legend names it
	Method core.Method
	Post   core.Post
}

// A Panel is one panel of a figure.
type Panel struct {
	Name    string // "a", "b"
	Setting string // the population's preset, e.g. "fw-t5"
	Title   string
	Study   *core.Study // the alphabet and the mechanisms, equal shares
	Truth   []float64
	// Unit is the unit of the panel's EMD: "steps" or "km".
	Unit     string
	Variants []Variant
}

// Planar is the data of the planar panels: a grid alphabet and the
// distribution of its users' data, and where they came from.
type Planar struct {
	Alphabet core.Alphabet
	Truth    []float64
	Source   string
}

// An Experiment is one published figure.
type Experiment struct {
	Name  string
	Title string // what it reproduces
	// Runs and Users are the defaults: runs at each number of users,
	// reduced from the paper's 100 so that the experiment finishes within
	// minutes on two cores.
	Runs  int
	Users []int
	// panels builds the panels; planar ones on p's grid.
	panels func(p *Planar) ([]Panel, error)
	// planar says whether a panel needs the planar data.
	planar bool
}

// Panels returns the experiment's panels, the planar ones on p (nil when
// the experiment has none).
func (e *Experiment) Panels(p *Planar) ([]Panel, error) {
	if e.planar && p == nil {
		return nil, fmt.Errorf("experiment %s: its planar panel needs check-in data on a grid", e.Name)
	}
	return e.panels(p)
}

// NeedsPlanar reports whether the experiment has a planar panel.
func (e *Experiment) NeedsPlanar() bool { return e.planar }

// List returns the experiments by name.
func List() []*Experiment {
	out := make([]*Experiment, 0, len(registry))
	for _, e := range registry {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return figureOrder(out[i].Name) < figureOrder(out[j].Name) })
	return out
}

// figureOrder sorts names by family and figure number (fw-fig2 before
// fw-fig10).
func figureOrder(name string) string {
	i := strings.LastIndexFunc(name, func(r rune) bool { return r < '0' || r > '9' })
	if i < len(name)-1 {
		return fmt.Sprintf("%s%04s", name[:i+1], name[i+1:])
	}
	return name
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

// The estimators as FW's figures compare them.
var (
	gibu    = Variant{"GIBU", core.MethodGIBU, core.PostProj}
	ibuM    = Variant{"[IBU]_M", core.MethodIBUM, core.PostProj}
	ibuR    = Variant{"[IBU]_R", core.MethodIBUR, core.PostProj}
	invMP   = Variant{"[INV]_M projection", core.MethodINVM, core.PostProj}
	invMN   = Variant{"[INV]_M normalisation", core.MethodINVM, core.PostNorm}
	invRP   = Variant{"[INV]_R projection", core.MethodINVR, core.PostProj}
	invRN   = Variant{"[INV]_R normalisation", core.MethodINVR, core.PostNorm}
	rapMP   = Variant{"[RAP]_M projection", core.MethodRAPM, core.PostProj}
	rapMN   = Variant{"[RAP]_M normalisation", core.MethodRAPM, core.PostNorm}
	rapRP   = Variant{"[RAP]_R projection", core.MethodRAPR, core.PostProj}
	rapRN   = Variant{"[RAP]_R normalisation", core.MethodRAPR, core.PostNorm}
	fwUsers = []int{1000, 3000, 10000, 30000, 100000}
)

var registry = map[string]*Experiment{}

func init() {
	rappor := func(name, title string, vs ...Variant) {
		registry[name] = &Experiment{Name: name, Title: title, Runs: 10, Users: fwUsers,
			panels: func(*Planar) ([]Panel, error) {
				a, err := linearPanel("a", "fw-t4-high", "high privacy", 20, vs)
				if err != nil {
					return nil, err
				}
				b, err := linearPanel("b", "fw-t4-low", "low privacy", 20, vs)
				return []Panel{a, b}, err
			}}
	}
	rappor("fw-fig2", "FW Fig. 2: [RAP]_R (projection, normalisation) and GIBU, 10 RAPPOR on 20 symbols, (a) high and (b) low privacy (Table 4)",
		rapRP, rapRN, gibu)
	rappor("fw-fig14", "FW Fig. 14: [RAP]_M (projection, normalisation) and GIBU, 10 RAPPOR on 20 symbols, (a) high and (b) low privacy (Table 4)",
		rapMP, rapMN, gibu)
	linearOnly := func(name, title, preset string, vs ...Variant) {
		registry[name] = &Experiment{Name: name, Title: title, Runs: 10, Users: fwUsers,
			panels: func(*Planar) ([]Panel, error) {
				a, err := linearPanel("a", preset, "linear alphabet {0…99}", 100, vs)
				return []Panel{a}, err
			}}
	}
	linearOnly("fw-fig3", "FW Fig. 3: [INV]_R, [IBU]_R and GIBU, 10 k-RR on {0…99} (Table 5)", "fw-t5", invRP, invRN, ibuR, gibu)
	linearOnly("fw-fig4", "FW Fig. 4: [INV]_R, [IBU]_R and GIBU, 5 geometric and 5 k-RR on {0…99} (Table 7)", "fw-t7", invRP, invRN, ibuR, gibu)
	linearOnly("fw-fig5", "FW Fig. 5: [INV]_R, [IBU]_R and GIBU, 10 geometric on {0…99} (Table 6)", "fw-t6", invRP, invRN, ibuR, gibu)
	linearOnly("fw-fig6", "FW Fig. 6: [IBU]_R and GIBU, 10 Shokri on {0…99} (Table 8)", "fw-t8", ibuR, gibu)
	both := func(name, title, preset string, vs ...Variant) {
		registry[name] = &Experiment{Name: name, Title: title, Runs: 10, Users: fwUsers, planar: true,
			panels: func(p *Planar) ([]Panel, error) {
				a, err := linearPanel("a", preset, "linear alphabet {0…99}", 100, vs)
				if err != nil {
					return nil, err
				}
				b, err := planarPanel("b", preset, p, vs)
				return []Panel{a, b}, err
			}}
	}
	both("fw-fig7", "FW Fig. 7: [INV]_M (projection, normalisation) and GIBU, 10 k-RR, (a) linear, (b) planar (Table 5)", "fw-t5", invMP, invMN, gibu)
	both("fw-fig8", "FW Fig. 8: [INV]_M and GIBU, 10 geometric, (a) linear, (b) planar (Table 6)", "fw-t6", invMP, invMN, gibu)
	both("fw-fig9", "FW Fig. 9: [INV]_M and GIBU, 5 geometric and 5 k-RR, (a) linear, (b) planar (Table 7)", "fw-t7", invMP, invMN, gibu)
	both("fw-fig10", "FW Fig. 10: [IBU]_M and GIBU, 10 k-RR, (a) linear, (b) planar (Table 5)", "fw-t5", ibuM, gibu)
	both("fw-fig11", "FW Fig. 11: [IBU]_M and GIBU, 10 geometric, (a) linear, (b) planar (Table 6)", "fw-t6", ibuM, gibu)
	both("fw-fig12", "FW Fig. 12: [IBU]_M and GIBU, 5 geometric and 5 k-RR, (a) linear, (b) planar (Table 7)", "fw-t7", ibuM, gibu)
	both("fw-fig13", "FW Fig. 13: [IBU]_M and GIBU, 10 Shokri, (a) linear, (b) planar (Table 8)", "fw-t8", ibuM, gibu)
}

// linearPanel is a panel on the linear alphabet {0…k−1} with FW §8's
// binomial(0.5) data and the preset's mechanisms.
func linearPanel(name, preset, title string, k int, vs []Variant) (Panel, error) {
	a := core.Alphabet{Kind: core.KindLinear, Size: k}
	ms, err := core.PresetMechanisms(preset, a)
	if err != nil {
		return Panel{}, err
	}
	return Panel{Name: name, Setting: preset, Title: title, Study: &core.Study{Alphabet: a, Mechanisms: ms},
		Truth: Binomial(k), Unit: "steps", Variants: vs}, nil
}

// planarPanel is a panel on p's grid with the preset's mechanisms.
func planarPanel(name, preset string, p *Planar, vs []Variant) (Panel, error) {
	ms, err := core.PresetMechanisms(preset, p.Alphabet)
	if err != nil {
		return Panel{}, err
	}
	title := fmt.Sprintf("planar %d×%d grid, %s", p.Alphabet.Cols, p.Alphabet.Rows, p.Source)
	return Panel{Name: name, Setting: preset, Title: title, Study: &core.Study{Alphabet: p.Alphabet, Mechanisms: ms},
		Truth: p.Truth, Unit: "km", Variants: vs}, nil
}

// Binomial returns the binomial(k−1, 0.5) distribution on {0…k−1}, FW
// §8's data on the linear alphabet: C(k−1, x) / 2^(k−1), computed in
// logarithms so that it holds for any k.
func Binomial(k int) []float64 {
	p := make([]float64, k)
	n := float64(k - 1)
	ln2 := math.Ln2
	for x := range p {
		lc, _ := math.Lgamma(n + 1)
		la, _ := math.Lgamma(float64(x) + 1)
		lb, _ := math.Lgamma(n - float64(x) + 1)
		p[x] = math.Exp(lc - la - lb - n*ln2)
	}
	return p
}
