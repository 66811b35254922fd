package cli

import (
	"cmp"
	"context"
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"sort"
	"strconv"

	"github.com/privmap/privmap/app/output"
	"github.com/privmap/privmap/app/pipeline"
	"github.com/privmap/privmap/core"
)

// runSimulate is
//
//	privmap simulate -study S -truth T [-n N] [-seed N] [-aggregate] -o reports.csv
//
// It draws N users' data from the truth (or, when -n is not given and the
// study carries its data, as privmap grid writes it, takes those users),
// assigns them to the study's mechanisms by share (largest remainder) and
// writes their reports:
// user,mechanism,report per user, or mechanism,report,count with
// -aggregate (docs/FILES.md).
func runSimulate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("simulate")
	studyName := fs.String("study", "", "study JSON `file`")
	truthName := fs.String("truth", "", "distribution CSV `file` to draw users' data from")
	n := fs.Int("n", 10000, "number of users drawn from the truth (default: the study's data if it has them, else 10000)")
	seed := fs.Uint64("seed", 1, "seed of the PCG generator")
	aggregate := fs.Bool("aggregate", false, "write mechanism,report,count instead of one row per user")
	out := fs.String("o", "", "reports CSV to write")
	record := fs.String("record", "", "also write the simulation's record, `J`.json: the command and its inputs' and output's SHA-256, which privmap report reads")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := cmp.Or(required(fs, "study", "truth", "o"), distinct(fs, []string{"o", "record"}, "study", "truth"), checkUsers(*n)); err != nil {
		return err
	}
	s, err := readStudy(*studyName)
	if err != nil {
		return err
	}
	mechs, err := buildAll(ctx, *studyName, s, stderr)
	if err != nil {
		return err
	}
	truth, err := readTruth(*truthName, &s.Alphabet)
	if err != nil {
		return err
	}
	useData := !isSet(fs, "n") && len(s.Data) > 0
	if useData {
		*n = len(s.Data)
	}
	if err := checkPersonal(*studyName, s, mechs, useData); err != nil {
		return err
	}
	users := pipeline.Users{Data: s.Data, Truth: truth, N: *n}
	if useData {
		users.N, users.People = 0, s.People
	}
	var counts []int
	run := func(emit func(user, j int, r core.Report) error) error {
		var err error
		counts, err = pipeline.Sanitise(ctx, s, mechs, users, *seed, emit, nil)
		return err
	}
	var b output.Batch
	if err := addRecorded(ctx, &b, *out, *record, func(w io.Writer) error {
		if *aggregate {
			return writeAggregate(w, s, run)
		}
		return writeReports(w, s, run)
	}, "simulate", args, nil, []string{*studyName, *truthName}); err != nil {
		return err
	}
	if err := commit(ctx, &b, stdout, stderr, func(w io.Writer) { simulated(w, s, users, *n, *seed, useData, counts) }); err != nil {
		return err
	}
	// An estimate from these reports previews a collection.
	fmt.Fprintf(stderr, "privmap simulate: an estimate from these reports is %s (privmap report says so given this command's -record).\n", pipeline.PreviewWords)
	return nil
}

// simulated says what simulate drew: n reports of users' data or drawn
// from the truth, with the seed, and the users of each mechanism.
func simulated(w io.Writer, s *core.Study, users pipeline.Users, n int, seed uint64, useData bool, counts []int) {
	source := "drawn from the truth"
	if useData {
		source = "of the study's data"
	}
	people, most := users.Persons()
	if most > 1 {
		// People send several reports, each through her one mechanism.
		fmt.Fprintf(w, "simulated %d reports of %d users (at most %d reports from one user, all through her one mechanism) %s (seed %d); users per mechanism:",
			n, people, most, source, seed)
	} else {
		fmt.Fprintf(w, "simulated %d users %s (seed %d):", n, source, seed)
	}
	for i, spec := range s.Mechanisms {
		fmt.Fprintf(w, " %s %d", spec.ID, counts[i])
	}
	fmt.Fprintln(w)
}

// checkUsers checks -n against 1..core.MaxUsers.
func checkUsers(n int) error {
	if n < 1 || n > core.MaxUsers {
		return usageError{msg: fmt.Sprintf("-n must be between 1 and %d (2³²), got %d", core.MaxUsers, n)}
	}
	return nil
}

// isSet reports whether flag name was given on the command line.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// checkPersonal checks that the study carries the personal cells of every
// tag of its personalized mechanisms (PUM), and that the users are the
// study's own (draws from a distribution have no personal cells).
func checkPersonal(name string, s *core.Study, mechs []core.Mechanism, useData bool) error {
	for i, spec := range s.Mechanisms {
		p, ok := mechs[i].(core.Personalized)
		if !ok {
			continue
		}
		if !useData {
			return fmt.Errorf("%s: mechanism %q (%s) needs each user's personal sensitive cells, which users drawn from a distribution lack: "+
				"leave out -n and use a study whose data carry them (privmap grid -study-out S -home)", name, spec.ID, spec.Kind)
		}
		if _, err := s.PersonalOf(p.TagNames()); err != nil {
			return fmt.Errorf("%s: mechanism %q: %w (privmap grid -home writes tag \"home\")", name, spec.ID, err)
		}
	}
	return nil
}

// simulation runs a simulation, passing each user's report to emit.
type simulation func(emit func(user, j int, r core.Report) error) error

func writeReports(w io.Writer, s *core.Study, run simulation) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"user", "mechanism", "report"}); err != nil {
		return err
	}
	rec := make([]string, 3)
	err := run(func(user, j int, r core.Report) error {
		rec[0], rec[1], rec[2] = strconv.Itoa(user), s.Mechanisms[j].ID, r.String()
		return cw.Write(rec)
	})
	if err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}

// group is one row of an aggregated reports file.
type group struct {
	mech   int
	report core.Report
}

func writeAggregate(w io.Writer, s *core.Study, run simulation) error {
	tally := make(map[group]int)
	err := run(func(_, j int, r core.Report) error {
		tally[group{j, r}]++
		return nil
	})
	if err != nil {
		return err
	}
	keys := make([]group, 0, len(tally))
	for g := range tally {
		keys = append(keys, g)
	}
	sort.Slice(keys, func(a, b int) bool {
		ka, kb := keys[a], keys[b]
		if ka.mech != kb.mech {
			return ka.mech < kb.mech
		}
		if ka.report.Symbol != kb.report.Symbol {
			return ka.report.Symbol < kb.report.Symbol
		}
		return ka.report.Bits.String() < kb.report.Bits.String()
	})
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"mechanism", "report", "count"}); err != nil {
		return err
	}
	for _, g := range keys {
		if err := cw.Write([]string{s.Mechanisms[g.mech].ID, g.report.String(), strconv.Itoa(tally[g])}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
