package cli

import (
	"context"
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/privmap/privmap/app/output"
	"github.com/privmap/privmap/app/studyfile"
	"github.com/privmap/privmap/core"
	"github.com/privmap/privmap/geo/census"
)

// listFlag is a flag that may be given several times.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, " ") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

// censusOpts are grid's flags for census files.
type censusOpts struct {
	attrs   *string
	bins    listFlag
	merges  listFlag
	missing *string
	ordinal *bool
}

func censusFlags(fs *flag.FlagSet) *censusOpts {
	c := &censusOpts{}
	c.attrs = fs.String("attrs", "age,sex,income,marital", "census: attributes to tabulate, comma-separated: presets age, sex, income, marital (CEM Table 2) or column names")
	fs.Var(&c.bins, "bins", "census: bin a numeric attribute at edges `A=E1,E2,…` (bin i is [Ei, Ei+1), the last Ek and above); repeatable")
	fs.Var(&c.merges, "merge", "census: merge values of a column into one category, `A=LABEL:V1|V2|…`; repeatable")
	c.missing = fs.String("missing", "drop", "census: a missing value (?) drops the record (drop) or is a category of its own (category)")
	c.ordinal = fs.Bool("ordinal", false, "census: write a linear alphabet (one ordered attribute: distance 1 between successive categories)")
	return c
}

// runGridCensus tabulates a census file over the chosen attributes and
// writes the truth (cell,probability,count,label and a column per
// attribute) and optionally the study with every person's symbol.
func runGridCensus(ctx context.Context, c *censusOpts, in, format, out, studyOut, preset string, skipBad bool, rec *recording, stdout, stderr io.Writer) error {
	f, err := census.ParseFormat(format)
	if err != nil {
		return usageError{msg: err.Error()}
	}
	missing, err := census.ParseMissing(*c.missing)
	if err != nil {
		return usageError{msg: err.Error()}
	}
	fh, err := os.Open(in)
	if err != nil {
		return err
	}
	defer fh.Close()
	r, err := census.NewReader(fh, f)
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	attrs, err := c.attributes(f, r.Columns())
	if err != nil {
		return usageError{msg: err.Error()}
	}
	tab, err := census.Tabulate(r, attrs, census.Options{Missing: missing, SkipBad: skipBad})
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	a, err := tab.Alphabet(*c.ordinal)
	if err != nil {
		return usageError{msg: err.Error()}
	}
	rec.Add(out, func(w io.Writer) error { return writeCensusTruth(w, tab, a) }, in)
	if studyOut != "" {
		// The window rebuilds a census table from its attributes alone: a
		// study binned or merged here records no source to reopen.
		var src *studyfile.Source
		if len(c.bins) == 0 && len(c.merges) == 0 && !*c.ordinal {
			src = studyfile.CensusSource(absPath(in), f, *c.attrs, missing)
		}
		if err := addStudy(rec, studyOut, &core.Study{Alphabet: a, Data: tab.Data, MaxPerPerson: 1}, preset, in, src); err != nil {
			return err
		}
	}
	var b output.Batch
	if err := rec.addTo(ctx, &b, nil, []string{in}); err != nil {
		return err
	}
	return commit(ctx, &b, stdout, stderr, func(w io.Writer) { printCensusSummary(w, in, tab, a, missing) })
}

// attributes resolves -attrs with the -bins and -merge rules.
func (c *censusOpts) attributes(f census.Format, columns []string) ([]census.Attr, error) {
	bins, err := keyed(c.bins, "-bins")
	if err != nil {
		return nil, err
	}
	merges, err := keyed(c.merges, "-merge")
	if err != nil {
		return nil, err
	}
	attrs, err := census.Attributes(f, columns, *c.attrs)
	if err != nil {
		return nil, err
	}
	var names []string // as Attributes reads them, lower-cased
	for _, n := range strings.Split(*c.attrs, ",") {
		if n = strings.ToLower(strings.TrimSpace(n)); n != "" {
			names = append(names, n)
		}
	}
	for i, a := range attrs {
		name := names[i]
		if e, ok := bins[name]; ok {
			delete(bins, name)
			if a, err = withEdges(a, e); err != nil {
				return nil, err
			}
		}
		if ms, ok := merges[name]; ok {
			delete(merges, name)
			if a, err = withMerges(a, ms); err != nil {
				return nil, err
			}
		}
		attrs[i] = a
	}
	for name := range bins {
		return nil, fmt.Errorf("-bins names %q, which is not in -attrs", name)
	}
	for name := range merges {
		return nil, fmt.Errorf("-merge names %q, which is not in -attrs", name)
	}
	return attrs, nil
}

