package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/privmap/privmap/app/pipeline"
	"github.com/privmap/privmap/app/studyfile"
	"github.com/privmap/privmap/core"
)

// readStudy opens and validates a study file, naming it in errors. The
// members the window adds (its data source and run) are read and left
// aside.
func readStudy(name string) (*core.Study, error) {
	s, err := studyfile.Open(name)
	if err != nil {
		return nil, err
	}
	return s.Study, nil
}

// readTruth reads a distribution file over the alphabet a (checking
// the columns that place its cells), or, a nil, over the cells it lists;
// errors name the file.
func readTruth(name string, a *core.Alphabet) ([]float64, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var p []float64
	if a != nil {
		p, err = core.ReadDistributionOn(f, *a)
	} else {
		p, err = core.ReadDistribution(f, 0)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return p, nil
}

// buildAll builds every mechanism of a study, reporting the progress of
// long builds (Shokri's linear program) on stderr every few seconds.
func buildAll(ctx context.Context, name string, s *core.Study, stderr io.Writer) ([]core.Mechanism, error) {
	if len(s.Mechanisms) == 0 {
		return nil, fmt.Errorf("%s: the study lists no mechanisms; add some under \"mechanisms\"", name)
	}
	ms, err := pipeline.BuildMechanisms(ctx, s, buildProgress(s.Mechanisms, stderr))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return ms, nil
}

// buildProgress returns a progress function for pipeline.BuildMechanisms
// that prints a line on stderr every few seconds while a build takes long.
func buildProgress(specs []core.MechanismSpec, stderr io.Writer) func(i, iter int, gap float64) {
	var start, last time.Time
	return func(i, iter int, gap float64) {
		if iter == 0 {
			start, last = time.Now(), time.Now()
			return
		}
		if time.Since(last) > 5*time.Second {
			last = time.Now()
			fmt.Fprintf(stderr, "privmap: solving %s %q: iteration %d, optimality gap %.1e, %s\n",
				specs[i].Kind, specs[i].ID, iter, gap, time.Since(start).Round(time.Second))
		}
	}
}
