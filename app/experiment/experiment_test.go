package experiment

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"

	"github.com/privmap/privmap/app/mapplot"
	"github.com/privmap/privmap/core"
)

// TestBinomial checks FW's linear data: binomial(k−1, 0.5) sums to 1, is
// symmetric, and matches C(k−1, x)/2^(k−1) at a few points.
func TestBinomial(t *testing.T) {
	p := Binomial(100)
	sum := 0.0
	for x, v := range p {
		sum += v
		if math.Abs(v-p[99-x]) > 1e-15 {
			t.Errorf("p[%d] = %g, p[%d] = %g: not symmetric", x, v, 99-x, p[99-x])
		}
	}
	if math.Abs(sum-1) > 1e-12 {
		t.Errorf("sums to %.17g", sum)
	}
	// C(99, 0)/2^99 and C(99, 1)/2^99.
	if want := math.Pow(2, -99); math.Abs(p[0]-want) > 1e-12*want {
		t.Errorf("p[0] = %g, want %g", p[0], want)
	}
	if want := 99 * math.Pow(2, -99); math.Abs(p[1]-want) > 1e-12*want {
		t.Errorf("p[1] = %g, want %g", p[1], want)
	}
	if q := Binomial(20); math.Abs(q[10]-92378.0/524288) > 1e-13 { // C(19, 10)/2^19
		t.Errorf("p[10] on 20 symbols = %g, want %g", q[10], 92378.0/524288)
	}
}

// TestSeed checks each run's seed depends on every part of its name.
func TestSeed(t *testing.T) {
	base := Seed(1, "fw-fig7", "a", "fw-t5", 1000, 0)
	for _, s := range []uint64{Seed(2, "fw-fig7", "a", "fw-t5", 1000, 0), Seed(1, "fw-fig8", "a", "fw-t5", 1000, 0),
		Seed(1, "fw-fig7", "b", "fw-t5", 1000, 0), Seed(1, "fw-fig7", "a", "fw-t6", 1000, 0),
		Seed(1, "fw-fig7", "a", "fw-t5", 3000, 0), Seed(1, "fw-fig7", "a", "fw-t5", 1000, 1)} {
		if s == base {
			t.Errorf("seed %d repeats the base run's", s)
		}
	}
	if Seed(1, "fw-fig7", "a", "fw-t5", 1000, 0) != base {
		t.Error("the seed is not a function of the run")
	}
}

// TestPoints checks the mean and Student's 95% interval: for values 1, 2,
// 3 the mean is 2, sd 1, and t(0.975; 2) = 4.302653 gives ±4.302653/√3;
// one run has no interval; the values are kept in the order of the runs
// and x comes from the setting.
func TestPoints(t *testing.T) {
	panels := []Panel{{Name: "a", Settings: []Setting{
		{Name: "s", X: 0.5, Pops: []Population{{Users: []int{10}}}},
		{Name: "s", X: 7, Pops: []Population{{Users: []int{20}}}},
	}}}
	var rows []Row
	for i, v := range []float64{3, 1, 2} {
		rows = append(rows, Row{Panel: "a", Setting: "s", Users: 10, Method: "GIBU", Metric: "emd", Run: 2 - i, Value: v})
	}
	rows = append(rows, Row{Panel: "a", Setting: "s", Users: 20, Method: "GIBU", Metric: "emd", Value: 5},
		Row{Panel: "a", Setting: "other", Users: 20, Method: "GIBU", Metric: "emd", Value: 5})
	pts := Points(panels, rows)
	if len(pts) != 2 {
		t.Fatalf("%d points, want 2 (the unknown setting left out)", len(pts))
	}
	half := 4.302652729911275 / math.Sqrt(3)
	if p := pts[0]; p.X != 0.5 || p.Mean != 2 || math.Abs(p.Hi-2-half) > 1e-9 || math.Abs(2-p.Lo-half) > 1e-9 {
		t.Errorf("point %+v, want x 0.5, mean 2 ± %g", p, half)
	}
	if v := pts[0].Values; v[0] != 2 || v[1] != 1 || v[2] != 3 {
		t.Errorf("values %v, want by run 2, 1, 3", v)
	}
	if p := pts[1]; p.X != 7 || p.Mean != 5 || !math.IsNaN(p.Lo) {
		t.Errorf("one run: %+v, want 5 and no interval", p)
	}
}

