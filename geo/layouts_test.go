package geo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fsqVenues and fsqCheckins are the Foursquare global-scale data set's
// two files in its layout (dataset_TIST2015_POIs.txt and _Checkins.txt).
const (
	fsqVenues = "3fd66200f964a52000e71ee3\t40.733596\t-74.003139\tJazz Club\tUS\n" +
		"4a43c0aef964a520c6a61fe3\t35.705101\t139.61959\tCafé\tJP\n" +
		"v-short\t51.5\t-0.12\tPub\tGB\n"
	fsqCheckins = "50756\t4a43c0aef964a520c6a61fe3\tTue Apr 03 18:00:06 +0000 2012\t540\n" +
		"190571\t3fd66200f964a52000e71ee3\tTue Apr 03 18:00:07 +0000 2012\t-240\n" +
		"190571\tv-short\tWed Apr 04 08:00:07 +0000 2012\t60\n"
)

// TestReadFoursquareGlobal joins the check-ins with their venues, held in
// memory, and refuses a check-in at an unknown venue or without venues.
func TestReadFoursquareGlobal(t *testing.T) {
	places, err := ReadPlaces(context.Background(), strings.NewReader(fsqVenues), FoursquareGlobal, false)
	if err != nil {
		t.Fatal(err)
	}
	if places.Len() != 3 || places.Lines != 3 {
		t.Fatalf("%d places of %d lines, want 3", places.Len(), places.Lines)
	}
	res, err := ReadCheckins(strings.NewReader(fsqCheckins), FoursquareGlobal, Options{Places: places})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Checkins[0]
	if len(res.Checkins) != 3 || res.Format.String() != "foursquare-global" || c.User != "50756" || c.Lat() != 35.705101 || c.Lon() != 139.61959 ||
		!c.Time.Equal(time.Date(2012, 4, 3, 18, 0, 6, 0, time.UTC)) || res.Checkins[2].Lon() != -0.12 {
		t.Fatalf("%d check-ins, the first %+v", len(res.Checkins), c)
	}
	_, err = ReadCheckins(strings.NewReader("1\tnowhere\tTue Apr 03 18:00:06 +0000 2012\t0\n"), FoursquareGlobal, Options{Places: places})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 1 || pe.Column != 2 || !errors.Is(err, ErrUnknownPlace) {
		t.Errorf("an unknown venue: %v", err)
	}
	if _, err := ReadCheckins(strings.NewReader(fsqCheckins), FoursquareGlobal, Options{}); !errors.Is(err, ErrNoPlaces) {
		t.Errorf("no venues: %v", err)
	}
	if _, err := ReadPlaces(context.Background(), strings.NewReader("v\t95\t0\n"), FoursquareGlobal, false); !errors.Is(err, ErrBadLatitude) {
		t.Errorf("a venue at latitude 95: %v", err)
	}
	if f, err := ParseFormat("foursquare-global"); f != FoursquareGlobal || err != nil {
		t.Errorf("ParseFormat(foursquare-global) = %v, %v", f, err)
	}
}

// yelpBusinesses and yelpReviews are the Yelp Open Dataset's business and
// review JSON lines, other members left out or shortened.
const (
	yelpBusinesses = `{"business_id":"Pns2l4eNsfO8kk83dixA6A","name":"Abby Rappoport, LAC, CMQ","city":"Santa Barbara","latitude":34.4266787,"longitude":-119.7111968,"stars":5.0,"categories":"Doctors, Traditional Chinese Medicine"}` + "\n" +
		`{"business_id":"mpf3x-BjTdTEA3yCZrAYPw","name":"The UPS Store","latitude":38.551126,"longitude":-90.335695,"stars":3.0}` + "\n"
	yelpReviews = `{"review_id":"KU_O5udG6zpxOg-VcAEodg","user_id":"mh_-eMZ6K5RLWhZyISBhwA","business_id":"mpf3x-BjTdTEA3yCZrAYPw","stars":3.0,"date":"2018-07-07 22:09:11","text":"If you decide to eat here, just be aware..."}` + "\n" +
		`{"review_id":"BiTunyQ73aT9WBnpR9DZGw","user_id":"mh_-eMZ6K5RLWhZyISBhwA","business_id":"Pns2l4eNsfO8kk83dixA6A","stars":5.0,"date":"2012-01-03 15:28:18","text":"I've taken a lot of spin classes"}` + "\n"
)

// TestReadYelp reads the businesses as points without persons, and the
// reviews as their reviewers' check-ins at the businesses.
func TestReadYelp(t *testing.T) {
	res, err := ReadCheckins(strings.NewReader(yelpBusinesses), Yelp, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Checkins) != 2 || !res.NoPerson || res.Checkins[0].Location != "Pns2l4eNsfO8kk83dixA6A" || res.Checkins[0].Lat() != 34.4266787 {
		t.Fatalf("businesses: %+v", res)
	}
	places, err := ReadPlaces(context.Background(), strings.NewReader(yelpBusinesses), Yelp, false)
	if err != nil {
		t.Fatal(err)
	}
	res, err = ReadCheckins(strings.NewReader(yelpReviews), YelpReviews, Options{Places: places})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Checkins[1]
	if len(res.Checkins) != 2 || res.NoPerson || c.User != "mh_-eMZ6K5RLWhZyISBhwA" || c.Lon() != -119.7111968 || !c.Time.Equal(time.Date(2012, 1, 3, 15, 28, 18, 0, time.UTC)) {
		t.Fatalf("reviews: %d, the second %+v", len(res.Checkins), c)
	}
	for in, want := range map[string]error{
		`{"business_id":"x","latitude":91,"longitude":0}`: ErrBadLatitude,
		`{"business_id":"x"}`:                             nil,
		`not json`:                                        nil,
	} {
		_, err := ReadCheckins(strings.NewReader(in+"\n"), Yelp, Options{})
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Line != 1 || want != nil && !errors.Is(err, want) {
			t.Errorf("%s: %v", in, err)
		}
	}
	if _, err := ReadCheckins(strings.NewReader(`{"user_id":"u","business_id":"gone","date":"2012-01-03 15:28:18"}`+"\n"), YelpReviews, Options{Places: places}); !errors.Is(err, ErrUnknownPlace) {
		t.Errorf("a review of an unknown business: %v", err)
	}
}

