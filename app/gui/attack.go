package gui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/privmap/privmap/app/attack"
	"github.com/privmap/privmap/app/experiment"
	"github.com/privmap/privmap/app/human"
	"github.com/privmap/privmap/app/mapplot"
	"github.com/privmap/privmap/app/output"
	"github.com/privmap/privmap/app/pipeline"
	"github.com/privmap/privmap/app/plan"
	"github.com/privmap/privmap/core"
)

// attackSeed seeds the window's simulated reports of the home attack,
// as privmap attack's default -seed.
const attackSeed = 1

// exposer says in words what one report of a mechanism tells an
// attacker who knows the data's map: attack.Sentence, for a row's audit.
type exposer func(ctx context.Context, m core.Mechanism, spec core.MechanismSpec) string

// dataExposer returns the exposer of the data shown, nil without data.
func (p *populationTab) dataExposer(a core.Alphabet) exposer {
	ds := p.ws.data
	if ds == nil || ds.studyAlphabet().Len() != a.Len() {
		return nil
	}
	st, prior := attackStudy(ds)
	return func(ctx context.Context, m core.Mechanism, spec core.MechanismSpec) string {
		one := &core.Study{Alphabet: a, Mechanisms: []core.MechanismSpec{spec}, People: st.People, MaxPerPerson: st.MaxPerPerson, PeopleUnknown: st.PeopleUnknown}
		out, err := attack.Expose(ctx, one, []core.Mechanism{m}, prior, nil)
		if err != nil {
			return "What an attacker learns was not measured: " + strings.TrimPrefix(err.Error(), "core: ")
		}
		return attack.Sentence(one, out[0], prior)
	}
}

// attackStudy returns the data shown as a study with its people and
// homes, and the data's map as the attacker's prior.
func attackStudy(ds *dataset) (*core.Study, attack.Prior) {
	st := ds.personStudy()
	_, truth, personal := ds.users()
	st.Personal = personal
	return st, attack.Prior{Name: "the data's map", Masses: truth}
}

// sweepRanges are the levels a trade-off of each kind starts with: the
// papers' ranges (FW Tables 4–7), per km or per step for the geometric.
var sweepRanges = map[core.MechanismKind][2]string{
	core.KindKRR: {"0.5", "8"}, core.KindRAPPOR: {"0.5", "8"}, core.KindPlanar: {"0.2", "5"}, core.KindGeo: {"0.02", "1"},
}

// attackPanel is the Population screen's "What an attacker learns":
// the home attack on every person of the data with all her reports
// (attack.AttackPeople), and one kind's trade-off between the
// attacker's success and the estimate's error over ε
// (attack.MakeSweep), drawn and exported as PNG, SVG and CSV.
type attackPanel struct {
	p        *populationTab
	job      jobControls
	sweepBtn *widget.Button
	kind     *widget.Select
	from, to *widget.Entry
	points   *widget.Entry
	// status says the home attack's outcome, sweepStatus the trade-off's.
	status, sweepStatus *widget.Label
	figure              *figureView
	last                *attack.Sweep
	exports             []*widget.Button
}

func newAttackPanel(p *populationTab) *attackPanel {
	a := &attackPanel{p: p, status: widget.NewLabel("Attack each person of the data with all her reports: what an attacker who sees them all finds of her home."),
		sweepStatus: widget.NewLabel("Draw a kind's trade-off: at each ε, what one report tells an attacker against the map's error.")}
	a.job = newJobControls(a.onPeople)
	a.job.runBtn.Text, a.job.runBtn.Icon, a.job.runBtn.Importance = "Attack each person", theme.AccountIcon(), widget.MediumImportance
	a.job.bind()
	a.sweepBtn = &widget.Button{Text: "Draw the trade-off", Icon: theme.SearchIcon(), OnTapped: a.onSweep}
	var kinds []string
	for _, k := range attack.SweepKinds() {
		kinds = append(kinds, string(k))
	}
	a.from, a.to, a.points = widget.NewEntry(), widget.NewEntry(), widget.NewEntry()
	a.points.SetText("6")
	a.kind = widget.NewSelect(kinds, func(k string) {
		r, ok := sweepRanges[core.MechanismKind(k)]
		if !ok {
			r = [2]string{"0.5", "8"} // the frequency oracles' range (FW Table 4's)
		}
		a.from.SetText(r[0])
		a.to.SetText(r[1])
	})
	a.kind.SetSelected(string(core.KindPlanar))
	a.job.holds = []fyne.Disableable{a.sweepBtn, a.kind, a.from, a.to, a.points}
	a.status.Wrapping = fyne.TextWrapWord
	a.sweepStatus.Wrapping = fyne.TextWrapWord
	a.figure = newFigureView(fyne.NewSize(300, 220), nil)
	a.figure.Hide()
	for _, f := range []struct{ text, ext string }{{"Export PNG…", "png"}, {"Export SVG…", "svg"}, {"Export CSV…", "csv"}} {
		b := &widget.Button{Text: f.text, Icon: theme.DownloadIcon(), OnTapped: func() { a.onExport(f.ext) }}
		b.Disable()
		a.exports = append(a.exports, b)
	}
	return a
}