// keyed splits "A=rest" values by their lower-cased attribute name.
func keyed(vals []string, flagName string) (map[string][]string, error) {
	out := map[string][]string{}
	for _, v := range vals {
		k, rest, ok := strings.Cut(v, "=")
		if !ok || strings.TrimSpace(k) == "" || rest == "" {
			return nil, fmt.Errorf("%s %q: want ATTRIBUTE=…", flagName, v)
		}
		k = strings.ToLower(strings.TrimSpace(k))
		out[k] = append(out[k], rest)
	}
	return out, nil
}

// withEdges makes a a numeric attribute binned at the edges given.
func withEdges(a census.Attr, spec []string) (census.Attr, error) {
	if len(spec) > 1 {
		return a, fmt.Errorf("-bins given twice for %s", a.Name)
	}
	var edges []float64
	for _, s := range strings.Split(spec[0], ",") {
		e, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return a, fmt.Errorf("-bins %s: edge %q is not a number", a.Name, s)
		}
		edges = append(edges, e)
	}
	b := census.Attr{Name: a.Name, Column: a.Column, Edges: edges}
	return b, b.Validate()
}

// withMerges makes a an attribute of its raw values, with the values of
// each LABEL:V1|V2 merged into the category LABEL.
func withMerges(a census.Attr, specs []string) (census.Attr, error) {
	b := census.Attr{Name: a.Name, Column: a.Column, Merge: map[string]string{}}
	for _, s := range specs {
		label, vals, ok := strings.Cut(s, ":")
		if !ok || label == "" || vals == "" {
			return a, fmt.Errorf("-merge %s=%s: want LABEL:V1|V2|…", a.Name, s)
		}
		for _, v := range strings.Split(vals, "|") {
			if prev, dup := b.Merge[v]; dup {
				return a, fmt.Errorf("-merge %s: value %q merged into both %q and %q", a.Name, v, prev, label)
			}
			b.Merge[v] = label
		}
	}
	return b, b.Validate()
}

// writeCensusTruth writes the distribution file of docs/FILES.md
// with the extra columns count, label and the category of every attribute.
func writeCensusTruth(w io.Writer, tab *census.Table, a core.Alphabet) error {
	cw := csv.NewWriter(w)
	head := []string{"cell", "probability", "count", "label"}
	for _, ax := range tab.Axes {
		head = append(head, ax.Name)
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	p := tab.Distribution()
	var d []int
	for i, n := range tab.Counts() {
		rec := []string{strconv.Itoa(i), strconv.FormatFloat(p[i], 'g', -1, 64), strconv.Itoa(n), a.Labels[i]}
		d = a.Digits(d, i)
		for j, ax := range tab.Axes {
			rec = append(rec, ax.Labels[d[j]])
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func printCensusSummary(w io.Writer, name string, tab *census.Table, a core.Alphabet, missing census.Missing) {
	fmt.Fprintf(w, "%s: %s format, %d lines, %d records", name, tab.Format, tab.Lines, tab.Records)
	if tab.Skipped > 0 {
		fmt.Fprintf(w, ", %d bad lines skipped", tab.Skipped)
	}
	fmt.Fprintln(w)
	printSkipped(w, tab.Skipped, tab.Errors)
	var parts []string
	for _, ax := range tab.Axes {
		parts = append(parts, fmt.Sprintf("%s (%s) %d", ax.Name, ax.Column, len(ax.Labels)))
	}
	nonEmpty := 0
	for _, n := range tab.Counts() {
		if n > 0 {
			nonEmpty++
		}
	}
	fmt.Fprintf(w, "alphabet: %s, %s = %d categories, %d non-empty\n", a.Kind, strings.Join(parts, " × "), a.Len(), nonEmpty)
	for _, ax := range tab.Axes {
		if ax.Missing > 0 {
			fmt.Fprintf(w, "missing: %s in %d records (%s)\n", ax.Name, ax.Missing, missing)
		}
	}
	fmt.Fprintf(w, "data: %d people", len(tab.Data))
	if tab.Dropped > 0 {
		fmt.Fprintf(w, ", %d records dropped for a missing value", tab.Dropped)
	}
	fmt.Fprintln(w)
}
