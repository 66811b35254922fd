package experiment

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"

	"github.com/privmap/privmap/app/release"
)

// The central release's experiments (PM §IV): Table I's analytic
// comparison, the simulations of Figs. 7–9 and the count queries on UCI
// Adult of §IV-C. A mechanism and the standard one it is compared with
// are matched as PM matches them, by the general privacy budget in PM's
// own reading ln E e^{|L|} (package app/release's doc): a geometric
// mechanism's is its ε, a rounded Laplace mechanism's is found by
// bisection.

// pmMatch returns the standard mechanism of s's family whose PM budget
// equals s's.
func pmMatch(s release.Spec) (release.Spec, error) {
	return s.MatchingBy(func(b release.Summary) float64 { return b.BudgetPM })
}

// pmMix returns PM's mixture of a family.
func pmMix(mech string, c, eps1, eps2 float64) release.Spec {
	return release.Spec{Mechanism: mech, EpsIn: eps1, EpsOut: eps2, Break: c, Sensitivity: 1}
}

func init() {
	register(pmTable(), pmFig("pm-fig7"), pmFig("pm-fig8"), pmFig("pm-fig9"), pmAdult())
}

// pmTable is PM Table I: for each row's break-point and levels, the
// mixtures' PM budget, E|noise|, variance and entropy and those of the
// standard mechanisms of the same budget, computed by privmap beside the
// values the paper prints.
func pmTable() *Experiment {
	return &Experiment{Name: "pm-table1",
		Title: "PM Table I: general privacy budget, E|noise|, variance and entropy of the geometric and Laplace mixtures and of the standard mechanisms of the same budget, privmap's beside the paper's",
		Claim: "PM §IV-A: over a wide range of c, ε₁ and ε₂ the mixtures have less expected noise, much less variance (often under half) and lower entropy than the standard mechanisms of the same general privacy budget.",
		Runs:  1, UsersRole: UsersFixed,
		panels: func(*Data, []int) ([]Panel, error) {
			var out []Panel
			for i, fam := range []struct{ name, mix, std string }{{"geometric", release.PMGeometric, release.Geometric}, {"Laplace", release.PMLaplace, release.Laplace}} {
				p, err := pmTablePanel(string(rune('a'+i)), i, fam.name, fam.mix)
				if err != nil {
					return nil, err
				}
				out = append(out, p)
			}
			return out, nil
		}}
}

// pmTablePanel is Table I's columns of one family (0 geometric, 1 Laplace).
func pmTablePanel(name string, fam int, family, mech string) (Panel, error) {
	p := Panel{Name: name, Title: family + " mixtures and mechanisms, PM Table I's rows", XLabel: "general privacy budget (PM), privmap's",
		LogY: true, Scatter: true, NoBest: true, ByName: true, Metrics: []Metric{BudgetPM, AbsMean, Variance, Entropy},
		Variants: []Variant{{Label: family + " mixture"}, {Label: family + " mixture, PM"}, {Label: family + " mechanism, same budget"},
			{Label: family + " mechanism, same budget, PM"}}}
	type values struct{ mix, std release.Summary }
	var rows []values
	for _, r := range pmTableI {
		mix := pmMix(mech, float64(r.c), r.eps1, r.eps2)
		ms, err := mix.Summary()
		if err != nil {
			return Panel{}, err
		}
		std, err := pmMatch(mix)
		if err != nil {
			return Panel{}, err
		}
		ss, err := std.Summary()
		if err != nil {
			return Panel{}, err
		}
		rows = append(rows, values{ms, ss})
		p.Settings = append(p.Settings, Setting{Name: fmt.Sprintf("c = %d, ε = %g, %g", r.c, r.eps1, r.eps2), X: ms.BudgetPM, N: 1})
	}
	p.Measure = func(_ context.Context, _ *rand.Rand, si, vi int) ([]float64, error) {
		r, v := pmTableI[si], rows[si]
		switch vi {
		case 0:
			return []float64{v.mix.BudgetPM, v.mix.AbsMean, v.mix.Variance, v.mix.Entropy}, nil
		case 2:
			return []float64{v.std.BudgetPM, v.std.AbsMean, v.std.Variance, v.std.Entropy}, nil
		}
		budget := r.geoBudget
		if fam == 1 {
			budget = r.lapBudget
		}
		i := fam
		if vi == 3 {
			i += 2
		}
		return []float64{budget, r.absMean[i], r.variance[i], r.entropy[i]}, nil
	}
	return p, nil
}

