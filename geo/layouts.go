package geo

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/paulmach/orb"
)

// foursquareGlobalLayout is the record of Yang et al.'s global-scale
// Foursquare check-ins, placed at their venues (Options.Places).
var foursquareGlobalLayout = Layout{Format: FoursquareGlobal, Name: "foursquare-global", Names: []string{"foursquare-global", "tist2015"},
	Shown: []string{"foursquare-global"}, Note: "with -venues", Places: true, FromPath: true, Person: true,
	Read: func(lr *lineReader, res *Result, opt Options) error {
		return readLines(lr, res, opt, opt.Places.parseFoursquareGlobal)
	}}

// yelpLayout is the record of the Yelp Open Dataset's businesses, one JSON
// object a line, a point each and no person.
var yelpLayout = Layout{Format: Yelp, Name: "yelp", Names: []string{"yelp"}, Shown: []string{"yelp"},
	Note: "businesses; with -reviews, reviews", FromPath: true, Line: parseYelpBusiness, NoPerson: true}

// yelpReviewsLayout is the record of Yelp's reviews, placed at their
// businesses (Options.Places), the reviewer the person.
var yelpReviewsLayout = Layout{Format: YelpReviews, Name: "yelp-reviews", Names: []string{"yelp-reviews"}, Places: true, FromPath: true, Person: true,
	Read: func(lr *lineReader, res *Result, opt Options) error {
		return readLines(lr, res, opt, opt.Places.parseYelpReview)
	}}

// geoLifeLayout is the record of GeoLife's PLT trajectories, a file or a
// folder of them (ScanPath).
var geoLifeLayout = Layout{Format: GeoLife, Name: "geolife", Names: []string{"geolife"}, Shown: []string{"geolife"},
	Note: "a folder of PLT trajectories", FromPath: true, Read: readGeoLife, Scan: scanGeoLife}

// ErrUnknownPlace is the reason of a check-in or review whose venue or
// business is not in the places file it is joined with.
var ErrUnknownPlace = errors.New("not in the places file")

// ErrNoPlaces is returned when a format that joins its records with a
// places file (FoursquareGlobal, YelpReviews) is read without one.
var ErrNoPlaces = errors.New("no places file")

// MaxPlaces bounds the places held in memory for a join: the
// Foursquare global-scale data set has 3.7 million venues.
const MaxPlaces = 50_000_000

// Places are the coordinates of venues or businesses by their id, held
// in memory so that check-ins or reviews naming them can be streamed
// (Options.Places). A 24-digit hexadecimal id (Foursquare's) is kept as
// its 12 bytes in a map of fixed-size keys, without a string each: the
// data set's 3.7 million venues then take about a third of the memory.
type Places struct {
	hex   map[[12]byte]orb.Point
	other map[string]orb.Point
	// twice holds the ids listed twice at two points, which no check-in
	// is placed at (skipBad).
	twice map[string]bool
	// Lines and Skipped count the places file's lines and the malformed
	// ones left out.
	Lines, Skipped int
	// Errors holds the first MaxKeptErrors reasons of the lines left out.
	Errors []*ParseError
}

// Len returns the number of places.
func (p *Places) Len() int { return len(p.hex) + len(p.other) }

// hexKey returns the 12 bytes of a 24-digit hexadecimal id.
func hexKey(id string) ([12]byte, bool) {
	var b [12]byte
	if len(id) != 24 {
		return b, false
	}
	_, err := hex.Decode(b[:], []byte(id))
	return b, err == nil
}

// errTwice is the reason of a place listed again at another point.
var errTwice = errors.New("listed twice")

