package guarantee

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/privmap/privmap/app/human"
	"github.com/privmap/privmap/core"
	"github.com/privmap/privmap/core/emd"
)

// TestPlainReading checks the privacy officer's reading of an audit.
func TestPlainReading(t *testing.T) {
	for _, tc := range []struct {
		au   core.Audit
		want string
	}{
		{core.Audit{LDP: 1.1, GeoInd: math.NaN()}, "Seeing a report, the odds between any two values change at most ×3."},
		{core.Audit{LDP: 8.44, GeoInd: 0.632, GeoIndUpper: 0.632, GeoUnit: "km"},
			"Seeing a report, the odds between two places within 1 km change at most ×1.88, and between any two values at most ×4,629."},
		{core.Audit{LDP: 30, GeoInd: math.NaN()}, "Seeing a report, the odds between any two values change at most ×10^13."},
		{core.Audit{LDP: 15.631, GeoInd: math.NaN()}, "Seeing a report, the odds between any two values change at most ×6.14 million."},
		{core.Audit{LDP: 23.891, GeoInd: math.NaN()}, "Seeing a report, the odds between any two values change at most ×23.8 billion."},
		{core.Audit{LDP: math.Inf(1), GeoInd: math.NaN()}, "Some reports tell any two values apart for certain."},
		{core.Audit{LDP: math.Inf(1), GeoInd: 2, GeoIndUpper: 2, GeoUnit: "step"},
			"Seeing a report, the odds between two places within 1 step change at most ×7.39, but some reports tell any two values apart for certain."},
		// k-RR on a map: its bound anywhere is the tighter one.
		{core.Audit{LDP: 1, GeoInd: 2, GeoIndUpper: 2, GeoUnit: "km"}, "Seeing a report, the odds between any two values change at most ×2.72."},
		{core.Audit{LDP: 1, GeoInd: math.NaN(), Protected: true},
			"Seeing a report, the odds between any two sensitive values change at most ×2.72. A non-sensitive value may be reported as it is."},
	} {
		if got := PlainReading(tc.au); got != tc.want {
			t.Errorf("%+v:\n got %q\nwant %q", tc.au, got, tc.want)
		}
	}
}

// TestPersonReading composes the audit of real mechanisms over a
// person's reports and checks the sentence's numbers against the audit:
// k-RR at ε = 3.05 audits at ε-LDP 3.05, so 1,794 reports give 5,472;
// a planar mechanism at 0.632 per km on FW's grid audits at 0.632 per km,
// so 20 reports give 12.64 per km, odds ×e^12.64 within 1 km.
func TestPersonReading(t *testing.T) {
	grid := core.Alphabet{Kind: core.KindGrid, Cols: 24, Rows: 16, CellKm: 0.5}
	audit := func(spec core.MechanismSpec) core.Audit {
		m, err := core.NewMechanism(spec, grid)
		if err != nil {
			t.Fatal(err)
		}
		au, err := core.AuditMechanism(context.Background(), m, grid)
		if err != nil {
			t.Fatal(err)
		}
		return au
	}
	krr := audit(core.MechanismSpec{ID: "k", Kind: core.KindKRR, Epsilon: 3.05})
	want := fmt.Sprintf("All 1,794 reports of one person together: the odds between any two of her values change at most %s (ε = 1,794 × %.3f = %s, sequential composition).",
		human.Odds(1794*krr.LDP), krr.LDP, human.Thousands(int(math.Round(1794*krr.LDP))))
	if got := PersonReading(krr, 1794); got != want || !strings.Contains(got, "= 5,472, sequential") {
		t.Errorf("k-RR, 1,794 reports:\n got %q\nwant %q", got, want)
	}
	if got := PersonReading(krr, 1); got != "" {
		t.Errorf("one report: %q; PlainReading says it all", got)
	}
	planar := audit(core.MechanismSpec{ID: "p", Kind: core.KindPlanar, Epsilon: 0.632})
	got := PersonReading(planar, 20)
	if near := fmt.Sprintf("the odds between two places within 1 km change at most %s, between any two of her values %s", human.Odds(20*planar.GeoIndUpper), human.Odds(20*planar.LDP)); !strings.Contains(got, near) {
		t.Errorf("planar, 20 reports: %q lacks %q", got, near)
	}
	if math.Abs(20*planar.GeoIndUpper-12.64) > 0.02 {
		t.Errorf("planar at 0.632 per km audits at %v per km", planar.GeoIndUpper)
	}
	const certain = "All 3 reports of one person together: some of them tell any two of her values apart for certain."
	if got := PersonReading(core.Audit{LDP: math.Inf(1), GeoInd: math.NaN()}, 3); got != certain {
		t.Errorf("got %q, want %q", got, certain)
	}
}

// TestMetricsReading words the errors of an estimate from their numbers:
// TV 0.12 is 12% of the people, the EMD in its unit, the JSD between 0
// and ln 2.
func TestMetricsReading(t *testing.T) {
	got := MetricsReading(emd.Metrics{TV: 0.12, EMD: 0.438, EMDUnit: "km", JSD: 0.0232, MSE: 0.004825})
	for _, want := range []string{"TV 0.12: 12% of the people would have to move to another cell or category",
		"EMD 0.438 km: moving the estimate onto the truth carries each person 0.438 km on average.",
		"JSD 0.0232 nats: 0 for the same map, ln 2 ≈ 0.693", "Squared error 0.00483: the squared differences"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
	// A map of check-ins says check-ins (issue 44: it said people).
	if got := MetricsReadingOf(emd.Metrics{TV: 0.12, EMD: 0.438, EMDUnit: "km", JSD: 0.0232, MSE: 0.004825}, "check-ins"); !strings.Contains(got, "12% of the check-ins would have to move") ||
		!strings.Contains(got, "carries each check-in 0.438 km") || strings.Contains(got, "people") {
		t.Errorf("check-ins: %q", got)
	}
	if strings.Contains(MetricsReading(emd.Metrics{TV: 0.5, EMD: math.NaN(), JSD: 0.1, MSE: 0.1}), "EMD") {
		t.Error("an EMD without a distance is worded")
	}
}

// TestShapeText: the words of each report shape, from the mechanisms.
func TestShapeText(t *testing.T) {
	a := core.Alphabet{Kind: core.KindCategorical, Size: 9024}
	for _, tc := range []struct {
		spec core.MechanismSpec
		want string
	}{
		{core.MechanismSpec{ID: "l", Kind: core.KindOLH, Epsilon: 4}, "reports a hash seed and one of 56 values"},
		{core.MechanismSpec{ID: "s", Kind: core.KindSS, Epsilon: 1}, "reports 2,427 of the 9,024 symbols"},
		{core.MechanismSpec{ID: "h", Kind: core.KindHR, Epsilon: 1}, "reports one of 16,384 outputs"},
		{core.MechanismSpec{ID: "k", Kind: core.KindKRR, Epsilon: 1}, ""},
	} {
		m, err := core.NewMechanism(tc.spec, a)
		if err != nil {
			t.Fatal(err)
		}
		if got := ShapeText(core.Shape(m), a.Len()); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.spec.Kind, got, tc.want)
		}
	}
}
