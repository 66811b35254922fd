package geo_test

import (
	"fmt"
	"strings"

	"github.com/privmap/privmap/geo"
)

func ExampleReadCheckins() {
	const snap = "0\t2010-08-19T20:51:29Z\t37.7615082532\t-122.425766587\t28\n" +
		"0\t2010-08-19T20:20:56Z\t37.759688872\t-122.427177429\t29\n" +
		"1\t2010-08-19T07:06:11Z\t37.78594785\t-122.4106178\t30\n"
	res, err := geo.ReadCheckins(strings.NewReader(snap), geo.Auto, geo.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Format, len(res.Checkins), "check-ins by", geo.CountUsers(res.Checkins), "users")
	// Output: snap 3 check-ins by 2 users
}

func ExampleReadCheckins_error() {
	_, err := geo.ReadCheckins(strings.NewReader("lat,lon\n37.7,-122.4\n91,-122.4\n"), geo.Auto, geo.Options{})
	fmt.Println(err)
	// Output: line 3, field 1: "91": invalid latitude
}

func ExampleGridCheckins() {
	cs := []geo.Checkin{
		{User: "a", Point: [2]float64{-122.41, 37.78}},
		{User: "b", Point: [2]float64{-122.41, 37.78}},
		{User: "c", Point: [2]float64{-122.50, 37.73}},
	}
	gd, err := geo.GridCheckins(cs, geo.GridOptions{Bound: geo.FWBound, CellKm: 0.5})
	if err != nil {
		fmt.Println(err)
		return
	}
	g := gd.Grid
	i, _ := g.Index(cs[0].Point)
	fmt.Printf("%d×%d cells; cell %d holds %.3f\n", g.Cols, g.Rows, i, gd.Distribution()[i])
	// Output: 24×16 cells; cell 306 holds 0.667
}
