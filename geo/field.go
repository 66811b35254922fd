package geo

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/paulmach/orb"

	"github.com/privmap/privmap/core"
)

// parsePoint parses a latitude and a longitude given in fields latCol and
// lonCol (1-based, for the error).
func parsePoint(lat, lon string, latCol, lonCol int) (orb.Point, error) {
	y, err := parseLat(lat)
	if err != nil {
		return orb.Point{}, &fieldErr{latCol, err}
	}
	x, err := parseLon(lon)
	if err != nil {
		return orb.Point{}, &fieldErr{lonCol, err}
	}
	return orb.Point{x, y}, nil
}

// floatPoint checks a latitude and a longitude given as numbers (a
// GeoJSON, Yelp or GeoParquet geometry's) as parsePoint checks text: the
// same ranges and errors, without a field number.
func floatPoint(lat, lon float64) (orb.Point, error) {
	return parsePoint(strconv.FormatFloat(lat, 'g', -1, 64), strconv.FormatFloat(lon, 'g', -1, 64), 0, 0)
}

// parseLat parses a latitude in degrees, in [−90, 90].
func parseLat(s string) (float64, error) {
	return parseCoord(s, 90, ErrBadLatitude)
}

// parseLon parses a longitude in degrees, in [−180, 180].
func parseLon(s string) (float64, error) {
	return parseCoord(s, 180, ErrBadLongitude)
}

func parseCoord(s string, limit float64, sentinel error) (float64, error) {
	v, err := core.ParseDecimal(s)
	if err != nil || math.IsNaN(v) || math.Abs(v) > limit {
		return 0, fieldError(sentinel, s)
	}
	return v, nil
}

// timeLayouts are the time forms met in check-in files: ISO 8601 as in
// SNAP (2010-10-19T23:55:27Z), with a space instead of T, a bare date, and
// the Twitter form of the raw Foursquare global-scale dataset
// (Tue Apr 03 18:00:09 +0000 2012).
var timeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05",
	"2006-01-02 15:04:05Z07:00",
	"2006-01-02 15:04:05",
	"2006-01-02",
	time.RubyDate,
	time.RFC1123Z,
	time.RFC1123,
}

// parseTime parses one of timeLayouts, or Unix seconds — milliseconds
// from 10¹¹ on (1973 in milliseconds, the year 5138 in seconds). Times
// without a zone are taken as UTC.
func parseTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, nil
		}
	}
	if v, err := core.ParseDecimal(s); err == nil && v >= 0 && v < 1e14 {
		if v >= 1e11 {
			return time.UnixMilli(int64(v)).UTC(), nil
		}
		sec, frac := math.Modf(v)
		return time.Unix(int64(sec), int64(frac*1e9)).UTC(), nil
	}
	return time.Time{}, fieldError(ErrBadTime, s)
}
