package experiment

import (
	"fmt"
	"io"

	"github.com/privmap/privmap/app/mapplot"
	"github.com/privmap/privmap/app/output"
	"github.com/privmap/privmap/app/plan"
)

// PlanCurve returns the figure of a plan (privmap plan, the Run screen's
// Plan): its runs' errors and their quantile against users or ε, the
// target and the answer.
func PlanCurve(p *plan.Plan) mapplot.PlanCurve {
	c := mapplot.PlanCurve{XLabel: "users", Target: p.Target, Need: p.Need, Extrapolated: p.Extrapolated,
		BoundLabel: fmt.Sprintf("the error at %g%% probability", 100*p.Level)}
	if p.Axis == plan.AxisEps {
		c.XLabel = "ε, as a multiple of the population's"
	}
	c.YLabel = metricLabel(p.Metric, p.Unit)
	for _, pt := range p.Points {
		c.X, c.Bound, c.Errors = append(c.X, pt.X), append(c.Bound, pt.Bound), append(c.Errors, pt.Errors)
	}
	return c
}

// The plan's exported curve is 1400 × 900 pixels, two a point: 700 ×
// 450 points, a page's width.
const planPNGW, planPNGH, planPxPerPt = 1400, 900, 2

// WritePlanPNG draws the plan's curve black on white (mapplot.Print),
// headed by title unless it is "", and writes it as PNG: privmap plan
// -figure and the Run screen's Export PNG….
func WritePlanPNG(w io.Writer, p *plan.Plan, title string) error {
	pl, err := mapplot.PlanPlot(mapplot.Print, PlanCurve(p))
	if err != nil {
		return err
	}
	pl.Title.Text = title
	return output.WritePNG(w, mapplot.StyledPlot{Plot: pl, Style: mapplot.Print}.Image(planPNGW, planPNGH, planPxPerPt))
}

// metricLabel names a plan's error on a figure's axis, with its unit.
func metricLabel(m plan.Metric, unit string) string {
	label := map[plan.Metric]string{plan.TV: "TV to the truth", plan.MaxCell: "largest error of a cell", plan.EMD: "EMD to the truth"}[m]
	if unit != "" {
		label += " (" + unit + ")"
	}
	return label
}
