package human

import "fmt"

// Lat writes a latitude for people, to four decimals with its hemisphere:
// 40.4844°N, 33.8688°S.
func Lat(v float64) string { return hemisphere(v, "N", "S") }

// Lon writes a longitude for people, to four decimals with its
// hemisphere: 73.7020°W, 151.2093°E.
func Lon(v float64) string { return hemisphere(v, "E", "W") }

func hemisphere(v float64, pos, neg string) string {
	if v < 0 {
		return fmt.Sprintf("%.4f°%s", -v, neg)
	}
	return fmt.Sprintf("%.4f°%s", v, pos)
}
