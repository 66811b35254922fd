package geo

import (
	"strings"
)

// parseSNAP reads one SNAP line:
//
//	user<TAB>time<TAB>latitude<TAB>longitude[<TAB>location]
//
// Gowalla's lines carry five fields; a missing location is accepted.
func parseSNAP(line string) (Checkin, error) {
	f := strings.Split(line, "\t")
	if len(f) < 4 || len(f) > 5 {
		return Checkin{}, ErrFieldCount
	}
	t, err := parseTime(f[1])
	if err != nil {
		return Checkin{}, &fieldErr{2, fieldError(ErrBadTime, f[1])}
	}
	p, err := parsePoint(f[2], f[3], 3, 4)
	if err != nil {
		return Checkin{}, err
	}
	c := Checkin{User: strings.TrimSpace(f[0]), Time: t, Point: p}
	if len(f) == 5 {
		c.Location = strings.TrimSpace(f[4])
	}
	return c, nil
}
