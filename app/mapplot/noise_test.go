package mapplot

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"testing"
)

// TestNoisePlot checks the noise figure: its log axis spans the curves'
// probabilities, both curves are drawn in their colours on the paper,
// and bad curves are refused.
func TestNoisePlot(t *testing.T) {
	geometric := func(alpha float64) NoiseCurve {
		c := NoiseCurve{Label: "geometric"}
		for k := -20; k <= 20; k++ {
			c.K = append(c.K, k)
			c.P = append(c.P, (1-alpha)/(1+alpha)*math.Pow(alpha, math.Abs(float64(k))))
		}
		return c
	}
	a, b := geometric(0.5), geometric(0.8)
	for _, st := range []Style{Print, {Paper: color.Black, Ink: color.White, TextSize: 14}} {
		p, err := NoisePlot(st, 3, "break-point", a, b)
		if err != nil {
			t.Fatal(err)
		}
		// Four decades below the peak of a, from b's tail at ±20 up.
		if peak := a.P[20]; p.Y.Min != peak*1e-4 || !(p.Y.Max > peak) {
			t.Errorf("y from %v to %v, want from %v past the peak %v", p.Y.Min, p.Y.Max, peak*1e-4, peak)
		}
		img := StyledPlot{p, st}.Image(400, 300, 1.5).(*image.RGBA)
		if got := img.Bounds().Dx(); got != 400 {
			t.Errorf("image %d pixels wide, want 400", got)
		}
		seen := map[color.RGBA]bool{}
		for y := range 300 {
			for x := range 400 {
				seen[img.RGBAAt(x, y)] = true
			}
		}
		paper := color.RGBAModel.Convert(st.Paper).(color.RGBA)
		for i, c := range []color.Color{Palette[0], Palette[1], paper} {
			if !seen[color.RGBAModel.Convert(c).(color.RGBA)] {
				t.Errorf("colour %d (%v) not drawn", i, c)
			}
		}
	}
	if _, err := NoisePlot(Print, 0, "", NoiseCurve{K: []int{0, 1}, P: []float64{1}}); err == nil {
		t.Error("a curve of 2 points and 1 value accepted")
	}
	if _, err := NoisePlot(Print, 0, "", NoiseCurve{K: []int{0}, P: []float64{0}}); err == nil {
		t.Error("a curve of no probability accepted")
	}
}

// TestDecadeTicks checks the noise figure's probability ticks: every
// power of ten, at most six labelled, counted down from the top one.
func TestDecadeTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		want   []string
	}{
		{3e-5, 8, []string{"1", "0.1", "0.01", "0.001", "1e-4"}},
		{1e-16, 1, []string{"1", "0.001", "1e-6", "1e-9", "1e-12", "1e-15"}},
	} {
		var got []string
		n := 0
		for _, tk := range (decadeTicks{}).Ticks(tc.lo, tc.hi) {
			n++
			if tk.Label != "" {
				got = append([]string{tk.Label}, got...)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("ticks of [%v, %v]: %v, want %v", tc.lo, tc.hi, got, tc.want)
		}
		if want := int(math.Floor(math.Log10(tc.hi)+1e-9)) - int(math.Ceil(math.Log10(tc.lo)-1e-9)) + 1; n != want {
			t.Errorf("%d ticks in [%v, %v], want %d", n, tc.lo, tc.hi, want)
		}
	}
}