// PM's simulation settings (PM §IV-B2): the mixtures of c = 5, ε₁ = 0.2,
// ε₂ = 1 (budget 0.328) and c = 6, ε₁ = 0.1, ε₂ = 1 (0.257), the
// standard mechanisms of the same budgets, and the relaxed geometric
// mechanism at ε = 0.5 and Laplace at 0.45.
var (
	pmSets     = [][3]float64{{5, 0.2, 1}, {6, 0.1, 1}}
	pmCounts   = []int{1, 2, 3, 5, 10, 20, 50, 100}
	pmBounds   = 25 // Fig. 8: P(|error| ≤ e) for e = 0…25
	pmSamples  = 100000
	pmFarCount = 1000 // a count no noise brings to 0
	// Fig. 8's settings are its 26 error bounds, each drawn afresh: fewer
	// samples each keep its cost near Fig. 7's.
	pmBoundSamples = 20000
)

// pmFig returns PM Fig. 7, 8 or 9 by name.
func pmFig(name string) *Experiment {
	e := &Experiment{Name: name, Runs: 10, UsersRole: UsersFixed}
	switch name {
	case "pm-fig7":
		e.Title = "PM Fig. 7: probability that the released count is within the break-point of the true count, against the true count, (a) c = 5, ε = 0.2, 1 (b) c = 6, ε = 0.1, 1, mixtures against the standard mechanisms of the same budget and relaxed ones"
		e.Claim = "PM §IV-B3: the mixtures keep about 95% of small counts (below 10) and 92% of larger ones within the break-point, 5–10% more than the standard mechanisms of the same budget and as well as the relaxed ones (ε = 0.5 geometric, 0.45 Laplace)."
	case "pm-fig8":
		e.Title = "PM Fig. 8: CDF of the absolute error of a count far from 0, (a) c = 5, ε = 0.2, 1 (b) c = 6, ε = 0.1, 1, mixtures against the standard mechanisms of the same budget and relaxed ones"
		e.Claim = "PM §IV-B3: within the break-point the mixtures' errors match the relaxed mechanisms'; beyond it they reach 100% faster than even the relaxed ones (within 8 and 10 against 11–12, and 16–21 for the same budget)."
	default:
		e.Title = "PM Fig. 9: mean relative error beyond the break-point (PM eq. 36) against the true count, (a) c = 5, ε = 0.2, 1 (b) c = 6, ε = 0.1, 1"
		e.Claim = "PM §IV-B3: the mixtures' mean relative error is 3–4 times below the standard mechanisms' of the same budget, below 0.01 for counts above 10, and within a factor 1.5 of the relaxed ones'."
	}
	e.panels = func(*Data, []int) ([]Panel, error) {
		var out []Panel
		for i, set := range pmSets {
			p, err := pmSimPanel(string(rune('a'+i)), name, set)
			if err != nil {
				return nil, err
			}
			out = append(out, p)
		}
		return out, nil
	}
	return e
}