// TestPairedTest checks the correlation and the paired t-test against
// closed forms: differences 1, 2, 3 give t = 2√3 on 2 degrees of
// freedom, where P(|T| > t) = 1 − t/√(2 + t²); x = (2, 4, 7) and
// y = (1, 2, 4) correlate at 23/√532.
func TestPairedTest(t *testing.T) {
	a := Point{Values: []float64{2, 4, 7}, Runs: []int{0, 1, 2}}
	b := Point{Values: []float64{1, 2, 4}, Runs: []int{0, 1, 2}}
	r, p := pairedTest(a, b)
	tt := 2 * math.Sqrt(3)
	if want := 23 / math.Sqrt(532); math.Abs(r-want) > 1e-12 {
		t.Errorf("r = %.15g, want %.15g", r, want)
	}
	if want := 1 - tt/math.Sqrt(2+tt*tt); math.Abs(p-want) > 1e-9 {
		t.Errorf("p = %.15g, want %.15g", p, want)
	}
	// Runs are matched by number, not position; one pair is too few.
	b.Runs = []int{2, 1, 0}
	b.Values = []float64{4, 2, 1}
	if r2, p2 := pairedTest(a, b); math.Abs(r2-r) > 1e-12 || math.Abs(p2-p) > 1e-12 {
		t.Errorf("runs in another order: r %g, p %g", r2, p2)
	}
	if r, p := pairedTest(Point{Values: []float64{1}, Runs: []int{0}}, Point{Values: []float64{2}, Runs: []int{0}}); !math.IsNaN(r) || !math.IsNaN(p) {
		t.Errorf("one pair: r %g, p %g, want NaN", r, p)
	}
}

// TestList checks every published figure is named once, in order, with
// default runs, a title and the paper's claim, and that their panels
// build on the embedded data.
func TestList(t *testing.T) {
	var names []string
	for _, e := range List() {
		names = append(names, e.Name)
		if e.Runs < 1 || e.Title == "" || e.Claim == "" || (e.UsersRole != UsersFixed) != (len(e.Users) > 0) {
			t.Errorf("%s: runs %d, users %v (%d), title %q, claim %q", e.Name, e.Runs, e.Users, e.UsersRole, e.Title, e.Claim)
		}
	}
	want := "fw-fig2 fw-fig3 fw-fig4 fw-fig5 fw-fig6 fw-fig7 fw-fig8 fw-fig9 fw-fig10 fw-fig11 fw-fig12 fw-fig13 fw-fig14 fw-attack fw-oracles " +
		"cem-fig5 cem-fig6 cem-fig7 cem-fig8 uldp-tv uldp-pum pm-table1 pm-fig7 pm-fig8 pm-fig9 pm-adult coverage"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("experiments\n%s\nwant\n%s", got, want)
	}
	if _, err := Lookup("fw-fig1"); err == nil || !strings.Contains(err.Error(), "fw-fig2") {
		t.Errorf("unknown name: %v", err)
	}
	for _, e := range List() {
		d, err := Load(context.Background(), e, Source{})
		if err != nil {
			t.Fatalf("%s: %v", e.Name, err)
		}
		panels, err := e.Panels(d, nil)
		if err != nil || len(panels) == 0 {
			t.Fatalf("%s: %d panels, %v", e.Name, len(panels), err)
		}
		for _, p := range panels {
			if len(p.Settings) == 0 || len(p.Variants) == 0 || len(p.Metrics) == 0 || len(p.Truth) != p.Alphabet.Len() {
				t.Errorf("%s (%s): %d settings, %d variants, %d metrics, truth of %d on %d symbols",
					e.Name, p.Name, len(p.Settings), len(p.Variants), len(p.Metrics), len(p.Truth), p.Alphabet.Len())
			}
			for _, v := range p.Variants {
				if p.Measure == nil && v.Pop >= len(p.Settings[0].Pops) {
					t.Errorf("%s (%s): %s estimates from population %d of %d", e.Name, p.Name, v.Label, v.Pop, len(p.Settings[0].Pops))
				}
			}
		}
	}
}

