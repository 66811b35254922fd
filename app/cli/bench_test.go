package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/privmap/privmap/app/attack"
	"github.com/privmap/privmap/app/interval"
	"github.com/privmap/privmap/app/pipeline"
	"github.com/privmap/privmap/core"
)

// nycCheckins is Gowalla's New York file in the shared data folder,
// which benchmarks read when it is there (never the tests).
var nycCheckins = filepath.Join("..", "..", "..", "shared", "data", "gowalla", "gowalla_nyc.snap.txt")

// nycSetUp grids New York's check-ins at cell km with FW Table 7's ten
// mechanisms and simulates its 200,000 reports (seed 1) as the CLI does,
// returning what estimate reads; it skips without the file.
func nycSetUp(b *testing.B, cell string) (*core.Study, []core.Mechanism, *core.Groups) {
	b.Helper()
	if _, err := os.Stat(nycCheckins); err != nil {
		b.Skipf("no %s: %v", nycCheckins, err)
	}
	dir := b.TempDir()
	truth, study, reports := filepath.Join(dir, "truth.csv"), filepath.Join(dir, "study.json"), filepath.Join(dir, "reports.csv")
	for _, args := range [][]string{
		{"grid", "-in", nycCheckins, "-cell", cell, "-preset", "fw-t7", "-o", truth, "-study-out", study},
		{"simulate", "-study", study, "-truth", truth, "-n", "200000", "-seed", "1", "-o", reports},
	} {
		if code := Run(context.Background(), args, io.Discard, io.Discard); code != 0 {
			b.Fatalf("privmap %v: exit %d", args, code)
		}
	}
	s, mechs, g, _, err := estimateInputs(context.Background(), study, reports, nil, io.Discard, interval.CI{})
	if err != nil {
		b.Fatal(err)
	}
	return s, mechs, g
}

// BenchmarkNYCGridSweep is issue 45's grid-size sweep: GIBU to its
// certificate on New York's check-ins (FW Table 7, 200,000 reports) at
// 1, 0.5, 0.35 and 0.25 km (2,256 to 36,284 cells). docs/PERFORMANCE.md
// fits the cost's exponent in K from its figures.
func BenchmarkNYCGridSweep(b *testing.B) {
	for _, cell := range []string{"1", "0.5", "0.35", "0.25"} {
		b.Run(cell+"km", func(b *testing.B) {
			s, mechs, g := nycSetUp(b, cell)
			for b.Loop() {
				est, err := core.GIBU(context.Background(), mechs, g, s, core.EMOptions{})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(est.Iterations), "steps")
			}
			b.ReportMetric(float64(s.Alphabet.Len()), "cells")
		})
	}
}

// BenchmarkNYCIntervals is issue 45's city-speed line: the intervals of
// GIBU's estimate on New York at 0.5 km (FW Table 7, 200,000 reports).
// Four bootstrap replicates on both cores, reported a replicate and
// scaled to the 200 a run takes (a projection: the full run takes about
// 3.5 minutes), and the windowed profile of every cell, the default.
func BenchmarkNYCIntervals(b *testing.B) {
	s, mechs, g := nycSetUp(b, "0.5")
	est, err := core.GIBU(context.Background(), mechs, g, s, core.EMOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("bootstrap-4", func(b *testing.B) {
		for b.Loop() {
			if _, err := core.Bootstrap(context.Background(), core.MethodGIBU, s, mechs, g, est, core.EstimateOptions{}, 4, 1, nil); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(b.Elapsed().Seconds()/float64(4*b.N), "s/replicate")
		b.ReportMetric(b.Elapsed().Seconds()*50/float64(b.N), "s/200-replicates")
	})
	// The windowed profile, the default there (core.LocalProfile): every
	// cell's interval and band, against the 200 replicates above.
	b.Run("local-profile", func(b *testing.B) {
		for b.Loop() {
			if _, err := core.LocalProfile(context.Background(), mechs, g, s, est.Theta, 0.95, nil); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/map")
	})
}

// BenchmarkNYCAttack is issue 48's city line: what an attacker learns
// on New York's check-ins at 0.5 km (9,024 cells) with FW Table 7's ten
// mechanisms and the data's map as her prior. one-report/ID times
// core.Expose of each mechanism (the target: 5 s a planar
// mechanism, reported as "of-target", the time's share of it);
// per-person times the home attack on the 7,115 people with every
// check-in (138,957 reports; target 30 s).
func BenchmarkNYCAttack(b *testing.B) {
	if _, err := os.Stat(nycCheckins); err != nil {
		b.Skipf("no %s: %v", nycCheckins, err)
	}
	dir := b.TempDir()
	truthName, studyName := filepath.Join(dir, "truth.csv"), filepath.Join(dir, "study.json")
	args := []string{"grid", "-in", nycCheckins, "-cell", "0.5", "-per-user", "all", "-home", "-preset", "fw-t7", "-o", truthName, "-study-out", studyName}
	if code := Run(context.Background(), args, io.Discard, io.Discard); code != 0 {
		b.Fatalf("privmap %v: exit %d", args, code)
	}
	s, err := readStudy(studyName)
	if err != nil {
		b.Fatal(err)
	}
	truth, err := readTruth(truthName, &s.Alphabet)
	if err != nil {
		b.Fatal(err)
	}
	mechs, err := pipeline.BuildMechanisms(context.Background(), s, nil)
	if err != nil {
		b.Fatal(err)
	}
	for j, m := range mechs {
		b.Run("one-report/"+s.Mechanisms[j].ID, func(b *testing.B) {
			for b.Loop() {
				if _, err := core.Expose(context.Background(), m, s.Alphabet, truth, attack.Radii, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)/5, "of-target")
		})
	}
	b.Run("per-person", func(b *testing.B) {
		prior := attack.Prior{Name: "the data's map", Masses: truth}
		for b.Loop() {
			if _, err := attack.AttackPeople(context.Background(), s, mechs, prior, 1, nil); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)/30, "of-target")
	})
}