// pltHeader is the six header lines of a GeoLife PLT file.
const pltHeader = "Geolife trajectory\r\nWGS 84\r\nAltitude is in Feet\r\nReserved 3\r\n0,2,255,My Track,0,0,2,8421376\r\n0\r\n"

// TestScanGeoLife walks a GeoLife Data folder: each PLT file's points are
// the check-ins of the user whose folder holds it, a malformed point
// names its file, and a folder without trajectories is refused.
func TestScanGeoLife(t *testing.T) {
	root := filepath.Join(t.TempDir(), "Data")
	files := map[string]string{
		"000/Trajectory/20081023025304.plt": pltHeader + "39.984702,116.318417,0,492,39744.1201851852,2008-10-23,02:53:04\r\n39.984683,116.31845,0,492,39744.1202546296,2008-10-23,02:53:10\r\n",
		"000/Trajectory/20081024020959.plt": pltHeader + "40.008304,116.319876,0,492,39745.0902662037,2008-10-24,02:09:59\r\n",
		"001/Trajectory/20081023055305.plt": pltHeader + "39.999844,116.326752,0,492,39744.2453125,2008-10-23,05:53:05\r\n",
		"001/Trajectory/empty.plt":          pltHeader,
		"001/labels.txt":                    "Start Time\tEnd Time\tTransportation Mode\n",
	}
	for name, text := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var got []Checkin
	res, err := ScanPath(context.Background(), root, GeoLife, Options{}, func(c Checkin) error {
		c.User = strings.Clone(c.User)
		got = append(got, c)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 || got[0].User != "000" || got[2].User != "000" || got[3].User != "001" || got[1].Lon() != 116.31845 ||
		!got[3].Time.Equal(time.Date(2008, 10, 23, 5, 53, 5, 0, time.UTC)) || res.Format != GeoLife || res.Lines != 22 { // the empty trajectory not counted
		t.Fatalf("read %+v, result %+v", got, res)
	}
	// One user's folder, and a single file, read the same user.
	for _, p := range []string{filepath.Join(root, "001"), filepath.Join(root, "001/Trajectory/20081023055305.plt")} {
		n := 0
		if _, err := ScanPath(context.Background(), p, GeoLife, Options{}, func(c Checkin) error {
			if c.User != "001" {
				t.Errorf("%s: user %q", p, c.User)
			}
			n++
			return nil
		}); err != nil || n != 1 {
			t.Errorf("%s: %d points, %v", p, n, err)
		}
	}
	bad := filepath.Join(root, "002/Trajectory/x.plt")
	os.MkdirAll(filepath.Dir(bad), 0o755)
	os.WriteFile(bad, []byte(pltHeader+"39.9,116.3,0,492,39744.1,2008-10-23\r\n"), 0o644)
	_, err = ScanPath(context.Background(), root, GeoLife, Options{}, func(Checkin) error { return nil })
	var pe *ParseError
	if !errors.As(err, &pe) || pe.File != filepath.Join("Data", "002", "Trajectory", "x.plt") || pe.Line != 7 || !strings.HasPrefix(err.Error(), "Data/002/Trajectory/x.plt: line 7: ") {
		t.Errorf("a malformed point: %v", err)
	}
	res, err = ScanPath(context.Background(), root, GeoLife, Options{SkipBad: true}, func(Checkin) error { return nil })
	if err != nil || res.Skipped != 1 || res.Errors[0].File == "" {
		t.Errorf("skipped: %v, %+v", err, res)
	}
	if _, err := ScanPath(context.Background(), t.TempDir(), GeoLife, Options{}, func(Checkin) error { return nil }); !errors.Is(err, ErrEmpty) {
		t.Errorf("a folder without trajectories: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ScanPath(ctx, root, GeoLife, Options{}, func(Checkin) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestPlacesTwice: a venue listed twice at two points is refused, naming
// both (the last listing silently won); with skipBad it is left out, and
// a check-in there says why; listed twice at one point it is one place.
func TestPlacesTwice(t *testing.T) {
	twice := fsqVenues + "v-short\t48.85\t2.35\tCafé\tFR\n" + "3fd66200f964a52000e71ee3\t40.733596\t-74.003139\tJazz Club\tUS\n"
	_, err := ReadPlaces(context.Background(), strings.NewReader(twice), FoursquareGlobal, false)
	if err == nil || err.Error() != `line 4: place "v-short" listed twice: at 51.5,-0.12 and at 48.85,2.35 (latitude, longitude)` {
		t.Errorf("a venue at two points: %v", err)
	}
	places, err := ReadPlaces(context.Background(), strings.NewReader(twice+"v-short\t51.5\t-0.12\tPub\tGB\n"), FoursquareGlobal, true)
	if err != nil || places.Len() != 2 || places.Skipped != 2 {
		t.Fatalf("skipping: %v, %d places, %d lines skipped", err, places.Len(), places.Skipped)
	}
	_, err = ReadCheckins(strings.NewReader(fsqCheckins), FoursquareGlobal, Options{Places: places})
	if err == nil || !strings.Contains(err.Error(), `venue "v-short": not in the places file: the places file lists it twice, at two points`) {
		t.Errorf("a check-in at the venue listed twice: %v", err)
	}
}
