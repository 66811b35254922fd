package gui

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/privmap/privmap/app/release"
	"github.com/privmap/privmap/app/report"
	"github.com/privmap/privmap/core"
)

// readReport reads a report's JSON.
func readReport(t *testing.T, name string) *report.Report {
	t.Helper()
	raw, err := os.ReadFile(name)
	require.NoError(t, err)
	var rep report.Report
	require.NoError(t, json.Unmarshal(raw, &rep))
	return &rep
}

// TestReportFromWindow writes the window's report after a run and a
// release: the PDF, its JSON, the study, the estimate and the release
// beside it, all digested in the manifest; the true map only when
// asked; a population changed since the run is refused.
func TestReportFromWindow(t *testing.T) {
	_, u := newTestWindow(t)
	settle(t)
	u.run.checks[core.MethodGIBU].SetChecked(true)
	u.run.onRun()
	settle(t)
	r := u.rel
	r.mech.SetSelected(releaseNames[release.Geometric])
	r.eps.SetText("1")
	r.sens.SetText("1")
	r.onRelease()
	settle(t)
	require.NotNil(t, r.last)

	dir := t.TempDir()
	req := reportRequest{path: filepath.Join(dir, "r.pdf"), title: "Window report", operator: "Ada", paper: "letter", sections: report.Sections}
	in, err := u.reportInput(req)
	require.NoError(t, err)
	require.NoError(t, in.write(t.Context()))
	raw, err := os.ReadFile(filepath.Join(dir, "r.json"))
	require.NoError(t, err)
	var rep report.Report
	require.NoError(t, json.Unmarshal(raw, &rep))
	require.NotEmpty(t, rep.Estimates)
	gibu := filepath.Join(dir, "r-gibu.csv")
	b, err := os.ReadFile(gibu)
	require.NoError(t, err)
	sum := sha256.Sum256(b)
	assert.Equal(t, hex.EncodeToString(sum[:]), rep.Estimates[0].File.SHA256)
	var want bytes.Buffer
	m := u.cmp.current()
	require.NoError(t, core.WriteEstimate(&want, m.Estimate.Theta, u.cmp.res.Study.Alphabet, nil))
	assert.Equal(t, want.Bytes(), b, "the estimate beside the report is the window's")
	assert.Equal(t, "gibu", rep.Estimates[0].Method)
	assert.Equal(t, report.ReportsSimulated, rep.Estimates[0].Reports, "the window's reports are simulated: a preview")
	assert.Contains(t, rep.Publishable, "Previews, not for publication: estimate 1 (gibu)")
	assert.Contains(t, rep.Estimates[0].Certified, "certified")
	assert.Nil(t, rep.Estimates[0].Errors, "no errors against the truth unless asked")
	require.NotNil(t, rep.Release)
	assert.Equal(t, "geometric", rep.Release.Mechanism)
	assert.Contains(t, rep.Release.Accuracy, "With probability 95%")
	assert.Len(t, rep.Population, len(u.cmp.res.Study.Mechanisms))
	for _, f := range []string{"r.pdf", "r-study.json", "r-released.csv"} {
		_, err := os.Stat(filepath.Join(dir, f))
		assert.NoError(t, err, f)
	}
	var outs []string
	for _, o := range rep.Manifest.Outputs {
		outs = append(outs, filepath.Base(o.Path))
	}
	assert.Subset(t, outs, []string{"r-study.json", "r-gibu.csv", "r-released.csv", "r.pdf", "r.json"})
	if p, err := exec.LookPath("pdftotext"); err == nil {
		out, err := exec.Command(p, req.path, "-").Output()
		require.NoError(t, err)
		text := strings.Join(strings.Fields(string(out)), " ")
		assert.Contains(t, text, "Window report")
		assert.Contains(t, text, rep.Estimates[0].File.SHA256)
		assert.NotContains(t, text, "true map (raw data)")
	}

	// With the raw data: the errors and the true map.
	req.raw, req.path = true, filepath.Join(dir, "raw.pdf")
	in, err = u.reportInput(req)
	require.NoError(t, err)
	require.NoError(t, in.write(t.Context()))
	raw, _ = os.ReadFile(filepath.Join(dir, "raw.json"))
	require.NoError(t, json.Unmarshal(raw, &rep))
	require.NotNil(t, rep.Estimates[0].Errors)
	assert.InDelta(t, m.Metrics.TV, rep.Estimates[0].Errors.TV, 1e-15)

	// Issue 44's second finding: the window's report said "0 data of 0
	// people" and "each person sends one report". It states whom its
	// guarantees protect, and privmap report on the files and records it
	// wrote (report.ReadFiles and report.Gather, privmap report's own
	// path) states the same facts, but for paths and times.
	u.data.bound.SetText("20")
	u.data.perUser.SetSelected(perUserBounded)
	settle(t)
	u.run.onRun()
	settle(t)
	r.sens.SetText("20")
	r.clip.SetChecked(true)
	r.onRelease()
	settle(t)
	require.NotNil(t, r.last)
	req.raw, req.path = false, filepath.Join(dir, "people.pdf")
	in, err = u.reportInput(req)
	require.NoError(t, err)
	require.NoError(t, in.write(t.Context()))
	win := readReport(t, filepath.Join(dir, "people.json"))
	require.NotNil(t, win.Data)
	assert.Equal(t, 2000, win.Data.People)
	assert.Equal(t, 20, win.Data.Bound)
	assert.Equal(t, 20, win.Data.MostPerPerson)
	for _, m := range win.Population {
		assert.Contains(t, m.PerPerson, "All 20 reports of one person together", m.ID)
	}
	assert.Equal(t, 20, win.Release.Sensitivity)
	assert.Contains(t, win.Release.Neighbours, "all her records, at most 20")
	files := report.Files{Study: filepath.Join(dir, "people-study.json"), Release: filepath.Join(dir, "people-released.csv"),
		Estimates: []string{filepath.Join(dir, "people-gibu.csv")},
		Records:   []string{filepath.Join(dir, "people-gibu.record.json"), filepath.Join(dir, "people-released.record.json")}}
	inputs, err := report.ReadFiles(context.Background(), files)
	require.NoError(t, err)
	cli, _, err := report.Gather(t.Context(), inputs, report.Options{Title: req.title, Operator: req.operator, Paper: req.paper, Sections: req.sections, Created: win.Created},
		[]string{"people.pdf", "people.json"})
	require.NoError(t, err)
	strip := func(r *report.Report) string {
		c := *r
		c.Manifest, c.Figures = nil, nil
		if c.Data != nil {
			d := *c.Data
			d.File = nil
			c.Data = &d
		}
		for i := range c.Estimates {
			c.Estimates[i].File.Path = filepath.Base(c.Estimates[i].File.Path)
		}
		if c.Release != nil {
			rel := *c.Release
			rel.File.Path = filepath.Base(rel.File.Path)
			c.Release = &rel
		}
		b, err := json.MarshalIndent(&c, "", " ")
		require.NoError(t, err)
		return string(b)
	}
	assert.Equal(t, strip(win), strip(cli), "the window's report and privmap report's state the same facts")

	// A population changed since the run.
	u.pop.rows[0].level.SetText("9")
	_, err = u.reportInput(req)
	assert.ErrorContains(t, err, "the population was changed after the last run")
}
