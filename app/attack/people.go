package attack

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/privmap/privmap/app/pipeline"
	"github.com/privmap/privmap/core"
)

// A Bin groups people by the number of reports they sent.
type Bin struct {
	Label  string
	Lo, Hi int
}

// Bins are the groups the home attack is reported by: 1, 2–10, 11–100
// and more than 100 reports.
var Bins = []Bin{{"1", 1, 1}, {"2-10", 2, 10}, {"11-100", 11, 100}, {">100", 101, math.MaxInt}}

// Homes is the outcome of the home attack on a group of people: how
// many, the share whose home was named exactly, the share named within
// 1 km (1 step on a line), and the median distance of the guess from
// the home (NaN for a group of no one; distances only on a grid or a
// line, Distance).
type Homes struct {
	People   int
	Exact    float64
	Within1  float64
	Median   float64
	Distance bool
}

// A Group is the home attack on a group of people, in all and by Bins.
type Group struct {
	All  Homes
	Bins []Homes
}

// People is the home attack on every person of a study's data: each
// person's reports simulated (pipeline.Sanitise, seeded, as a run of
// the window draws them), and the adversary of core.HomeAttack shown
// all of them.
type People struct {
	Seed uint64
	// HomeFrom says where each person's home came from: her most
	// frequent cell over all her check-ins (the study's "home" tag,
	// privmap grid -home), or over her data in the study.
	HomeFrom string
	// All is every attacked person; Mechs[j] the people of mechanism j.
	All   Group
	Mechs []Group
	// Left counts the people not attacked: those of a personalized
	// mechanism (PUM).
	Left int
}

// a person is one person's data and reports.
type person struct {
	home, mech, guess int
	reps              []core.Report
}

// AttackPeople runs the home attack on s's people with mechs as built
// and the adversary's prior; seed draws the reports. progress, when not
// nil, gets the fraction done; ctx cancels.
func AttackPeople(ctx context.Context, s *core.Study, mechs []core.Mechanism, prior Prior, seed uint64, progress func(float64)) (*People, error) {
	switch {
	case len(s.Data) == 0:
		return nil, errors.New("the study holds no data, whose people the attack simulates: grid -study-out writes them")
	case s.PeopleUnknown:
		return nil, errors.New("the data do not say who sent which record: there is no person whose reports to gather")
	}
	if progress == nil {
		progress = func(float64) {}
	}
	h, err := core.NewHomeAttack(mechs, prior.Masses)
	if err != nil {
		return nil, err
	}
	people, index, from := homes(s)
	_, err = pipeline.Sanitise(ctx, s, mechs, pipeline.Users{Data: s.Data, People: s.People}, seed,
		func(user, j int, r core.Report) error {
			p := &people[index[user]]
			p.mech, p.reps = j, append(p.reps, r)
			return nil
		}, func(f float64) { progress(0.3 * f) })
	if err != nil {
		return nil, err
	}
	if err := guessAll(ctx, h, people, func(f float64) { progress(0.3 + 0.7*f) }); err != nil {
		return nil, err
	}
	out := &People{Seed: seed, HomeFrom: from, Mechs: make([]Group, len(mechs))}
	var all []person
	byMech := make([][]person, len(mechs))
	for _, p := range people {
		if p.guess < 0 {
			out.Left++
			continue
		}
		all = append(all, p)
		byMech[p.mech] = append(byMech[p.mech], p)
	}
	out.All = group(s.Alphabet, all)
	for j := range mechs {
		out.Mechs[j] = group(s.Alphabet, byMech[j])
	}
	progress(1)
	return out, nil
}

// homes returns the study's people, each with her home, the person of
// every datum, and where the homes came from. A person's home is the
// study's "home" tag of her first datum when it has one, else her most
// frequent cell among her data, ties to the one she has first.
func homes(s *core.Study) ([]person, []int, string) {
	index := make([]int, len(s.Data))
	ids := make(map[int]int)
	var people []person
	var counts []map[int]int
	tag := s.Personal["home"]
	for i, x := range s.Data {
		id := i
		if s.People != nil {
			id = s.People[i]
		}
		k, ok := ids[id]
		if !ok {
			k = len(people)
			ids[id] = k
			people = append(people, person{home: x})
			if tag == nil {
				counts = append(counts, map[int]int{})
			} else if tag[i] >= 0 {
				people[k].home = tag[i]
			}
		}
		index[i] = k
		if tag == nil {
			c := counts[k]
			c[x]++
			if h := people[k].home; c[x] > c[h] {
				people[k].home = x
			}
		}
	}
	if tag != nil {
		return people, index, "her most frequent cell over all her check-ins"
	}
	return people, index, "her most frequent cell among her data in the study"
}

// guessAll fills each person's guess on every core.
func guessAll(ctx context.Context, h *core.HomeAttack, people []person, progress func(float64)) error {
	next := make(chan int, 256)
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		done int
	)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				p := &people[i]
				p.guess = h.Guess(p.mech, p.reps)
				mu.Lock()
				done++
				if done%512 == 0 {
					progress(float64(done) / float64(len(people)))
				}
				mu.Unlock()
			}
		})
	}
	var err error
	for i := range people {
		if err = ctx.Err(); err != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	return err
}

// group sums the attack on people, in all and by Bins.
func group(a core.Alphabet, people []person) Group {
	g := Group{All: homesOf(a, people, Bin{Lo: 1, Hi: math.MaxInt})}
	for _, b := range Bins {
		g.Bins = append(g.Bins, homesOf(a, people, b))
	}
	return g
}

// homesOf measures the attack on the people of bin b.
func homesOf(a core.Alphabet, people []person, b Bin) Homes {
	var h Homes
	var dists []float64
	exact, within := 0, 0
	_, _, h.Distance = a.Distance(0, 0)
	for _, p := range people {
		if n := len(p.reps); n < b.Lo || n > b.Hi {
			continue
		}
		h.People++
		if p.guess == p.home {
			exact++
		}
		if d, _, ok := a.Distance(p.guess, p.home); ok {
			dists = append(dists, d)
			if d <= 1+1e-12 {
				within++
			}
		}
	}
	if h.People == 0 {
		h.Exact, h.Within1, h.Median = math.NaN(), math.NaN(), math.NaN()
		return h
	}
	h.Exact = float64(exact) / float64(h.People)
	h.Within1 = float64(within) / float64(h.People)
	h.Median = math.NaN()
	if len(dists) > 0 {
		slices.Sort(dists)
		h.Median = core.Quantile(dists, 0.5)
	}
	if !h.Distance {
		h.Within1 = math.NaN()
	}
	return h
}

// String says who the attack was run on, for messages.
func (p *People) String() string {
	return fmt.Sprintf("%d people, reports drawn with seed %d", p.All.All.People, p.Seed)
}