// pmSimPanel simulates one parameter set's releases.
func pmSimPanel(name, fig string, set [3]float64) (Panel, error) {
	specs := []release.Spec{pmMix(release.PMGeometric, set[0], set[1], set[2]), pmMix(release.PMLaplace, set[0], set[1], set[2])}
	for _, mix := range specs[:2] {
		std, err := pmMatch(mix)
		if err != nil {
			return Panel{}, err
		}
		specs = append(specs, std)
	}
	specs = append(specs, release.Spec{Mechanism: release.Geometric, EpsIn: 0.5, EpsOut: 0.5, Sensitivity: 1},
		release.Spec{Mechanism: release.Laplace, EpsIn: 0.45, EpsOut: 0.45, Sensitivity: 1})
	p := Panel{Name: name, Title: fmt.Sprintf("c = %g, ε = %g within, %g beyond", set[0], set[1], set[2])}
	for _, s := range specs {
		p.Variants = append(p.Variants, Variant{Label: releaseLabel(s)})
	}
	c := set[0]
	draw := func(rng *rand.Rand, s release.Spec, count int, n int, each func(err float64)) error {
		noise, err := noiseOf(s)
		if err != nil {
			return err
		}
		for range n {
			released := math.Max(0, float64(count)+noise(rng)) // PM publishes negative counts as 0
			each(math.Abs(released - float64(count)))
		}
		return nil
	}
	switch fig {
	case "pm-fig8":
		p.XLabel, p.Metrics = "error bound e", []Metric{PWithin}
		for e := 0; e <= pmBounds; e++ {
			p.Settings = append(p.Settings, Setting{Name: "e=" + strconv.Itoa(e), X: float64(e), N: pmBoundSamples})
		}
		p.Measure = func(_ context.Context, rng *rand.Rand, si, vi int) ([]float64, error) {
			within := 0
			err := draw(rng, specs[vi], pmFarCount, pmBoundSamples, func(e float64) {
				if e <= float64(si) {
					within++
				}
			})
			return []float64{float64(within) / float64(pmBoundSamples)}, err
		}
	default:
		p.XLabel, p.LogX = "true count", true
		p.Metrics = []Metric{PWithin}
		if fig == "pm-fig9" {
			p.Metrics, p.LogY = []Metric{MRE}, true
		}
		for _, n := range pmCounts {
			p.Settings = append(p.Settings, Setting{Name: "count=" + strconv.Itoa(n), X: float64(n), N: pmSamples})
		}
		p.Measure = func(_ context.Context, rng *rand.Rand, si, vi int) ([]float64, error) {
			count := pmCounts[si]
			within, rel := 0, 0.0
			err := draw(rng, specs[vi], count, pmSamples, func(e float64) {
				if e <= c {
					within++
				} else {
					rel += e / float64(count)
				}
			})
			if fig == "pm-fig9" {
				return []float64{rel / float64(pmSamples)}, err
			}
			return []float64{float64(within) / float64(pmSamples)}, err
		}
	}
	return p, nil
}

// releaseLabel names a release mechanism in a legend.
func releaseLabel(s release.Spec) string {
	switch s.Mechanism {
	case release.PMGeometric:
		return "geometric mixture"
	case release.PMLaplace:
		return "Laplace mixture"
	case release.Geometric:
		return fmt.Sprintf("geometric, ε = %.3g", s.EpsIn)
	}
	return fmt.Sprintf("Laplace, ε = %.3g", s.EpsIn)
}

// noiseOf returns a sampler of s's noise: integer geometric noise, or
// Laplace noise rounded to the nearest integer.
func noiseOf(s release.Spec) (func(*rand.Rand) float64, error) {
	n, err := s.Noise()
	if err != nil {
		return nil, err
	}
	return func(rng *rand.Rand) float64 { return float64(n.Rand(rng)) }, nil
}

// pmAdultAttrs are the attributes of PM §IV-C's count queries: UCI
// Adult's categorical ones, or on US Census 1990 the coded attributes of
// CEM Table 2.
var pmAdultAttrs = map[string][]string{
	"adult":      {"workclass", "education", "marital-status", "occupation", "relationship", "race", "sex", "native-country", "income"},
	"census1990": {"dAge", "iSex", "dIncome1", "iMarital"},
}

// pmQueries and pmErrorBounds are the default queries a run and the error
// bounds of PM Fig. 11a; pmBuckets bound the true counts of Fig. 11c and
// 12 (each bucket [lo, hi)).
var (
	pmQueries     = 20000
	pmErrorBounds = 40
	pmBuckets     = [][2]int{{1, 5}, {5, 10}, {10, 50}, {50, 100}, {100, 1000}, {1000, 1 << 40}}
)

