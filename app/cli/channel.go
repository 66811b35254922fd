package cli

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/privmap/privmap/app/guarantee"
	"github.com/privmap/privmap/app/output"
	"github.com/privmap/privmap/app/pipeline"
	"github.com/privmap/privmap/core"
)

// runChannel is
//
//	privmap channel -study S -mechanism ID [-o matrix.csv]
//
// It prints the privacy audit of one mechanism of a study, computed from
// its channel, and writes the dense matrix (rows inputs, columns outputs,
// header x,z0,z1,…) of a mechanism with symbol outputs.
func runChannel(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("channel")
	studyName := fs.String("study", "", "study JSON `file`")
	id := fs.String("mechanism", "", "`id` of the mechanism to audit")
	out := fs.String("o", "", "matrix CSV to write (symbol outputs only)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "study", "mechanism"); err != nil {
		return err
	}
	if err := distinct(fs, []string{"o"}, "study"); err != nil {
		return err
	}
	s, err := readStudy(*studyName)
	if err != nil {
		return err
	}
	spec, ok := s.Find(*id)
	if !ok {
		return fmt.Errorf("%s: no mechanism with id %q", *studyName, *id)
	}
	one := &core.Study{Alphabet: s.Alphabet, Mechanisms: []core.MechanismSpec{spec}}
	ms, err := pipeline.BuildMechanisms(ctx, one, buildProgress(one.Mechanisms, stderr))
	if err != nil {
		return fmt.Errorf("%s: %w", *studyName, err)
	}
	m := ms[0]
	common := m
	if p, ok := m.(core.Personalized); ok {
		common = p.Common()
	}
	c, isChannel := common.(core.Channel)
	if *out != "" && !isChannel {
		return noMatrix(spec, m)
	}
	if entries := float64(m.Inputs()) * float64(m.Inputs()); isChannel && *out != "" && entries > maxMatrixEntries {
		return fmt.Errorf("-o: the %d×%d matrix of mechanism %q has %.2g entries, about %.0f GB of CSV; channel writes at most %.0g entries (a %d-symbol alphabet)",
			m.Inputs(), m.Inputs(), spec.ID, entries, entries*matrixEntryBytes/1e9, maxMatrixEntries, int(math.Sqrt(maxMatrixEntries)))
	}
	au, err := core.AuditMechanism(ctx, m, s.Alphabet)
	if err != nil {
		return err
	}
	var b output.Batch
	if *out != "" {
		b.Add(*out, func(w io.Writer) error { return writeMatrix(w, c) }, *studyName)
	}
	_, most := s.Contributions()
	return commit(ctx, &b, stdout, stderr, func(w io.Writer) {
		printAudit(w, spec, m, au)
		printReading(w, au, most)
	})
}

// noMatrix says why channel -o writes no matrix of m, whose outputs are
// not symbols: bit vectors, or a hash's seed and value.
func noMatrix(spec core.MechanismSpec, m core.Mechanism) error {
	outputs := fmt.Sprintf("2^%d bit-vector outputs", m.Inputs())
	if sh := core.Shape(m); sh.Hashes > 0 {
		outputs = fmt.Sprintf("2^32 × %d outputs (a hash seed and a value)", sh.Hashes)
	}
	return fmt.Errorf("mechanism %q (%s) has %s; no matrix is written", spec.ID, spec.Kind, outputs)
}

// maxMatrixEntries bounds the matrix channel -o writes: 10⁸ entries, a
// 10,000-symbol alphabet, about 2 GB of CSV at matrixEntryBytes each.
const (
	maxMatrixEntries = 1e8
	matrixEntryBytes = 20
)

