package attack

import (
	"encoding/csv"
	"io"
	"math"
	"strconv"
)

// CSVHeader is the header of an attack's CSV (docs/FILES.md): one row a
// mechanism with the one-report figures (reports "one"), then, with the
// home attack, one row for every person of it (reports "all") and one
// a bin of Bins; the population's rows are named mechanism "all".
var CSVHeader = []string{"mechanism", "kind", "level", "reports", "people",
	"bayes_success", "prior_success", "expected_error", "prior_error", "unit", "within_0.5km", "within_1km", "within_2km",
	"home_exact", "home_within_1", "home_median"}

// WriteCSV writes the attack's rows: ms from Expose, and p from
// AttackPeople or nil.
func WriteCSV(w io.Writer, ms []Mechanism, p *People) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		return err
	}
	for _, m := range ms {
		row := []string{m.Spec.ID, string(m.Spec.Kind), m.Level, "one", "",
			num(m.Success), num(m.Prior), "", "", "", "", "", "", "", "", ""}
		if m.NotMeasured != "" {
			row[5], row[6] = "", ""
		}
		if m.Distance {
			row[7], row[8], row[9] = num(m.ExpectedError), num(m.PriorError), m.Unit
			for i := range m.Within {
				row[10+i] = num(m.Within[i])
			}
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	if p != nil {
		for j, g := range p.Mechs {
			if err := writeGroup(cw, ms[j].Spec.ID, string(ms[j].Spec.Kind), ms[j].Level, g); err != nil {
				return err
			}
		}
		if err := writeGroup(cw, "all", "", "", p.All); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func writeGroup(cw *csv.Writer, id, kind, level string, g Group) error {
	row := func(reports string, h Homes) []string {
		r := []string{id, kind, level, reports, strconv.Itoa(h.People), "", "", "", "", "", "", "", "",
			num(h.Exact), "", ""}
		if h.Distance {
			r[14], r[15] = num(h.Within1), num(h.Median)
		}
		return r
	}
	if err := cw.Write(row("all", g.All)); err != nil {
		return err
	}
	for i, b := range Bins {
		if err := cw.Write(row(b.Label, g.Bins[i])); err != nil {
			return err
		}
	}
	return nil
}

// num writes v in full precision, empty for NaN.
func num(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