// pmAdult is PM §IV-C: count queries on a census file, each the number of
// people with a random value of each of two random attributes, released
// with the mixtures of c = 5, ε = 0.2 within and 1 beyond and the
// standard mechanisms of the same budget.
func pmAdult() *Experiment {
	return &Experiment{Name: "pm-adult",
		Title: "PM §IV-C, Fig. 11–12: count queries over random pairs of attribute values of UCI Adult, released with the mixtures (c = 5, ε = 0.2, 1) and the standard mechanisms of the same budget: (a) CDF of the absolute error, (b) mean relative error and (c) privacy loss against the true count",
		Claim: "PM §IV-C: the mixtures' absolute errors stay below 10 in almost every case (at most 15) where the standard mechanisms' spread to 40; their mean relative error is lower at every true count; their privacy loss follows the standard mechanisms' of the same budget.",
		Runs:  10, UsersRole: UsersFixed, Data: RecordData,
		panels: func(d *Data, _ []int) ([]Panel, error) { return pmAdultPanels(d) },
	}
}

// A pmQuery is one count query: two attributes' values and its count,
// with the chance that a query drawn at random is it.
type pmQuery struct {
	count  int
	weight float64
}

// pmQueriesOf lists every query over pairs of the data's attributes: a
// pair of attributes drawn uniformly, then a value of each uniformly
// among those present.
func pmQueriesOf(d *Data) []pmQuery {
	var out []pmQuery
	k := len(d.Records)
	pairs := float64(k * (k - 1) / 2)
	for a := 0; a < k; a++ {
		for b := a + 1; b < k; b++ {
			na, nb := d.Values[a], d.Values[b]
			counts := make([]int, na*nb)
			for i := range d.Records[a] {
				counts[int(d.Records[a][i])*nb+int(d.Records[b][i])]++
			}
			w := 1 / (pairs * float64(na) * float64(nb))
			for _, c := range counts {
				out = append(out, pmQuery{count: c, weight: w})
			}
		}
	}
	return out
}

// pmAdultPanels builds the three panels on the data's queries.
func pmAdultPanels(d *Data) ([]Panel, error) {
	if len(d.Records) < 2 {
		return nil, fmt.Errorf("pm-adult needs two attributes or more, the data have %d", len(d.Records))
	}
	variants, noises, losses, err := pmAdultMechanisms()
	if err != nil {
		return nil, err
	}
	queries := pmQueriesOf(d)
	all := newQuerySampler(queries, 0, 1<<40)
	// released draws the release of a count by mechanism vi, negative
	// releases published as 0.
	released := func(rng *rand.Rand, vi, z int) float64 { return math.Max(0, float64(z)+noises[vi](rng)) }
	a := Panel{Name: "a", Title: "absolute error of the released counts", XLabel: "error bound e", Metrics: []Metric{PWithin}, Variants: variants}
	for e := 0; e <= pmErrorBounds; e++ {
		a.Settings = append(a.Settings, Setting{Name: "e=" + strconv.Itoa(e), X: float64(e), N: pmQueries})
	}
	a.Measure = func(_ context.Context, rng *rand.Rand, si, vi int) ([]float64, error) {
		within := 0
		for range pmQueries {
			z := all.draw(rng)
			if math.Abs(released(rng, vi, z)-float64(z)) <= float64(si) {
				within++
			}
		}
		return []float64{float64(within) / float64(pmQueries)}, nil
	}
	b := Panel{Name: "b", Title: "mean relative error beyond c = 5", XLabel: "true count", LogX: true, LogY: true, ByName: true, Metrics: []Metric{MRE}, Variants: variants}
	c := Panel{Name: "c", Title: "privacy loss against a neighbour without one of the counted", XLabel: "true count", LogX: true,
		Metrics: []Metric{Loss}, Variants: variants, NoBest: true, ByName: true}
	var buckets []*querySampler
	for _, bk := range pmBuckets {
		q := newQuerySampler(queries, bk[0], bk[1])
		if q.empty() {
			continue // no query counts this many
		}
		buckets = append(buckets, q)
		x := math.Sqrt(float64(bk[0]) * float64(min(bk[1], 10*bk[0])))
		name := fmt.Sprintf("count=%d-%d", bk[0], bk[1]-1)
		if bk[1] > 1<<39 {
			name = fmt.Sprintf("count=%d+", bk[0])
		}
		for _, p := range []*Panel{&b, &c} {
			p.Settings = append(p.Settings, Setting{Name: name, X: x, N: pmQueries})
		}
	}
	b.Measure = func(_ context.Context, rng *rand.Rand, si, vi int) ([]float64, error) {
		rel := 0.0
		for range pmQueries {
			z := buckets[si].draw(rng)
			if e := math.Abs(released(rng, vi, z) - float64(z)); e > 5 {
				rel += e / float64(z)
			}
		}
		return []float64{rel / float64(pmQueries)}, nil
	}
	c.Measure = func(_ context.Context, rng *rand.Rand, si, vi int) ([]float64, error) {
		sum := 0.0
		for range pmQueries {
			z := buckets[si].draw(rng)
			sum += losses[vi](int(released(rng, vi, z)), z)
		}
		return []float64{sum / float64(pmQueries)}, nil
	}
	return []Panel{a, b, c}, nil
}

