package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/privmap/privmap/core"
	"github.com/privmap/privmap/core/emd"
)

// runMetrics is
//
//	privmap metrics -truth T -estimate E [-study S]
//
// It prints one JSON line comparing an estimate with the truth: emd (in
// the study's ground distance, km on grids; null without a study or on a
// categorical alphabet), mse, jsd and tv (package core/emd's doc).
func runMetrics(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("metrics")
	truthName := fs.String("truth", "", "true distribution CSV `file`")
	estName := fs.String("estimate", "", "estimated distribution CSV `file`")
	studyName := fs.String("study", "", "study JSON `file` giving the alphabet's ground distance")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "truth", "estimate"); err != nil {
		return err
	}
	var a core.Alphabet
	var on *core.Alphabet // the study's alphabet, if given
	if *studyName != "" {
		s, err := readStudy(*studyName)
		if err != nil {
			return err
		}
		a = s.Alphabet
		on = &a
	}
	truth, err := readTruth(*truthName, on)
	if err != nil {
		return err
	}
	est, err := readTruth(*estName, on)
	if err != nil {
		return err
	}
	if on == nil { // no study: the longer alphabet of the two
		n := max(len(truth), len(est))
		truth = append(truth, make([]float64, n-len(truth))...)
		est = append(est, make([]float64, n-len(est))...)
	}
	m, err := emd.Compare(ctx, truth, est, a)
	if err != nil {
		return err
	}
	res := struct {
		EMD     *float64 `json:"emd"`
		EMDUnit string   `json:"emd_unit,omitempty"`
		EMDNote string   `json:"emd_note,omitempty"`
		MSE     float64  `json:"mse"`
		JSD     float64  `json:"jsd"`
		TV      float64  `json:"tv"`
	}{EMDUnit: m.EMDUnit, EMDNote: m.EMDNote, MSE: m.MSE, JSD: m.JSD, TV: m.TV}
	if !math.IsNaN(m.EMD) {
		res.EMD = &m.EMD
	}
	b, err := json.Marshal(res)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(stdout, string(b))
	return err
}
