package pipeline

import (
	"fmt"

	"github.com/privmap/privmap/core"
)

// AlphaNote says how corrected EM chose its α, or "" when α was given:
// the simulations' mean error with the correction and without
// (EM's own estimate), and, where α = 0 won, that the map is EM's — a
// correction would have made it worse (issue 45: on New York the
// paper's grid alone chose α = 0.9 and an EMD 17 times GIBU's).
func AlphaNote(est *core.Estimate, opt core.CEMOptions) string {
	if est.EMLoss == 0 {
		return ""
	}
	sims := opt.Simulations()
	from := "EM's estimate"
	if opt.From == core.SimulateReports {
		from = "the reports' frequencies"
	}
	loss := "total variation"
	if opt.Loss == core.LossSquared {
		loss = "squared error"
	}
	what := fmt.Sprintf("%d simulated data sets drawn from %s", sims, from)
	if sims == 1 {
		what = "a data set simulated from " + from
	}
	if est.Alpha == 0 {
		return fmt.Sprintf("Corrected EM left EM's estimate uncorrected (α = 0): on %s every correction of CEM's grid came out further from the truth (mean %s %.3g without a correction)",
			what, loss, est.EMLoss)
	}
	return fmt.Sprintf("Corrected EM chose α = %g: on %s it brought the mean %s from %.3g (EM's) to %.3g",
		est.Alpha, what, loss, est.EMLoss, est.AlphaLoss)
}