// ui returns the panel: the person attack, the sweep's form, the
// progress, the sentence, the figure and its exports.
func (a *attackPanel) ui() fyne.CanvasObject {
	sweep := container.NewHBox(widget.NewLabel("Trade-off of"), fixedWidth(a.kind, 170), widget.NewLabel("ε from"), fixedWidth(a.from, 70),
		widget.NewLabel("to"), fixedWidth(a.to, 70), widget.NewLabel("points"), fixedWidth(a.points, 50), a.sweepBtn)
	bar := a.job.busyBar(container.NewStack(a.job.bar))
	exports := container.NewHBox()
	for _, b := range a.exports {
		exports.Add(b)
	}
	buttons := container.NewBorder(nil, nil, container.NewHBox(a.job.runBtn, a.job.cancelBtn), exports, bar)
	head := bold("What an attacker learns: each person with all her reports, and a kind's trade-off with the map's error")
	// The words beside the figure, so that both show in the split's
	// lower half at 1200×760.
	return container.NewVBox(head, buttons, a.status, sweep, container.NewGridWithColumns(2, a.sweepStatus, a.figure))
}

// onPeople starts the home attack on the data shown.
func (a *attackPanel) onPeople() {
	st, prior, err := a.dataPopulation("")
	if err != nil {
		advice := "Correct the population, then attack again."
		if a.p.ws.data == nil {
			advice = "Open a data set first: the attack simulates its people's reports."
		}
		showError(a.p.ws.win, err, advice)
		return
	}
	a.status.SetText(fmt.Sprintf("Drawing the reports of %s and attacking each…", peopleWords(st)))
	progress := a.job.timeLeft(a.status, nil, nil)
	release := a.p.ws.audits.hold()
	start := time.Now()
	a.job.start(a.p.ctx, func(ctx context.Context) func() {
		defer release()
		res, err := guarded(func() (*attack.People, error) {
			mechs, err := pipeline.BuildMechanisms(ctx, st, nil)
			if err != nil {
				return nil, err
			}
			return attack.AttackPeople(ctx, st, mechs, prior, attackSeed, progress)
		})
		return func() {
			if a.job.stopped(a.p.ws.win, a.status, err, "Attack cancelled.", "The attack failed.", "Check the population, then attack again.") {
				return
			}
			text := attack.PeopleSentence(st.Alphabet, res.All)
			if res.Left > 0 {
				text += fmt.Sprintf(" %d people of a personalized mechanism (pum) were not attacked: their reports depend on their own tagged cells.", res.Left)
			}
			a.status.SetText(fmt.Sprintf("%s Home: %s; reports drawn with seed %d. (%s.)", text, res.HomeFrom, res.Seed, time.Since(start).Round(100*time.Millisecond)))
		}
	})
}

// dataPopulation returns the data shown as a study with the
// population's mechanisms and people, and the data's map as the
// attacker's prior; without data it says so, why telling what needs
// them.
func (a *attackPanel) dataPopulation(why string) (*core.Study, attack.Prior, error) {
	ds := a.p.ws.data
	if ds == nil {
		return nil, attack.Prior{}, errors.New("no data are loaded" + why)
	}
	s, err := a.p.study()
	if err != nil {
		return nil, attack.Prior{}, err
	}
	st, prior := attackStudy(ds)
	st.Mechanisms = s.Mechanisms
	return st, prior, nil
}

