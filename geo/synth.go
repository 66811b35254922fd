package geo

import (
	"bufio"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/paulmach/orb"
)

// A Hotspot is a place where synthetic check-ins cluster.
type Hotspot struct {
	Name string
	// Center is the centre as longitude, latitude.
	Center orb.Point
	// SpreadKm is the standard deviation of venue positions about Center.
	SpreadKm float64
	// Weight is the relative popularity as a home and as a destination.
	Weight float64
}

// SanFrancisco lists real San Francisco neighbourhoods inside the FW box
// (37.7228–37.7946 N, 122.5153–122.3789 W) with popularity weights chosen
// by hand to resemble Gowalla's downtown-heavy check-ins. Coordinates are
// the neighbourhoods' approximate centres.
var SanFrancisco = []Hotspot{
	{"Financial District", orb.Point{-122.4010, 37.7905}, 0.35, 10},
	{"Union Square", orb.Point{-122.4075, 37.7880}, 0.30, 9},
	{"SoMa", orb.Point{-122.4056, 37.7785}, 0.55, 9},
	{"Mission", orb.Point{-122.4148, 37.7599}, 0.50, 8},
	{"Civic Center", orb.Point{-122.4193, 37.7793}, 0.30, 4},
	{"Hayes Valley", orb.Point{-122.4245, 37.7759}, 0.30, 4},
	{"Castro", orb.Point{-122.4350, 37.7609}, 0.35, 4},
	{"Mission Bay", orb.Point{-122.3915, 37.7706}, 0.40, 3},
	{"Haight-Ashbury", orb.Point{-122.4481, 37.7692}, 0.35, 3},
	{"Noe Valley", orb.Point{-122.4337, 37.7502}, 0.40, 2},
	{"Inner Sunset", orb.Point{-122.4680, 37.7602}, 0.40, 2},
	{"Golden Gate Park", orb.Point{-122.4862, 37.7694}, 0.90, 3},
	{"Inner Richmond", orb.Point{-122.4650, 37.7800}, 0.45, 2},
	{"Outer Sunset", orb.Point{-122.4940, 37.7530}, 0.70, 1},
	{"Bernal Heights", orb.Point{-122.4152, 37.7389}, 0.40, 1},
	{"Glen Park", orb.Point{-122.4337, 37.7337}, 0.35, 0.5},
}

// FWBound is the San Francisco box of FW §8.2:
// 37.7228–37.7946 N, 122.5153–122.3789 W.
var FWBound = orb.Bound{Min: orb.Point{-122.5153, 37.7228}, Max: orb.Point{-122.3789, 37.7946}}

// SFSeed seeds the PCG generator of privmap's embedded default data.
var SFSeed = [2]uint64{2010, 1019}

// SFSynth are the options of privmap's embedded default data: 2,000 users
// with 7 check-ins on average at 40 venues per neighbourhood of
// SanFrancisco, 60% of them near home, over Gowalla's collection period
// (February 2009 to October 2010), inside FWBound.
var SFSynth = SynthOptions{
	Users:         2000,
	MeanCheckins:  7,
	VenuesPerSpot: 40,
	HomeShare:     0.6,
	Bound:         FWBound,
	Start:         time.Date(2009, 2, 4, 0, 0, 0, 0, time.UTC),
	End:           time.Date(2010, 10, 23, 0, 0, 0, 0, time.UTC),
}

// NewYork lists real New York City neighbourhoods and landmarks inside
// NYCBound, with popularity weights chosen by hand to resemble Gowalla's
// Manhattan-heavy check-ins (two airports and Jersey City's waterfront
// included). Coordinates are the places' approximate centres.
var NewYork = []Hotspot{
	{"Midtown", orb.Point{-73.9840, 40.7549}, 0.60, 10},
	{"Times Square", orb.Point{-73.9855, 40.7580}, 0.25, 8},
	{"Financial District", orb.Point{-74.0090, 40.7075}, 0.40, 7},
	{"Greenwich Village", orb.Point{-74.0020, 40.7336}, 0.40, 6},
	{"SoHo", orb.Point{-74.0000, 40.7233}, 0.30, 5},
	{"East Village", orb.Point{-73.9870, 40.7265}, 0.35, 5},
	{"Upper East Side", orb.Point{-73.9565, 40.7736}, 0.60, 5},
	{"Upper West Side", orb.Point{-73.9754, 40.7870}, 0.60, 5},
	{"Harlem", orb.Point{-73.9465, 40.8116}, 0.70, 3},
	{"Williamsburg", orb.Point{-73.9573, 40.7081}, 0.60, 4},
	{"Downtown Brooklyn", orb.Point{-73.9860, 40.6925}, 0.50, 3},
	{"Park Slope", orb.Point{-73.9800, 40.6710}, 0.60, 2},
	{"Long Island City", orb.Point{-73.9485, 40.7447}, 0.50, 2},
	{"Astoria", orb.Point{-73.9230, 40.7644}, 0.70, 2},
	{"Jackson Heights", orb.Point{-73.8830, 40.7557}, 0.60, 1.5},
	{"Flushing", orb.Point{-73.8330, 40.7580}, 0.70, 1.5},
	{"LaGuardia Airport", orb.Point{-73.8740, 40.7769}, 0.40, 2},
	{"JFK Airport", orb.Point{-73.7781, 40.6413}, 0.80, 2},
	{"Yankee Stadium", orb.Point{-73.9262, 40.8296}, 0.50, 1.5},
	{"Coney Island", orb.Point{-73.9770, 40.5755}, 0.50, 1},
	{"Jersey City", orb.Point{-74.0431, 40.7178}, 0.60, 2},
}

