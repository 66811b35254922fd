package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/privmap/privmap/core"
)

// readStudy opens and validates a study file, naming it in errors.
func readStudy(name string) (*core.Study, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s, err := core.ReadStudy(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return s, nil
}

// readTruth reads a distribution file over k symbols, naming it in errors.
func readTruth(name string, k int) ([]float64, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := core.ReadDistribution(f, k)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return p, nil
}

// buildAll builds every mechanism of a study, reporting the progress of
// long builds (Shokri's linear program) on stderr.
func buildAll(name string, s *core.Study, stderr io.Writer) ([]core.Mechanism, error) {
	if len(s.Mechanisms) == 0 {
		return nil, fmt.Errorf("%s: the study lists no mechanisms; add some under \"mechanisms\"", name)
	}
	ms := make([]core.Mechanism, len(s.Mechanisms))
	for i, spec := range s.Mechanisms {
		m, err := build(spec, s.Alphabet, stderr)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		ms[i] = m
	}
	return ms, nil
}

// build builds one mechanism, printing a line on stderr every few seconds
// while it takes long.
func build(spec core.MechanismSpec, a core.Alphabet, stderr io.Writer) (core.Mechanism, error) {
	start, last := time.Now(), time.Now()
	return core.NewMechanismWith(context.Background(), spec, a, func(iter int, gap float64) {
		if time.Since(last) > 5*time.Second {
			last = time.Now()
			fmt.Fprintf(stderr, "privmap: solving %s %q: iteration %d, optimality gap %.1e, %s\n",
				spec.Kind, spec.ID, iter, gap, time.Since(start).Round(time.Second))
		}
	})
}