// TestCEMUsers checks CEM's settings: (N₁, N₂, N₃, N₄) of Fig. 5 and 7,
// N split 10:10:1:1 in Fig. 6, N₁ = N₄ = 0 in Fig. 8; K = 400 categories
// on the embedded head of US Census 1990 (CEM Table 2).
func TestCEMUsers(t *testing.T) {
	users := func(name string, ns []int) [][]int {
		e, _ := Lookup(name)
		d, err := Load(context.Background(), e, Source{})
		if err != nil {
			t.Fatal(err)
		}
		if d.Alphabet.Len() != 400 || d.StandIn == "" {
			t.Errorf("%s: %d categories, stand-in %q", name, d.Alphabet.Len(), d.StandIn)
		}
		panels, err := e.Panels(d, ns)
		if err != nil {
			t.Fatal(err)
		}
		var out [][]int
		for _, p := range panels {
			for _, s := range p.Settings {
				out = append(out, s.Pops[0].Users)
			}
		}
		return out
	}
	if u := users("cem-fig5", nil); len(u) != 6 || !equal(u[0], []int{500, 500, 50, 0}) || !equal(u[5], []int{500, 500, 50, 50}) {
		t.Errorf("cem-fig5: %v", u)
	}
	if u := users("cem-fig7", nil); !equal(u[2], []int{20000, 500, 50, 20}) {
		t.Errorf("cem-fig7: %v", u)
	}
	if u := users("cem-fig6", []int{220, 1100}); len(u) != 2 || !equal(u[0], []int{100, 100, 10, 10}) || !equal(u[1], []int{500, 500, 50, 50}) {
		t.Errorf("cem-fig6: %v", u)
	}
	if u := users("cem-fig8", nil); len(u) != 21 || !equal(u[1], []int{0, 100, 10, 0}) || !equal(u[20], []int{0, 10000, 500, 0}) {
		t.Errorf("cem-fig8: %v", u)
	}
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestULDPSensitive checks uldp-tv's sensitive sets: ⌈share·K⌉ cells,
// nested as the share grows, and every cell at share 1 (uRR is k-RR).
func TestULDPSensitive(t *testing.T) {
	e, _ := Lookup("uldp-tv")
	d, err := Load(context.Background(), e, Source{})
	if err != nil {
		t.Fatal(err)
	}
	panels, err := e.Panels(d, []int{100})
	if err != nil {
		t.Fatal(err)
	}
	k := d.Alphabet.Len()
	var prev map[int]bool
	for i, s := range panels[0].Settings {
		spec := s.Pops[popULDP].Study.Mechanisms[0]
		if want := int(math.Ceil(uldpShares[i] * float64(k))); len(spec.Sensitive) != want || spec.Kind != core.KindURR {
			t.Errorf("share %g: %d sensitive cells of %s, want %d of urr", uldpShares[i], len(spec.Sensitive), spec.Kind, want)
		}
		cur := map[int]bool{}
		for _, x := range spec.Sensitive {
			cur[x] = true
		}
		for x := range prev {
			if !cur[x] {
				t.Errorf("share %g drops cell %d of the smaller share's set", uldpShares[i], x)
			}
		}
		prev = cur
		if s.Users() != 100 {
			t.Errorf("share %g: %d users, want 100", uldpShares[i], s.Users())
		}
	}
}

// TestBaselines checks CEM's own estimators on hand-made reports: Uniform
// is 1/K, ObfDat the reports' frequencies, and MatInv (eq. 13) averages
// the mechanisms' inversions with equal weights, not by their users.
func TestBaselines(t *testing.T) {
	a := core.Alphabet{Kind: core.KindCategorical, Size: 3}
	s := &core.Study{Alphabet: a, Mechanisms: []core.MechanismSpec{{ID: "x", Kind: core.KindIdentity}, {ID: "y", Kind: core.KindIdentity}}}
	mechs := make([]core.Mechanism, 2)
	for i, spec := range s.Mechanisms {
		m, err := core.NewMechanism(spec, a)
		if err != nil {
			t.Fatal(err)
		}
		mechs[i] = m
	}
	// One user of x reports 0; three of y report 1, 1, 2.
	g := &core.Groups{Users: []int{1, 3}, List: []core.Group{
		{Mech: 0, Report: core.SymbolReport(0), Count: 1},
		{Mech: 1, Report: core.SymbolReport(1), Count: 2},
		{Mech: 1, Report: core.SymbolReport(2), Count: 1}}}
	in := Input{Study: s, Mechs: mechs, Groups: g}
	for _, tc := range []struct {
		name string
		est  Estimator
		want []float64
	}{
		{"Uniform", uniform, []float64{1. / 3, 1. / 3, 1. / 3}},
		{"ObfDat", obfDat, []float64{0.25, 0.5, 0.25}},
		{"MatInv_norm", matInv(core.PostNorm), []float64{0.5, 1. / 3, 1. / 6}},
		{"MatInv_proj", matInv(core.PostProj), []float64{0.5, 1. / 3, 1. / 6}},
	} {
		got, err := tc.est(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if math.Abs(got[i]-tc.want[i]) > 1e-12 {
				t.Errorf("%s = %v, want %v", tc.name, got, tc.want)
				break
			}
		}
	}
}

// TestRunAnyWorkers runs a tiny setting of one experiment of each paper
// on one and on three workers: the rows, once sorted, are the same, one
// per job, estimator and metric; the figure of a single run draws (its
// means have no interval).
func TestRunAnyWorkers(t *testing.T) {
	for _, tc := range []struct {
		name  string
		users []int
	}{{"cem-fig8", nil}, {"uldp-tv", []int{300}}, {"uldp-pum", nil}, {"pm-adult", nil}} {
		e, _ := Lookup(tc.name)
		d, err := Load(context.Background(), e, Source{})
		if err != nil {
			t.Fatal(err)
		}
		panels, err := e.Panels(d, tc.users)
		if err != nil {
			t.Fatal(err)
		}
		panels = panels[:1]
		var csv [2]string
		for i, workers := range []int{1, 3} {
			var rows []Row
			opt := Options{Runs: 1, Seed: 5, Workers: workers, Emit: func(_ Job, rs []Row) error { rows = append(rows, rs...); return nil }}
			if err := Run(context.Background(), e, panels, opt); err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			p := panels[0]
			if want := len(p.Settings) * len(p.Variants) * len(p.Metrics); len(rows) != want {
				t.Errorf("%s: %d rows, want %d", tc.name, len(rows), want)
			}
			Sort(rows, OrderOf(panels))
			var b bytes.Buffer
			if err := WriteRows(&b, rows, true); err != nil {
				t.Fatal(err)
			}
			csv[i] = b.String()
			ch, err := Figure(p, Points(panels, rows), mapplot.Print)
			if err != nil {
				t.Fatal(err)
			}
			var img bytes.Buffer
			if err := WriteFigure(&img, ch, "png"); err != nil {
				t.Fatal(err)
			}
			if _, err := png.Decode(&img); err != nil {
				t.Errorf("%s: figure: %v", tc.name, err)
			}
		}
		if csv[0] != csv[1] {
			t.Errorf("%s: rows differ between 1 and 3 workers", tc.name)
		}
	}
}

// TestTimeLeft checks the progress estimate: jobs kept from an earlier
// run are not timed (the first call times one job), the estimate reads
// ", about … left" while jobs remain and is empty once all are done.
func TestTimeLeft(t *testing.T) {
	var got []string
	p := TimeLeft(func(done, total int, left string) { got = append(got, fmt.Sprintf("%d/%d%s", done, total, left)) })
	p(5, 7) // four kept, one run
	p(6, 7)
	p(7, 7)
	if len(got) != 3 || !strings.HasPrefix(got[0], "5/7, about ") || !strings.HasSuffix(got[0], " left") ||
		!strings.HasPrefix(got[1], "6/7, about ") || got[2] != "7/7" {
		t.Errorf("progress %q", got)
	}
}

// TestPapers checks that every experiment names its paper (the coverage
// check excepted) with authors, title and year, and a short label that
// is the start of its title.
func TestPapers(t *testing.T) {
	for _, e := range List() {
		p := e.Paper()
		switch {
		case e.Name == "coverage":
			if p != nil || !strings.Contains(e.Source(), "no paper") {
				t.Errorf("coverage: paper %v, source %q", p, e.Source())
			}
		case p == nil:
			t.Errorf("%s: no paper", e.Name)
		case p.Title == "" || p.Year < 2000 || p.Venue == "":
			t.Errorf("%s: paper %+v", e.Name, p)
		case !strings.HasPrefix(e.Source(), p.Short+": "):
			t.Errorf("%s: source %q", e.Name, e.Source())
		}
		if s := e.Short(); s == "" || len(s) > 40 || !strings.HasPrefix(e.Title, s) {
			t.Errorf("%s: short label %q", e.Name, s)
		}
	}
	if got, want := Papers[1].Citation(), "T. Murakami, H. Hino and J. Sakuma, “Toward distribution estimation under local differential privacy with small samples”, Proceedings on Privacy Enhancing Technologies 2018(3), doi:10.1515/popets-2018-0022, 2018"; got != want {
		t.Errorf("CEM's citation:\n%s\nwant\n%s", got, want)
	}
}

// TestTitleLines sets a figure's title on one line when it fits, on two
// broken at a word when it does not, cut with "…" only when two are too
// wide (fw-fig9's title was cut at the plots' width).
func TestTitleLines(t *testing.T) {
	st := text.Style{Font: font.From(sansFont, 11), Handler: plot.DefaultTextHandler}
	title := "(b) planar 24×16 grid, synthetic San Francisco check-ins (embedded)"
	if got := titleLines(title, st, st.Width(title)); got != title {
		t.Errorf("fits: %q", got)
	}
	w := st.Width(title) * 0.6
	got := titleLines(title, st, w)
	first, second, ok := strings.Cut(got, "\n")
	if !ok || strings.Contains(got, "…") || first+" "+second != title || st.Width(first) > w || st.Width(second) > w {
		t.Errorf("two lines: %q", got)
	}
	if got := titleLines(title, st, st.Width(title)*0.3); !strings.Contains(got, "\n") || !strings.HasSuffix(got, " …") {
		t.Errorf("cut: %q", got)
	}
}