// add records place id at pt. An id listed again at the same point is
// the same place; at another, add fails, and with drop the id is
// forgotten and refused from then on (the last listing silently won).
func (p *Places) add(id string, pt orb.Point, drop bool) error {
	if p.twice[id] {
		return fmt.Errorf("place %q %w, at two points, and left out", clip(id, 40), errTwice)
	}
	old, ok := p.lookup(id)
	switch {
	case ok && old == pt:
		return nil
	case ok:
		err := fmt.Errorf("place %q %w: at %g,%g and at %g,%g (latitude, longitude)", clip(id, 40), errTwice, old[1], old[0], pt[1], pt[0])
		if drop {
			if k, isHex := hexKey(id); isHex {
				delete(p.hex, k)
			} else {
				delete(p.other, id)
			}
			p.twice[strings.Clone(id)] = true
		}
		return err
	}
	if k, ok := hexKey(id); ok {
		p.hex[k] = pt
		return nil
	}
	p.other[strings.Clone(id)] = pt
	return nil
}

// missing is the error of a check-in at the place id, which lookup did
// not find: not in the places file, or listed there twice at two points.
func (p *Places) missing(what, id string) error {
	id = strings.TrimSpace(id)
	if p.twice[id] {
		return fmt.Errorf("%s %q: %w: the places file lists it twice, at two points", what, clip(id, 40), ErrUnknownPlace)
	}
	return fmt.Errorf("%s %q: %w", what, clip(id, 40), ErrUnknownPlace)
}

// lookup returns the point of place id.
func (p *Places) lookup(id string) (orb.Point, bool) {
	id = strings.TrimSpace(id)
	if k, ok := hexKey(id); ok {
		pt, ok := p.hex[k]
		return pt, ok
	}
	pt, ok := p.other[id]
	return pt, ok
}

// ReadPlaces reads a places file in format f — FoursquareGlobal's venues
// (dataset_TIST2015_POIs.txt: venue, latitude, longitude, category,
// country, tab-separated) or Yelp's businesses (business JSON lines) —
// into memory, at most MaxPlaces. Malformed lines fail unless skipBad,
// which counts them. The reading stops once ctx is done.
func ReadPlaces(ctx context.Context, r io.Reader, f Format, skipBad bool) (*Places, error) {
	var parse func(string) (string, orb.Point, error)
	switch f {
	case FoursquareGlobal:
		parse = parseVenue
	case Yelp, YelpReviews:
		parse = func(line string) (string, orb.Point, error) {
			c, err := parseYelpBusiness(line)
			return c.Location, c.Point, err
		}
	default:
		return nil, fmt.Errorf("geo: %w: %v has no places file", ErrUnknownFmt, f)
	}
	lr := newLineReader(r)
	lr.ctx = ctx
	if err := binaryError(lr.br); err != nil {
		return nil, err
	}
	p := &Places{hex: map[[12]byte]orb.Point{}, other: map[string]orb.Point{}, twice: map[string]bool{}}
	for {
		line, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if isBlank(line) {
			continue
		}
		id, pt, err := parse(line)
		if err == nil {
			if p.Len() >= MaxPlaces {
				return nil, fmt.Errorf("geo: line %d: more than %d places", lr.line, MaxPlaces)
			}
			err = p.add(id, pt, skipBad)
		}
		if err != nil {
			pe := lineError(lr.line, err)
			if !skipBad {
				return nil, pe
			}
			p.Skipped++
			if len(p.Errors) < MaxKeptErrors {
				p.Errors = append(p.Errors, pe)
			}
			continue
		}
	}
	p.Lines = lr.line
	if p.Len() == 0 {
		return nil, fmt.Errorf("geo: places file: %w", ErrEmpty)
	}
	return p, nil
}

// parseVenue reads a venue of the Foursquare global-scale data set:
//
//	venue<TAB>latitude<TAB>longitude<TAB>category<TAB>country code
func parseVenue(line string) (string, orb.Point, error) {
	f := strings.Split(line, "\t")
	if len(f) < 3 {
		return "", orb.Point{}, ErrFieldCount
	}
	p, err := parsePoint(f[1], f[2], 2, 3)
	return strings.TrimSpace(f[0]), p, err
}