// NYCBound is the box of the New York sample: 40.56–40.90 N,
// 74.06–73.76 W, about 25 × 38 km.
var NYCBound = orb.Bound{Min: orb.Point{-74.06, 40.56}, Max: orb.Point{-73.76, 40.90}}

// NYCSeed seeds the PCG generator of the window's New York sample.
var NYCSeed = [2]uint64{2009, 1123}

// NYCSynth are the options of the window's New York sample: 7,000 users
// with 20 check-ins on average (the size of Gowalla's New York file:
// 138,957 check-ins of 7,115 users) at 120 venues per place of NewYork,
// 60% of them near home, over Gowalla's collection period, inside
// NYCBound.
var NYCSynth = SynthOptions{
	Users:         7000,
	MeanCheckins:  20,
	VenuesPerSpot: 120,
	HomeShare:     0.6,
	Bound:         NYCBound,
	Start:         SFSynth.Start,
	End:           SFSynth.End,
}

// SynthOptions configure Synthesize.
type SynthOptions struct {
	Users int
	// MeanCheckins is the mean number of check-ins per user (at least 1).
	MeanCheckins float64
	// VenuesPerSpot is the number of venues placed about each hotspot.
	VenuesPerSpot int
	// HomeShare is the probability that a check-in is near the user's home
	// hotspot rather than at a hotspot drawn by weight.
	HomeShare float64
	// Bound keeps every venue inside this box (redrawn until inside).
	Bound orb.Bound
	// Start and End bound the check-in times.
	Start, End time.Time
}

// Synthesize returns synthetic Gowalla-style check-ins: venues are placed
// about each hotspot by a normal law of SpreadKm, each user gets a home
// hotspot drawn by weight and 1 + Poisson-like geometric number of
// check-ins (mean MeanCheckins), each at a venue of the home hotspot with
// probability HomeShare and of a hotspot drawn by weight otherwise, at
// times spaced by exponential gaps of mean one day. Users are "0", "1", …
// and each user's check-ins are listed newest first, as in SNAP's file.
// The result depends only on rng's stream.
func Synthesize(rng *rand.Rand, spots []Hotspot, opt SynthOptions) []Checkin {
	venues := placeVenues(rng, spots, opt)
	cum := cumulative(spots)
	span := opt.End.Sub(opt.Start).Seconds()
	var out []Checkin
	for u := 0; u < opt.Users; u++ {
		home := pick(rng, cum)
		n := 1 + geometric(rng, opt.MeanCheckins-1)
		t := opt.Start.Add(time.Duration(rng.Float64()*span) * time.Second)
		user := make([]Checkin, n)
		for k := range user {
			s := home
			if rng.Float64() >= opt.HomeShare {
				s = pick(rng, cum)
			}
			v := s*opt.VenuesPerSpot + rng.IntN(opt.VenuesPerSpot)
			user[k] = Checkin{User: strconv.Itoa(u), Time: t, Point: venues[v], Location: strconv.Itoa(v)}
			t = t.Add(time.Duration(rng.ExpFloat64()*86400) * time.Second)
		}
		for k := n - 1; k >= 0; k-- {
			out = append(out, user[k])
		}
	}
	return out
}

// placeVenues draws VenuesPerSpot venues about each hotspot, rounded to
// 1e−7 degrees (about 1 cm) as the files print them.
func placeVenues(rng *rand.Rand, spots []Hotspot, opt SynthOptions) []orb.Point {
	const kmPerDeg = orb.EarthRadius * math.Pi / 180 / 1000
	v := make([]orb.Point, 0, len(spots)*opt.VenuesPerSpot)
	for _, s := range spots {
		cos := math.Cos(s.Center[1] * math.Pi / 180)
		for range opt.VenuesPerSpot {
			for {
				p := orb.Point{
					s.Center[0] + rng.NormFloat64()*s.SpreadKm/(kmPerDeg*cos),
					s.Center[1] + rng.NormFloat64()*s.SpreadKm/kmPerDeg,
				}
				p[0] = math.Round(p[0]*1e7) / 1e7
				p[1] = math.Round(p[1]*1e7) / 1e7
				if opt.Bound.Contains(p) {
					v = append(v, p)
					break
				}
			}
		}
	}
	return v
}

func cumulative(spots []Hotspot) []float64 {
	c := make([]float64, len(spots))
	sum := 0.0
	for i, s := range spots {
		sum += s.Weight
		c[i] = sum
	}
	for i := range c {
		c[i] /= sum
	}
	return c
}

// pick draws an index with probabilities given by the cumulative cum.
func pick(rng *rand.Rand, cum []float64) int {
	u := rng.Float64()
	for i, c := range cum {
		if u < c {
			return i
		}
	}
	return len(cum) - 1
}

// geometric draws from the geometric law on {0, 1, …} with the given mean.
func geometric(rng *rand.Rand, mean float64) int {
	if mean <= 0 {
		return 0
	}
	q := mean / (1 + mean) // P(K ≥ k+1 | K ≥ k)
	n := 0
	for rng.Float64() < q {
		n++
	}
	return n
}

// WriteSNAP writes check-ins as SNAP lines,
// user<TAB>time<TAB>lat<TAB>lon<TAB>location, times in RFC 3339 UTC.
func WriteSNAP(w io.Writer, cs []Checkin) error {
	bw := bufio.NewWriter(w)
	var b []byte
	for _, c := range cs {
		b = append(b[:0], c.User...)
		b = append(b, '\t')
		b = c.Time.UTC().AppendFormat(b, time.RFC3339)
		b = append(b, '\t')
		b = strconv.AppendFloat(b, c.Lat(), 'f', -1, 64)
		b = append(b, '\t')
		b = strconv.AppendFloat(b, c.Lon(), 'f', -1, 64)
		b = append(b, '\t')
		b = append(b, c.Location...)
		b = append(b, '\n')
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	return bw.Flush()
}
