package experiment

import (
	"math"
	"strings"
	"testing"
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
	base := Seed(1, "fw-fig7", "a", 1000, 0)
	for _, s := range []uint64{Seed(2, "fw-fig7", "a", 1000, 0), Seed(1, "fw-fig8", "a", 1000, 0), Seed(1, "fw-fig7", "b", 1000, 0),
		Seed(1, "fw-fig7", "a", 3000, 0), Seed(1, "fw-fig7", "a", 1000, 1)} {
		if s == base {
			t.Errorf("seed %d repeats the base run's", s)
		}
	}
	if Seed(1, "fw-fig7", "a", 1000, 0) != base {
		t.Error("the seed is not a function of the run")
	}
}

// TestPoints checks the mean and Student's 95% interval: for values 1, 2,
// 3 the mean is 2, sd 1, and t(0.975; 2) = 4.302653 gives ±4.302653/√3.
func TestPoints(t *testing.T) {
	var rows []Row
	for i, v := range []float64{1, 2, 3} {
		rows = append(rows, Row{Panel: "a", Users: 10, Method: "GIBU", Run: i, Value: v})
	}
	rows = append(rows, Row{Panel: "a", Users: 20, Method: "GIBU", Value: 5})
	pts := Points(rows)
	if len(pts) != 2 {
		t.Fatalf("%d points", len(pts))
	}
	half := 4.302652729911275 / math.Sqrt(3)
	if p := pts[0]; p.Users != 10 || p.Mean != 2 || math.Abs(p.Hi-2-half) > 1e-9 || math.Abs(2-p.Lo-half) > 1e-9 || p.Runs != 3 {
		t.Errorf("point %+v, want mean 2 ± %g", p, half)
	}
	if p := pts[1]; p.Mean != 5 || !math.IsNaN(p.Lo) {
		t.Errorf("one run: %+v, want no interval", p)
	}
}

// TestList checks every FW figure 2–14 is named once, in figure order,
// with default runs and users.
func TestList(t *testing.T) {
	var names []string
	for _, e := range List() {
		names = append(names, e.Name)
		if e.Runs < 1 || len(e.Users) == 0 || e.Title == "" {
			t.Errorf("%s: runs %d, users %v, title %q", e.Name, e.Runs, e.Users, e.Title)
		}
	}
	want := "fw-fig2 fw-fig3 fw-fig4 fw-fig5 fw-fig6 fw-fig7 fw-fig8 fw-fig9 fw-fig10 fw-fig11 fw-fig12 fw-fig13 fw-fig14"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("experiments %s, want %s", got, want)
	}
	if _, err := Lookup("fw-fig1"); err == nil || !strings.Contains(err.Error(), "fw-fig2") {
		t.Errorf("unknown name: %v", err)
	}
}