// peopleWords names a study's people for a status line.
func peopleWords(s *core.Study) string {
	n, _ := s.Contributions()
	return human.Plural(n, "person", "people")
}

// request reads the sweep's form.
func (a *attackPanel) request() (attack.SweepRequest, error) {
	st, prior, err := a.dataPopulation(": the trade-off simulates deployments on their map")
	if err != nil {
		return attack.SweepRequest{}, err
	}
	var lo, hi float64
	var n int
	if _, err := fmt.Sscan(a.from.Text, &lo); err != nil {
		return attack.SweepRequest{}, fmt.Errorf("ε from %q: want a number", a.from.Text)
	}
	if _, err := fmt.Sscan(a.to.Text, &hi); err != nil {
		return attack.SweepRequest{}, fmt.Errorf("ε to %q: want a number", a.to.Text)
	}
	if _, err := fmt.Sscan(a.points.Text, &n); err != nil || n < 2 || n > plan.MaxPoints {
		return attack.SweepRequest{}, fmt.Errorf("points %q: want a whole number from 2 to %d", a.points.Text, plan.MaxPoints)
	}
	if !(lo > 0 && hi > lo) || math.IsInf(hi, 0) {
		return attack.SweepRequest{}, fmt.Errorf("ε from %g to %g: want 0 < from < to", lo, hi)
	}
	req := attack.SweepRequest{Study: st, Truth: prior.Masses, Prior: prior, Kind: core.MechanismKind(a.kind.Selected),
		Eps: attack.Levels(lo, hi, n), Metric: attack.DefaultMetric(st.Alphabet), Method: core.MethodGIBU, Seed: attackSeed}
	return req, req.CheckSweep()
}

// onSweep starts the trade-off.
func (a *attackPanel) onSweep() {
	req, err := a.request()
	if err != nil {
		showError(a.p.ws.win, err, "Nothing was drawn: correct the trade-off's kind and levels, then draw again.")
		return
	}
	a.sweepStatus.SetText(fmt.Sprintf("Drawing %s's trade-off: %d levels of ε, %d simulated deployments each…", req.Kind, len(req.Eps), attack.DefaultSweepRuns))
	progress := a.job.timeLeft(a.sweepStatus, nil, nil)
	release := a.p.ws.audits.hold()
	a.job.start(a.p.ctx, func(ctx context.Context) func() {
		defer release()
		sw, err := guarded(func() (*attack.Sweep, error) { return attack.MakeSweep(ctx, req, progress) })
		return func() {
			if a.job.stopped(a.p.ws.win, a.sweepStatus, err, "Trade-off cancelled.", "The trade-off failed.", "Check the kind and the levels, then draw again.") {
				return
			}
			a.last = sw
			for _, b := range a.exports {
				b.Enable()
			}
			a.sweepStatus.SetText(attack.SweepSentence(sw))
			curve := experiment.TradeOffCurve(sw)
			a.figure.set(func(st mapplot.Style) (imager, error) {
				pl, err := mapplot.TradeOffPlot(st, curve)
				return mapplot.StyledPlot{Plot: pl, Style: st}, err
			})
			a.figure.Show()
		}
	})
}

// onExport writes the last trade-off as PNG, SVG or CSV.
func (a *attackPanel) onExport(ext string) {
	if a.last == nil || a.p.ws.data == nil {
		return
	}
	last := a.last
	src := a.p.ws.data.src
	entry, path := pathEntry(a.p.ws.win, exportPath(a.p.ws.app, src, "-tradeoff."+ext), []string{"." + ext})
	showPathForm(a.p.ws.win, "Export the trade-off as "+strings.ToUpper(ext), "Export", path, entry, nil, func(name string) error {
		rememberFolder(a.p.ws.app, name)
		return output.WriteFile(name, func(w io.Writer) error {
			if ext == "csv" {
				return attack.WriteSweepCSV(w, last)
			}
			return experiment.WriteTradeOff(w, last, wrapWords(attack.SweepSentence(last), 110), ext)
		}, src.path)
	})
}