func printAudit(w io.Writer, spec core.MechanismSpec, m core.Mechanism, a core.Audit) {
	fmt.Fprintf(w, "mechanism %s: %s", spec.ID, spec.Kind)
	if spec.Epsilon > 0 {
		fmt.Fprintf(w, ", nominal ε %g", spec.Epsilon)
	}
	fmt.Fprintf(w, ", %d input symbols\n", m.Inputs())
	if form := guarantee.ShapeText(core.Shape(m), m.Inputs()); form != "" {
		fmt.Fprintln(w, form)
	}
	if p, ok := m.(core.Personalized); ok {
		base := spec.Base
		if base == "" {
			base = core.BaseURR
		}
		k := p.DataSymbols()
		fmt.Fprintf(w, "common %s on the extended alphabet: symbols 0..%d are the data's,", base, k-1)
		for t, name := range p.TagNames() {
			fmt.Fprintf(w, " %d is tag ⊥%s", k+t, name)
		}
		fmt.Fprintf(w, "; a user's personal sensitive datum is sanitised as its tag\n")
	}
	over := "every output"
	if a.Protected {
		over = "protected outputs"
	}
	fmt.Fprintf(w, "worst-case ε-LDP over %s: %s%s\n", over, num(a.LDP), infNote(a.LDP, a.Underflow, spec.Epsilon))
	if a.Protected && a.Invertible < 0 {
		fmt.Fprintln(w, "invertible outputs: each has exactly one possible input")
	} else if a.Protected {
		fmt.Fprintf(w, "invertible outputs: output %d has more than one possible input\n", a.Invertible)
	}
	if !math.IsNaN(a.GeoInd) {
		if a.GeoIndUpper > a.GeoInd {
			fmt.Fprintf(w, "ε-geo-indistinguishability: between %s and %s per %s (certified bounds from neighbouring cells; the map is too large for the exact O(K³) scan)\n",
				num(a.GeoInd), num(a.GeoIndUpper), a.GeoUnit)
		} else {
			fmt.Fprintf(w, "ε-geo-indistinguishability: %s per %s%s\n", num(a.GeoInd), a.GeoUnit, geoInfNote(a))
		}
		if !math.IsNaN(a.QualityMean) { // none where the outputs are not cells (hr)
			fmt.Fprintf(w, "expected quality loss: %s %s mean over inputs, %s %s worst input\n",
				num(a.QualityMean), a.GeoUnit, num(a.QualityWorst), a.GeoUnit)
		}
	}
}

// printReading says in plain words what one report reveals and, when
// the study's people send up to most reports each, what all of one
// person's reveal together (sequential composition).
func printReading(w io.Writer, au core.Audit, most int) {
	fmt.Fprintf(w, "per report: %s\n", guarantee.PlainReading(au))
	if most > 1 {
		fmt.Fprintf(w, "per person: %s\n", guarantee.PersonReading(au, most))
	}
}

func num(v float64) string {
	if math.IsInf(v, 1) {
		return "∞"
	}
	return strconv.FormatFloat(v, 'g', 10, 64)
}

// infNote explains an infinite ratio: an output impossible under some
// inputs, or probabilities that underflow in float64 at ε (see
// core.Audit.Underflow).
func infNote(v float64, underflow bool, eps float64) string {
	switch {
	case !math.IsInf(v, 1):
		return ""
	case underflow:
		return fmt.Sprintf(" (underflows at ε = %g: probabilities that the mechanism's formula makes positive are below float64's 4.9e-324 and read as 0, so some outputs rule out far inputs; a smaller ε keeps every ratio finite)", eps)
	}
	return " (some output is impossible under some inputs)"
}

// geoInfNote is infNote for the geo-indistinguishability line, which
// follows the LDP line's explanation.
func geoInfNote(a core.Audit) string {
	if math.IsInf(a.GeoInd, 1) && a.Underflow {
		return " (underflows, as above)"
	}
	return infNote(a.GeoInd, false, 0)
}

func writeMatrix(w io.Writer, c core.Channel) error {
	cw := csv.NewWriter(w)
	rec := make([]string, c.Outputs()+1)
	rec[0] = "x"
	for z := range c.Outputs() {
		rec[z+1] = "z" + strconv.Itoa(z)
	}
	if err := cw.Write(rec); err != nil {
		return err
	}
	for x := range c.Inputs() {
		rec[0] = strconv.Itoa(x)
		for z := range c.Outputs() {
			rec[z+1] = strconv.FormatFloat(c.Prob(x, z), 'g', -1, 64)
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
