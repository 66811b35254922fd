package cli

import (
	"fmt"
	"os"

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

// buildAll builds every mechanism of a study.
func buildAll(name string, s *core.Study) ([]core.Mechanism, error) {
	if len(s.Mechanisms) == 0 {
		return nil, fmt.Errorf("%s: the study lists no mechanisms; add some under \"mechanisms\"", name)
	}
	ms := make([]core.Mechanism, len(s.Mechanisms))
	for i, spec := range s.Mechanisms {
		m, err := core.NewMechanism(spec, s.Alphabet)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		ms[i] = m
	}
	return ms, nil
}
