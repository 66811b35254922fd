package geo

import (
	"strings"
)

// snapLayout is the record of SNAP's layout (layouts): user, time, latitude,
// longitude and location, tab-separated, as loc-gowalla, loc-brightkite
// and the SNAP-style Foursquare subsets write them.
var snapLayout = Layout{Format: SNAP, Name: "snap", Names: []string{"gowalla", "foursquare", "snap", "brightkite"},
	Shown: []string{"gowalla", "foursquare", "brightkite"}, Note: "SNAP's layout", Exts: []string{".txt", ".dat"},
	Sniff: func(line string) bool {
		f := strings.Split(line, "\t")
		if len(f) < 4 {
			return false
		}
		_, err := parseTime(f[1])
		return err == nil
	},
	Line: parseSNAP, Person: true, Tabular: true,
	Columns: map[string]string{"user": "1", "time": "2", "lat": "3", "lon": "4", "loc": "5"}, Delim: '\t'}

// tsmcLayout is the record of Yang et al.'s Foursquare check-ins of New York
// and Tokyo (layouts, parseTSMC).
var tsmcLayout = Layout{Format: TSMC, Name: "tsmc2014", Names: []string{"tsmc2014", "tsmc"},
	Shown: []string{"tsmc2014"}, Note: "Yang et al.'s NYC and Tokyo check-ins", Exts: []string{".txt"},
	Sniff: func(line string) bool {
		if len(strings.Split(line, "\t")) < 4 {
			return false
		}
		_, err := parseTSMC(line)
		return err == nil
	},
	Line: parseTSMC, Person: true, Tabular: true,
	Columns: map[string]string{"user": "1", "loc": "2", "lat": "5", "lon": "6", "time": "8"}, Delim: '\t'}

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

// parseTSMC reads one line of Yang et al.'s Foursquare check-ins of New
// York and Tokyo (TSMC 2014; dataset_TSMC2014_NYC.txt and _TKY.txt):
//
//	user<TAB>venue<TAB>category id<TAB>category<TAB>latitude<TAB>longitude<TAB>UTC offset (min)<TAB>time
//
// the time as Twitter writes it (Tue Apr 03 18:00:09 +0000 2012).
func parseTSMC(line string) (Checkin, error) {
	f := strings.Split(line, "\t")
	if len(f) != 8 {
		return Checkin{}, ErrFieldCount
	}
	p, err := parsePoint(f[4], f[5], 5, 6)
	if err != nil {
		return Checkin{}, err
	}
	t, err := parseTime(f[7])
	if err != nil {
		return Checkin{}, &fieldErr{8, fieldError(ErrBadTime, f[7])}
	}
	return Checkin{User: strings.TrimSpace(f[0]), Location: strings.TrimSpace(f[1]), Time: t, Point: p}, nil
}