// parseFoursquareGlobal reads a check-in of the Foursquare global-scale
// data set (dataset_TIST2015_Checkins.txt) and places it at its venue:
//
//	user<TAB>venue<TAB>time<TAB>UTC offset (min)
//
// the time as Twitter writes it (Tue Apr 03 18:00:06 +0000 2012).
func (p *Places) parseFoursquareGlobal(line string) (Checkin, error) {
	f := strings.Split(line, "\t")
	if len(f) != 4 {
		return Checkin{}, ErrFieldCount
	}
	t, err := parseTime(f[2])
	if err != nil {
		return Checkin{}, &fieldErr{3, fieldError(ErrBadTime, f[2])}
	}
	pt, ok := p.lookup(f[1])
	if !ok {
		return Checkin{}, &fieldErr{2, p.missing("venue", f[1])}
	}
	return Checkin{User: strings.TrimSpace(f[0]), Location: strings.TrimSpace(f[1]), Time: t, Point: pt}, nil
}

// yelpRecord holds the members of Yelp's business and review lines that
// privmap reads.
type yelpRecord struct {
	BusinessID string   `json:"business_id"`
	UserID     string   `json:"user_id"`
	Latitude   *float64 `json:"latitude"`
	Longitude  *float64 `json:"longitude"`
	Date       string   `json:"date"`
}

// parseYelpBusiness reads a business of the Yelp Open Dataset
// (yelp_academic_dataset_business.json, one JSON object a line): its
// business_id as the location and its latitude and longitude; no
// person.
func parseYelpBusiness(line string) (Checkin, error) {
	var r yelpRecord
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		return Checkin{}, fmt.Errorf("not a JSON object: %v", clip(err.Error(), 60))
	}
	if r.Latitude == nil || r.Longitude == nil {
		return Checkin{}, errors.New("no latitude and longitude members")
	}
	p, err := floatPoint(*r.Latitude, *r.Longitude)
	if err != nil {
		return Checkin{}, err
	}
	return Checkin{Location: r.BusinessID, Point: p}, nil
}

// parseYelpReview reads a review of the Yelp Open Dataset
// (yelp_academic_dataset_review.json): its user_id as the person, its
// date as the time, placed at its business.
func (p *Places) parseYelpReview(line string) (Checkin, error) {
	var r yelpRecord
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		return Checkin{}, fmt.Errorf("not a JSON object: %v", clip(err.Error(), 60))
	}
	pt, ok := p.lookup(r.BusinessID)
	if !ok {
		return Checkin{}, p.missing("business", r.BusinessID)
	}
	c := Checkin{User: r.UserID, Location: r.BusinessID, Point: pt}
	if r.Date != "" {
		t, err := parseTime(r.Date)
		if err != nil {
			return Checkin{}, fieldError(ErrBadTime, r.Date)
		}
		c.Time = t
	}
	return c, nil
}

// geoLifeHeader is the number of header lines of a GeoLife PLT file.
const geoLifeHeader = 6

// parseGeoLife reads a point of a GeoLife trajectory (a PLT file after
// its six header lines):
//
//	latitude,longitude,0,altitude (feet),days since 1899-12-30,date,time
//
// the date and time in UTC (2008-10-23,02:53:04).
func parseGeoLife(line string) (Checkin, error) {
	f := strings.Split(line, ",")
	if len(f) != 7 {
		return Checkin{}, ErrFieldCount
	}
	p, err := parsePoint(f[0], f[1], 1, 2)
	if err != nil {
		return Checkin{}, err
	}
	t, err := time.Parse("2006-01-02 15:04:05", strings.TrimSpace(f[5])+" "+strings.TrimSpace(f[6]))
	if err != nil {
		return Checkin{}, &fieldErr{6, fieldError(ErrBadTime, f[5]+","+f[6])}
	}
	return Checkin{Time: t, Point: p}, nil
}

// readGeoLife reads a PLT file's points as the check-ins of user.
func readGeoLife(lr *lineReader, res *Result, opt Options) error {
	for lr.line < geoLifeHeader {
		if _, err := lr.next(); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
	}
	return readLines(lr, res, opt, func(line string) (Checkin, error) {
		c, err := parseGeoLife(line)
		c.User = opt.User
		return c, err
	})
}