// pmAdultMechanisms returns §IV-C's mechanisms: the mixtures of c = 5,
// ε = 0.2 within and 1 beyond and the standard mechanisms of their
// budgets, with their samplers and privacy losses.
func pmAdultMechanisms() ([]Variant, []func(*rand.Rand) float64, []func(o, z int) float64, error) {
	mixes := []release.Spec{pmMix(release.PMGeometric, 5, 0.2, 1), pmMix(release.PMLaplace, 5, 0.2, 1)}
	specs := append([]release.Spec(nil), mixes...)
	for _, m := range mixes {
		std, err := pmMatch(m)
		if err != nil {
			return nil, nil, nil, err
		}
		specs = append(specs, std)
	}
	var variants []Variant
	noises := make([]func(*rand.Rand) float64, len(specs))
	losses := make([]func(o, z int) float64, len(specs))
	for i, s := range specs {
		variants = append(variants, Variant{Label: releaseLabel(s)})
		var err error
		if noises[i], err = noiseOf(s); err != nil {
			return nil, nil, nil, err
		}
		losses[i] = lossOf(s)
	}
	return variants, noises, losses, nil
}

// A querySampler draws the count of a query at random among those whose
// count is in [lo, hi), by their chance.
type querySampler struct {
	cum    []float64 // cumulative chances
	counts []int
}

func newQuerySampler(queries []pmQuery, lo, hi int) *querySampler {
	q := &querySampler{}
	acc := 0.0
	for _, qu := range queries {
		if qu.count >= lo && qu.count < hi {
			acc += qu.weight
			q.cum, q.counts = append(q.cum, acc), append(q.counts, qu.count)
		}
	}
	return q
}

// empty reports whether no query has a count in the range.
func (q *querySampler) empty() bool { return len(q.counts) == 0 }

// draw returns a query's count.
func (q *querySampler) draw(r *rand.Rand) int {
	u := r.Float64() * q.cum[len(q.cum)-1]
	i := sort.SearchFloat64s(q.cum, u)
	if i < len(q.cum) && q.cum[i] == u {
		i++ // the first cumulative chance above u
	}
	return q.counts[min(i, len(q.counts)-1)]
}

// lossOf returns the privacy loss of a release o of count z against the
// neighbouring count z − 1, |ln P(o | z)/P(o | z−1)|, negative releases
// published as 0 (so P(0 | z) = P(noise ≤ −z)).
func lossOf(s release.Spec) func(o, z int) float64 {
	n, _ := s.Noise()
	p := func(o, z int) float64 {
		if o == 0 {
			return n.CDF(-z)
		}
		return n.PMF(o - z)
	}
	return func(o, z int) float64 { return math.Abs(math.Log(p(o, z)) - math.Log(p(o, z-1))) }
}
