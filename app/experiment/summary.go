package experiment

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/privmap/privmap/app/human"
	"github.com/privmap/privmap/app/output"
)

// Summary writes summary.md: the paper's claim, the data, and for each
// panel and metric every estimator's mean with its 95% interval at each
// setting, and which estimator won with the paired t-test of its runs
// against the runner-up's; for a panel with a pair of estimators to
// compare, the correlation of their runs and their paired t-test (CEM
// Fig. 9).
func Summary(w io.Writer, e *Experiment, panels []Panel, points []Point, d *Data, runs int, seed uint64) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n%s\n\n*%s.* Written by %s.\n\n", e.Name, e.Title, e.Source(), output.Software())
	if e.Claim != "" {
		fmt.Fprintf(&b, "**The paper:** %s\n\n", e.Claim)
	}
	if d != nil {
		fmt.Fprintf(&b, "**Data:** %s.", d.Source)
		if d.StandIn != "" {
			fmt.Fprintf(&b, " Stand-in: %s.", d.StandIn)
		}
		b.WriteString("\n\n")
	}
	plural := "s"
	if runs == 1 {
		plural = ""
	}
	fmt.Fprintf(&b, "%d run%s at each setting, seed %d; means with 95%% intervals (%s).\n", runs, plural, seed, IntervalsOf(points))
	for _, t := range Tables(panels, points) {
		t.writeMarkdown(&b)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// A Table is the summary of one metric of a panel: a header and a row
// per setting, each estimator's mean with its 95% interval, the best
// estimator and, for a panel with a pair to compare, their correlation
// and paired t-test.
type Table struct {
	Title string
	Head  []string
	Rows  [][]string
}

// Tables returns the summary tables of the panels, a table per panel and
// metric, of the settings that have points.
func Tables(panels []Panel, points []Point) []Table {
	var out []Table
	for _, p := range panels {
		for _, m := range p.Metrics {
			out = append(out, table(p, m, points))
		}
	}
	return out
}

// table returns one panel's table of one metric.
func table(p Panel, m Metric, points []Point) Table {
	t := Table{Title: fmt.Sprintf("(%s) %s · %s", p.Name, p.Title, axisLabel(p, m)), Head: []string{p.XLabel}}
	if p.ByName {
		t.Head[0] = "setting"
	}
	for _, v := range p.Variants {
		t.Head = append(t.Head, v.Label)
	}
	if !p.NoBest {
		t.Head = append(t.Head, "best")
	}
	paired := p.Paired[0] != ""
	if paired {
		t.Head = append(t.Head, fmt.Sprintf("r (%s, %s)", p.Paired[0], p.Paired[1]), "paired t-test p")
	}
	for _, s := range p.Settings {
		if row := tableRow(p, m, s, points); row != nil {
			t.Rows = append(t.Rows, row)
		}
	}
	return t
}

// tableRow returns the row of setting s, nil when it has no points.
func tableRow(p Panel, m Metric, s Setting, points []Point) []string {
	at := map[string]Point{}
	for _, pt := range points {
		if pt.Panel == p.Name && pt.Setting == s.Name && pt.Users == s.Users() && pt.Metric == m {
			at[pt.Variant] = pt
		}
	}
	if len(at) == 0 {
		return nil
	}
	row := []string{formatX(s.X)}
	if p.ByName {
		row[0] = s.Name
	}
	var ranked []Point
	for _, v := range p.Variants {
		pt, ok := at[v.Label]
		if !ok {
			row = append(row, "—")
			continue
		}
		row = append(row, interval(pt))
		if !v.Reference {
			ranked = append(ranked, pt)
		}
	}
	if !p.NoBest {
		row = append(row, best(ranked, m != PWithin))
	}
	if p.Paired[0] != "" {
		r, pv := pairedTest(at[p.Paired[0]], at[p.Paired[1]])
		row = append(row, sig(r), sig(pv))
	}
	return row
}

// best names the estimator of the smallest mean (the largest, unless
// lower is better) and how sure that is:
// the paired t-test of its runs against the runner-up's (the estimators
// of a run share its reports, so pairing removes the runs' common
// noise).
func best(pts []Point, lower bool) string {
	if len(pts) == 0 {
		return "—"
	}
	sort.SliceStable(pts, func(i, j int) bool { return pts[i].Mean < pts[j].Mean == lower && pts[i].Mean != pts[j].Mean })
	s := pts[0].Variant
	if len(pts) < 2 {
		return s
	}
	_, p := pairedTest(pts[0], pts[1])
	switch {
	case math.IsNaN(p):
		return s
	case p < 0.05:
		return fmt.Sprintf("%s (p = %s against %s)", s, sig(p), pts[1].Variant)
	}
	return fmt.Sprintf("%s, not significantly ahead of %s (p = %s)", s, pts[1].Variant, sig(p))
}

// writeMarkdown writes the table in Markdown, numbers right-aligned.
func (t Table) writeMarkdown(b *strings.Builder) {
	fmt.Fprintf(b, "\n## %s\n\n|", t.Title)
	for _, h := range t.Head {
		fmt.Fprintf(b, " %s |", cell(h))
	}
	b.WriteString("\n|")
	for _, h := range t.Head {
		if h == "best" {
			b.WriteString("---|")
		} else {
			b.WriteString("---:|")
		}
	}
	b.WriteString("\n")
	for _, r := range t.Rows {
		b.WriteString("|")
		for _, c := range r {
			fmt.Fprintf(b, " %s |", cell(c))
		}
		b.WriteString("\n")
	}
}

// cell escapes the pipes of a table cell's text.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// formatX writes a setting's x as people read it: 10,000, 0.05, 5.951.
func formatX(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return human.Thousands(int(x))
	}
	return sig(x)
}

// sig writes v to four significant digits, "—" for NaN.
func sig(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return fmt.Sprintf("%.4g", v)
}

// interval writes a point as mean [lo, hi] with four significant digits.
func interval(pt Point) string {
	if math.IsNaN(pt.Lo) {
		return sig(pt.Mean)
	}
	return fmt.Sprintf("%.4g [%.4g, %.4g]", pt.Mean, pt.Lo, pt.Hi)
}

// pairedTest returns the correlation of two estimators' values over the
// runs both have, and the two-sided p-value of the paired t-test of
// their mean difference being 0: t = d̄/(s_d/√n) with n − 1 degrees of
// freedom. Either is NaN when undefined (fewer than two runs, or no
// variation).
func pairedTest(a, b Point) (r, p float64) {
	at := map[int]float64{}
	for i, run := range a.Runs {
		at[run] = a.Values[i]
	}
	var x, y, d []float64
	for i, run := range b.Runs {
		if v, ok := at[run]; ok {
			x, y, d = append(x, v), append(y, b.Values[i]), append(d, v-b.Values[i])
		}
	}
	if len(d) < 2 {
		return math.NaN(), math.NaN()
	}
	r = stat.Correlation(x, y, nil)
	mean, sd := stat.MeanStdDev(d, nil)
	if sd == 0 {
		return r, math.NaN()
	}
	t := mean / (sd / math.Sqrt(float64(len(d))))
	st := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(len(d) - 1)}
	return r, 2 * st.CDF(-math.Abs(t))
}

// IntervalsOf says how the points' intervals were made: Student's t
// over the runs, and Clopper and Pearson's for the shares of runs.
func IntervalsOf(points []Point) string {
	for _, p := range points {
		if p.Share {
			return "Student's t over the runs; for a share of runs, a run counting 0 or 1, Clopper and Pearson's exact binomial interval"
		}
	}
	return "Student's t over the runs"
}
