package human

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Thousands formats n with comma thousands separators, as the window
// and the cost model print counts.
func Thousands(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + Thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Duration writes a measured duration for a person, to three
// figures at most: "104 ms", "2.28 s", "16.7 s", "1 min 35 s", "2 h 5 min".
func Duration(d time.Duration) string {
	switch s := d.Seconds(); {
	case s < 1:
		return fmt.Sprintf("%.0f ms", s*1000)
	case s < 10:
		return fmt.Sprintf("%.2f s", s)
	case s < 60:
		return fmt.Sprintf("%.1f s", s)
	case s < 3600:
		m := int(s) / 60
		return fmt.Sprintf("%d min %d s", m, int(s)-60*m)
	default:
		h := int(s) / 3600
		return fmt.Sprintf("%d h %d min", h, (int(s)-3600*h)/60)
	}
}

// Bytes writes a number of bytes for a person: 650 MB, 1.3 GB.
func Bytes(b float64) string {
	units := []string{"bytes", "kB", "MB", "GB", "TB", "PB"}
	i := 0
	for b >= 1000 && i < len(units)-1 {
		b /= 1000
		i++
	}
	switch {
	case i == 0 || b >= 10:
		return fmt.Sprintf("%.0f %s", b, units[i])
	}
	return fmt.Sprintf("%.1f %s", b, units[i])
}

// Odds writes the odds factor e^eps for people: ×1.88, ×4,625,
// ×3.71 million, ×2.4 billion, and past a trillion ×10^16 (the power of
// ten below it).
func Odds(eps float64) string {
	f := math.Exp(eps)
	switch {
	case f < 10:
		return fmt.Sprintf("×%.3g", f)
	case f < 1e6:
		return "×" + Thousands(int(math.Round(f)))
	case f < 1e9:
		return fmt.Sprintf("×%.3g million", f/1e6)
	case f < 1e12:
		return fmt.Sprintf("×%.3g billion", f/1e9)
	}
	return fmt.Sprintf("×10^%d", int(eps/math.Ln10))
}

// Percent writes a share as a percentage to three figures.
func Percent(v float64) string { return fmt.Sprintf("%.3g%%", 100*v) }

// Split says how a person's records fall among the cells: "all 3 in
// one cell", "one in each of 3 cells", "3, 2 and 2 in 3 cells".
func Split(split []int) string {
	switch {
	case len(split) == 0:
		return "no records"
	case len(split) == 1:
		return fmt.Sprintf("all %s in one cell", Thousands(split[0]))
	case len(split) > 1 && split[0] == 1:
		return fmt.Sprintf("one in each of %s cells", Thousands(len(split)))
	}
	parts := make([]string, len(split))
	for i, d := range split {
		parts[i] = Thousands(d)
	}
	if len(parts) > 6 {
		parts = append(parts[:3], "…", parts[len(parts)-1])
	}
	return fmt.Sprintf("%s and %s in %s cells", strings.Join(parts[:len(parts)-1], ", "), parts[len(parts)-1], Thousands(len(split)))
}

// Eps writes a privacy level for people to read: at most six
// significant figures, without the binary noise of floating point
// (0.9999999999999999 is 1).
func Eps(eps float64) string {
	return strconv.FormatFloat(eps, 'g', 6, 64)
}

// Plural writes n and the noun in its number: "1 record", "3 records".
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return Thousands(n) + " " + many
}

// RoundUp rounds v > 0 up to n significant figures, as the decimal
// that prints with them.
func RoundUp(v float64, n int) float64 {
	e := math.Floor(math.Log10(v)) - float64(n-1)
	up := math.Ceil(v/math.Pow(10, e)-1e-9) * math.Pow(10, e)
	r, _ := strconv.ParseFloat(strconv.FormatFloat(up, 'g', n, 64), 64)
	return r
}
