package mapplot

import (
	"image/color"
	"math"
	"strings"
	"testing"
)

// TestPlanPlot checks the plan's figure: log axes spanning the runs'
// errors, the target and the answer (extrapolated beyond the points
// too), the bound in its colour on the paper, and bad curves refused.
func TestPlanPlot(t *testing.T) {
	c := PlanCurve{XLabel: "users", YLabel: "TV", BoundLabel: "95%", X: []float64{100, 1000, 10000},
		Bound: []float64{0.4, 0.13, 0.04}, Errors: [][]float64{{0.3, 0.4}, {0.1, 0.13}, {0.03, 0.04}}, Target: 0.1, Need: 1500}
	for _, st := range []Style{Print, {Paper: color.Black, Ink: color.White, TextSize: 14}} {
		p, err := PlanPlot(st, c)
		if err != nil {
			t.Fatal(err)
		}
		if !(p.X.Min < 100 && p.X.Max > 10000 && p.Y.Min < 0.03 && p.Y.Max > 0.4) {
			t.Errorf("axes %v–%v × %v–%v do not hold the points", p.X.Min, p.X.Max, p.Y.Min, p.Y.Max)
		}
		img := StyledPlot{Plot: p, Style: st}.Image(600, 400, 1)
		blue := 0
		for y := 0; y < 400; y++ {
			for x := 0; x < 600; x++ {
				r, g, b, _ := img.At(x, y).RGBA()
				pr, pg, pb, _ := Palette[0].RGBA()
				if r == pr && g == pg && b == pb {
					blue++
				}
			}
		}
		if blue < 200 {
			t.Errorf("%d pixels of the bound's colour, want a line of them", blue)
		}
	}
	far := c
	far.Need, far.Extrapolated = 40000, true
	p, err := PlanPlot(Print, far)
	if err != nil || !(p.X.Max > 40000) {
		t.Errorf("extrapolated answer off the axis (max %v): %v", p.X.Max, err)
	}
	bad := c
	bad.Bound = bad.Bound[:2]
	if _, err := PlanPlot(Print, bad); err == nil || !strings.Contains(err.Error(), "3 points, 2 bounds") {
		t.Errorf("mismatched curve: %v", err)
	}
	zero := c
	zero.Bound, zero.Errors, zero.Target = []float64{0, 0, 0}, [][]float64{{0}, {0}, {0}}, math.SmallestNonzeroFloat64
	if _, err := PlanPlot(Print, zero); err == nil {
		t.Error("errors all 0: no refusal")
	}
}

// TestLogTicks125 checks the plan's ticks: 1, 2 and 5 a decade, all
// labelled over three decades at most, the powers alone beyond, whole
// numbers with their thousands separated.
func TestLogTicks125(t *testing.T) {
	labels := func(lo, hi float64) []string {
		var out []string
		for _, tk := range (logTicks125{}).Ticks(lo, hi) {
			if tk.Label != "" {
				out = append(out, tk.Label)
			}
		}
		return out
	}
	if got := strings.Join(labels(0.15, 0.9), " "); got != "0.2 0.5" {
		t.Errorf("0.15–0.9: %q", got)
	}
	if got := strings.Join(labels(150, 25000), " "); got != "200 500 1,000 2,000 5,000 10,000 20,000" {
		t.Errorf("150–25,000: %q", got)
	}
	if got := strings.Join(labels(1, 1e6), " "); got != "1 10 100 1,000 10,000 100,000 1,000,000" {
		t.Errorf("1–10⁶: %q", got)
	}
	if n := len((logTicks125{}).Ticks(1, 1e6)); n != 19 {
		t.Errorf("1–10⁶: %d ticks, want 19 (1, 2, 5 a decade and 10⁶)", n)
	}
}

// TestWithTarget labels the target among the ticks, and leaves off a
// label crowding it.
func TestWithTarget(t *testing.T) {
	var got []string
	for _, tk := range (withTarget{0.3}).Ticks(0.15, 0.9) {
		if tk.Label != "" {
			got = append(got, tk.Label)
		}
	}
	if strings.Join(got, " ") != "0.2 0.5 0.3" {
		t.Errorf("labels %q", got)
	}
	got = got[:0]
	for _, tk := range (withTarget{0.21}).Ticks(0.15, 0.9) {
		if tk.Label != "" {
			got = append(got, tk.Label)
		}
	}
	if strings.Join(got, " ") != "0.5 0.21" {
		t.Errorf("labels %q", got)
	}
}
