package gui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/privmap/privmap/app/guarantee"
	"github.com/privmap/privmap/app/human"
	"github.com/privmap/privmap/app/mapplot"
	"github.com/privmap/privmap/app/studyfile"
	"github.com/privmap/privmap/core"
)

// mechanismKinds are the kinds offered, in the order of core's
// registry (package core's doc, "Mechanisms").
func mechanismKinds() []core.MechanismKind {
	var out []core.MechanismKind
	for _, k := range core.Kinds() {
		out = append(out, k.Name)
	}
	return out
}

// populationTab edits the population of mechanisms: who uses which
// mechanism at which privacy level. Every row is checked as it is typed
// and audited off the UI goroutine: the ε-LDP and geo-indistinguishability
// its channel really gives and its expected quality loss.
type populationTab struct {
	ctx      context.Context
	alphabet core.Alphabet
	rows     []*mechRow
	list     *fyne.Container
	scroll   *container.Scroll // holds list
	preset   *widget.Select
	problems *widget.Label
	// levelHead heads the level column, and levelHelp says what it holds
	// on the alphabet: each parameter, its units and its kinds.
	levelHead, levelHelp *widget.Label
	slots                *auditSlots // audits may run a few at a time
	attack               *attackPanel
	content              fyne.CanvasObject
	ws                   *workspace
}

// mechRow is one mechanism of the population.
type mechRow struct {
	p                           *populationTab
	kind                        *widget.Select
	id, level, share, sensitive *widget.Entry
	audit                       *widget.Label
	box                         *fyne.Container
	pick                        *widget.Button
	gen                         int // edits so far, so that a stale audit is dropped
	cancel                      context.CancelFunc
	// A PUM's base mechanism and semantic tags, kept from the study it
	// came from; a new PUM protects each user's "home", the cell of most
	// of their check-ins (ULDP §5).
	base core.MechanismKind
	tags []string
	// g is OLH's hash range as the study file gave it (0: its optimum),
	// kept for the kinds that take one.
	g int
	// The level and share as shown, with their exact values.
	levelShown, shareShown shownNumber
	// au is the row's last audit, nil while none has finished.
	au *core.Audit
}

func newPopulationTab(ws *workspace) *populationTab {
	p := &populationTab{ctx: ws.ctx, list: container.NewVBox(), slots: ws.audits, ws: ws}
	ws.population, ws.guarantees = p.study, p.guarantees
	ws.dataShown = append(ws.dataShown, p.dataShown)
	titles := make([]string, 0, len(core.Presets()))
	for _, pr := range core.Presets() {
		titles = append(titles, pr.Title)
	}
	p.preset = widget.NewSelect(titles, nil)
	p.preset.PlaceHolder = "Preset population…"
	p.levelHead = bold("privacy level")
	p.levelHelp = widget.NewLabel(levelNames(p.alphabet))
	p.levelHelp.Wrapping = fyne.TextWrapWord
	p.levelHelp.SizeName = theme.SizeNameCaptionText
	p.problems = widget.NewLabel("")
	p.problems.Wrapping = fyne.TextWrapWord
	p.problems.Importance = widget.DangerImportance
	return p
}

func (p *populationTab) buildUI() fyne.CanvasObject {
	apply := &widget.Button{Text: "Apply preset", Icon: theme.DocumentIcon(), OnTapped: p.onApplyPreset}
	add := &widget.Button{Text: "Add mechanism", Icon: theme.ContentAddIcon(), OnTapped: p.onAdd}
	top := container.NewBorder(nil, nil, nil, container.NewHBox(apply, add), p.preset)
	head := container.NewBorder(nil, nil, fixedWidth(widget.NewLabelWithStyle("kind", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), 170), fixedWidth(widget.NewLabel(""), 40),
		container.NewGridWithColumns(4, bold("id"), p.levelHead, bold("share"), bold("sensitive symbols")))
	p.scroll = container.NewVScroll(nil)
	// The wheel scrolls the list even over its entries, whose own
	// scrollers would otherwise take it.
	p.scroll.Content = container.NewStack(p.list, &wheelTo{target: p.scroll})
	p.attack = newAttackPanel(p)
	// The rows above, the attacker's panel below: a split the user
	// drags, so that the trade-off's figure and the rows are seen at once.
	split := container.NewVSplit(container.NewBorder(container.NewVBox(top, p.levelHelp, head), p.problems, nil, nil, p.scroll),
		container.NewVScroll(p.attack.ui()))
	split.Offset = 0.45
	p.content = split
	return p.content
}

// onAdd adds a k-RR row. When the rows give shares (a preset's), they
// are rebalanced so that they still sum to 1: each keeps its part of
// n/(n+1), and the new row takes 1/(n+1).
func (p *populationTab) onAdd() {
	m := core.MechanismSpec{Kind: core.KindKRR, Epsilon: 1}
	n := float64(len(p.rows))
	var shares []float64
	for _, r := range p.rows {
		v, err := r.shareShown.read(r.share.Text)
		if strings.TrimSpace(r.share.Text) == "" || err != nil {
			shares = nil
			break
		}
		shares = append(shares, v)
	}
	if len(shares) == len(p.rows) && len(shares) > 0 {
		for i, r := range p.rows {
			v := shares[i] * n / (n + 1)
			r.shareShown = showNumber(v, 4, false)
			r.share.SetText(r.shareShown.text)
		}
		v := 1 / (n + 1)
		m.Share = &v
	}
	p.addRow(m)
}

// levelNames says what the level column holds for the kinds that fit
// alphabet a: each privacy parameter with its units and the kinds it
// is of ("Privacy level: ε for krr, rappor…; ε per km for
// planar-geometric; Q (km) for shokri" on a grid), and which way is
// more private. The column's heading says "privacy level"; its bare
// units ("ε · ε per km · Q (km)") were read as no heading at all.
func levelNames(a core.Alphabet) string {
	var names []string
	kinds := map[string][]string{}
	for _, k := range core.Kinds() {
		if k.Alphabets != nil && !slices.Contains(k.Alphabets, a.Kind) {
			continue
		}
		n := k.LevelName(a)
		if n == "" {
			continue
		}
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
		kinds[n] = append(kinds[n], string(k.Name))
	}
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + " for " + strings.Join(kinds[n], ", ")
	}
	more := "smaller ε is more private"
	if slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "Q") }) {
		more += ", larger Q (the expected distance a report is moved) too"
	}
	return "Privacy level: " + strings.Join(parts, "; ") + " — " + more + "."
}

// setAlphabet makes a the alphabet the mechanisms work on and checks and
// audits every row again.
func (p *populationTab) setAlphabet(a core.Alphabet) {
	p.alphabet = a
	p.levelHelp.SetText(levelNames(a))
	for _, r := range p.rows {
		r.changed()
	}
	p.check()
}

// specs returns the mechanisms as typed; rows that do not parse give
// their error.
func (p *populationTab) specs() ([]core.MechanismSpec, error) {
	out := make([]core.MechanismSpec, len(p.rows))
	for i, r := range p.rows {
		s, err := r.spec()
		if err != nil {
			return nil, fmt.Errorf("row %d: %w", i+1, err)
		}
		out[i] = s
	}
	return out, nil
}

// study returns the study of the population, or the first problem.
func (p *populationTab) study() (*core.Study, error) {
	ms, err := p.specs()
	if err != nil {
		return nil, err
	}
	if len(ms) == 0 {
		return nil, errors.New("the population has no mechanism: add one or apply a preset")
	}
	s := &core.Study{Alphabet: p.alphabet, Mechanisms: ms}
	if err := s.Validate(); err != nil {
		return nil, errors.New(strings.TrimPrefix(err.Error(), "core: "))
	}
	return s, nil
}

// check shows the population's first problem, if any.
func (p *populationTab) check() {
	if _, err := p.study(); err != nil && len(p.rows) > 0 {
		p.problems.SetText(err.Error())
	} else {
		p.problems.SetText("")
	}
	p.ws.changedPopulation()
	p.save()
}

// fits reports whether the population is valid on its alphabet.
func (p *populationTab) fits() bool {
	_, err := p.study()
	return err == nil
}

// applyDefault sets the population to a preset that suits the alphabet:
// FW Table 6's geometric mechanisms on maps and ordinal alphabets, CEM's
// k-RR mix on categories, which have no distance.
func (p *populationTab) applyDefault() {
	name := "fw-t6"
	if p.alphabet.Kind == core.KindCategorical {
		name = "cem"
	}
	if ms, err := core.PresetMechanisms(name, p.alphabet); err == nil {
		p.setSpecs(ms)
		// The population is named by its preset on screen.
		for i, pr := range core.Presets() {
			if pr.Name == name && p.preset != nil {
				p.preset.SetSelectedIndex(i)
			}
		}
	}
}

func (p *populationTab) onApplyPreset() {
	i := p.preset.SelectedIndex()
	if i < 0 {
		return
	}
	ms, err := core.PresetMechanisms(core.Presets()[i].Name, p.alphabet)
	if err != nil {
		p.problems.SetText(strings.TrimPrefix(err.Error(), "core: "))
		return
	}
	p.setSpecs(ms)
}

// setSpecs replaces the rows by ms.
func (p *populationTab) setSpecs(ms []core.MechanismSpec) {
	for _, r := range p.rows {
		r.stop()
	}
	p.rows = nil
	p.list.RemoveAll()
	for _, m := range ms {
		p.addRow(m)
	}
	p.check()
}

func (p *populationTab) addRow(m core.MechanismSpec) {
	r := &mechRow{p: p}
	r.kind = widget.NewSelect(kindNames(mechanismKinds()), nil)
	r.id, r.level, r.share, r.sensitive = widget.NewEntry(), widget.NewEntry(), widget.NewEntry(), widget.NewEntry()
	r.level.Validator = positiveNumber
	r.share.Validator = optionalShare
	r.sensitive.Validator = func(s string) error { _, err := core.ParseSymbols(s, p.alphabet.Len()); return err }
	r.share.PlaceHolder = "equal"
	r.sensitive.PlaceHolder = "e.g. 5, 17, 20-25"
	r.audit = widget.NewLabel("")
	r.audit.Wrapping = fyne.TextWrapWord // the per-person sentence is the one that matters, and the longest
	r.fill(m)
	for _, e := range []*widget.Entry{r.id, r.level, r.share, r.sensitive} {
		e.OnChanged = func(string) { r.changed(); p.check() }
	}
	r.kind.OnChanged = func(string) { r.enableFields(); r.changed(); p.check() }
	remove := &widget.Button{Icon: theme.DeleteIcon(), Importance: widget.LowImportance, OnTapped: func() { p.removeRow(r) }}
	r.pick = &widget.Button{Icon: theme.GridIcon(), Importance: widget.LowImportance, OnTapped: func() {
		if p.ws.pick != nil {
			p.ws.pick(&pickTarget{cells: r.sensitive, name: func() string { return strings.TrimSpace(r.id.Text) },
				alive: func() bool { return slices.Contains(p.rows, r) }}, p)
		}
	}}
	r.enableFields()
	fields := container.NewGridWithColumns(4, r.id, r.level, r.share, container.NewBorder(nil, nil, nil, r.pick, r.sensitive))
	r.box = container.NewVBox(container.NewBorder(nil, nil, fixedWidth(r.kind, 170), fixedWidth(remove, 40), fields), r.audit)
	p.rows = append(p.rows, r)
	p.list.Add(r.box)
	r.changed()
	p.check()
}

func (p *populationTab) removeRow(r *mechRow) {
	for i, x := range p.rows {
		if x == r {
			r.stop()
			p.rows = append(p.rows[:i], p.rows[i+1:]...)
			p.list.Remove(r.box)
			break
		}
	}
	p.check()
}

// fill shows m in the row's fields.
func (r *mechRow) fill(m core.MechanismSpec) {
	if m.ID == "" {
		m.ID = fmt.Sprintf("m%d", len(r.p.rows)+1)
	}
	r.id.SetText(m.ID)
	r.kind.SetSelected(string(m.Kind))
	info, _ := m.Kind.Info()
	level := info.Level(m)
	r.levelShown = showNumber(level, 4, true)
	r.level.SetText(r.levelShown.text)
	r.shareShown = shownNumber{}
	if m.Share != nil {
		r.shareShown = showNumber(*m.Share, 4, false)
	}
	r.share.SetText(r.shareShown.text)
	r.sensitive.SetText(core.FormatSymbols(m.Sensitive))
	r.base, r.tags, r.g = m.Base, m.Tags, m.G
	r.enableFields()
}

// enableFields disables the fields the kind does not take.
func (r *mechRow) enableFields() {
	k := core.MechanismKind(r.kind.Selected)
	info, _ := k.Info()
	setEnabled(r.level, info.Param != core.ParamNone)
	uldp := info.Sensitive
	setEnabled(r.sensitive, uldp)
	if r.pick != nil {
		if uldp {
			r.pick.Enable()
		} else {
			r.pick.Disable()
		}
	}
}

func setEnabled(e *widget.Entry, on bool) {
	if on {
		e.Enable()
	} else {
		e.Disable()
	}
}

// spec parses the row.
func (r *mechRow) spec() (core.MechanismSpec, error) {
	m := core.MechanismSpec{ID: strings.TrimSpace(r.id.Text), Kind: core.MechanismKind(r.kind.Selected)}
	if !r.level.Disabled() {
		v, err := r.levelShown.read(r.level.Text)
		if err != nil {
			return m, fmt.Errorf("%s: level %q is not a number", m.ID, r.level.Text)
		}
		info, _ := m.Kind.Info()
		info.SetLevel(&m, v)
	}
	if s := strings.TrimSpace(r.share.Text); s != "" {
		v, err := r.shareShown.read(s)
		if err != nil {
			return m, fmt.Errorf("%s: share %q is not a number", m.ID, s)
		}
		m.Share = &v
	}
	if !r.sensitive.Disabled() {
		xs, err := core.ParseSymbols(r.sensitive.Text, r.p.alphabet.Len())
		if err != nil {
			return m, fmt.Errorf("%s: %w", m.ID, err)
		}
		m.Sensitive = xs
	}
	if info, _ := m.Kind.Info(); info.Hashes {
		m.G = r.g
	}
	if info, _ := m.Kind.Info(); info.Personal {
		m.Base, m.Tags = r.base, r.tags
		if len(m.Tags) == 0 {
			m.Tags = info.DefaultTags
		}
	}
	return m, nil
}

// changed checks the row and starts its audit, cancelling one running.
func (r *mechRow) changed() {
	r.stop()
	r.gen++
	m, err := r.spec()
	if err == nil {
		err = m.Validate(r.p.alphabet)
	}
	if err != nil {
		r.audit.Importance = widget.DangerImportance
		r.audit.SetText(strings.TrimPrefix(err.Error(), "core: "))
		return
	}
	r.audit.Importance = widget.LowImportance
	r.audit.SetText("auditing…")
	ctx, cancel := context.WithCancel(r.p.ctx)
	r.cancel = cancel
	gen, a, most, expose := r.gen, r.p.alphabet, r.p.reportsPerPerson(), r.p.dataExposer(r.p.alphabet)
	r.au = nil
	var au core.Audit
	jobs.Go(func() {
		defer cancel()
		held := func(on bool) {
			text := "auditing…"
			if on {
				text = "auditing once the run ends…"
			}
			jobs.Do(func() {
				if gen == r.gen {
					r.audit.SetText(text)
				}
			})
		}
		text, err := r.p.slots.run(ctx, held, func() (string, error) {
			return guarded(func() (string, error) { return auditText(ctx, m, a, most, &au, expose) })
		})
		jobs.DoAndWait(func() {
			if gen != r.gen {
				return
			}
			r.audit.Importance = widget.MediumImportance // legible, unlike "auditing…"
			if err == nil {
				r.au = &au
			}
			if errors.Is(err, context.Canceled) {
				r.audit.Importance = widget.LowImportance
				text = "audit cancelled; change the row to audit it again"
				err = nil
			}
			if err != nil {
				r.audit.Importance = widget.DangerImportance
				text = err.Error()
			}
			r.audit.SetText(text)
		})
	})
}

// stopAudits cancels every audit still running.
func (p *populationTab) stopAudits() {
	for _, r := range p.rows {
		r.stop()
	}
}

func (r *mechRow) stop() {
	if r.cancel != nil {
		r.cancel()
	}
}

// auditText builds m and describes what its channel guarantees, and
// what one report tells an attacker when expose is not nil.
func auditText(ctx context.Context, m core.MechanismSpec, a core.Alphabet, most int, out *core.Audit, expose exposer) (string, error) {
	mech, err := core.NewMechanismWith(ctx, m, a, nil)
	if err != nil {
		return "", err
	}
	au, err := core.AuditMechanism(ctx, mech, a)
	if err != nil {
		return "", err
	}
	*out = au
	var parts []string
	ldp := "ε-LDP " + formatLevel(au.LDP)
	if au.Underflow {
		// A probability the formula makes positive reads as 0 in
		// float64 (core.Audit.Underflow): say so rather than "∞" alone.
		ldp += fmt.Sprintf(" (underflows at ε = %g)", m.Epsilon)
	}
	if au.Protected {
		ldp += " on protected outputs"
		if au.Invertible >= 0 {
			ldp += fmt.Sprintf(" · output %d not invertible", au.Invertible)
		}
	}
	parts = append(parts, ldp)
	if form := guarantee.ShapeText(core.Shape(mech), a.Len()); form != "" {
		parts = append(parts, form)
	}
	if !math.IsNaN(au.GeoInd) {
		parts = append(parts, geoText(m, au))
	}
	if !math.IsNaN(au.QualityMean) {
		parts = append(parts, fmt.Sprintf("expected loss %.3g %s (worst %.3g)", au.QualityMean, au.GeoUnit, au.QualityWorst))
	}
	text := guarantee.PlainReading(au)
	if most > 1 {
		// The data keep several check-ins of a person: hers compose.
		text += "\n" + guarantee.PersonReading(au, most)
	}
	text += "\n" + strings.Join(parts, " · ")
	if expose != nil {
		text += "\n" + expose(ctx, mech, m)
	}
	return text, ctx.Err()
}

// geoText describes an audit's ε-geo-indistinguishability.
func geoText(m core.MechanismSpec, au core.Audit) string {
	geo := fmt.Sprintf("%s per %s geo-indistinguishable", formatLevel(au.GeoInd), au.GeoUnit)
	var notes []string
	if au.GeoIndUpper > au.GeoInd {
		// Certified bounds from neighbouring cells on a large map.
		geo = fmt.Sprintf("%s–%s per %s geo-indistinguishable", formatLevel(au.GeoInd), formatLevel(au.GeoIndUpper), au.GeoUnit)
		notes = append(notes, "bounds")
	}
	if au.Underflow && math.IsInf(au.GeoInd, 1) {
		notes = append(notes, "underflows")
	} else if info, _ := m.Kind.Info(); info.GeoLevel &&
		(m.Epsilon < au.GeoInd-5e-4 || m.Epsilon > au.GeoIndUpper+5e-4) {
		// The channel as built, read back, should give the nominal
		// level (package core's doc, "Mechanisms"); say so when it does not.
		notes = append(notes, "nominal "+formatLevel(m.Epsilon))
	}
	if len(notes) > 0 {
		geo += " (" + strings.Join(notes, "; ") + ")"
	}
	return geo
}

func formatLevel(v float64) string {
	if math.IsInf(v, 1) {
		return "∞"
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

func positiveNumber(s string) error {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) {
		return errors.New("a positive number")
	}
	return nil
}

func optionalShare(s string) error {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || !(v >= 0) || v > 1 {
		return errors.New("a share in [0, 1]")
	}
	return nil
}

// tab names the Population screen.
func (p *populationTab) tab() (string, fyne.Resource) { return "Population", theme.AccountIcon() }

func (p *populationTab) shown() {}

// onCancel stops the audits.
func (p *populationTab) onCancel() {
	p.stopAudits()
	if p.attack != nil {
		p.attack.job.onCancel()
	}
}

// dataShown fits the population to a data set shown: a first
// population to start from (the last session's, or a preset), or a new
// one when the data changed kind (map to census, say) and the old one
// does not fit.
func (p *populationTab) dataShown(ds *dataset) {
	prev, a := p.alphabet, ds.studyAlphabet()
	p.setAlphabet(a)
	switch {
	case p.rows == nil && p.restore():
	case p.rows == nil || prev.Kind != a.Kind && !p.fits():
		p.applyDefault()
	}
}

// reportsPerPerson returns the most data one person has in the data
// shown, the reports she sends (1 without data).
func (p *populationTab) reportsPerPerson() int {
	if p.ws.data == nil {
		return 1
	}
	_, most := p.ws.data.persons()
	return most
}

// guarantees says, for a figure's header, how much one report of each
// mechanism audited can change the odds between two values (near, when
// tighter, and anywhere), and for all of one person's reports when she
// sends several.
func (p *populationTab) guarantees() []string {
	most := p.reportsPerPerson()
	var items []string
	for _, r := range p.rows {
		if r.au == nil {
			continue
		}
		items = append(items, strings.TrimSpace(r.id.Text)+" "+oddsItem(*r.au, 1))
		if most > 1 {
			items[len(items)-1] += fmt.Sprintf(" (%s for %s)", oddsItem(*r.au, most), human.Plural(most, "report", "reports"))
		}
	}
	if len(items) == 0 {
		return nil
	}
	return mapplot.WrapJoin("Odds one report can change, by mechanism (more is less private): ", items, 150)
}

// oddsItem writes the odds factor of k reports: near (within 1 km or
// step) when tighter, and anywhere.
func oddsItem(au core.Audit, k int) string {
	kf := float64(k)
	s := human.Odds(kf * au.LDP)
	if math.IsInf(au.LDP, 1) {
		s = "∞"
	}
	if guarantee.NearIsTighter(au) {
		s = fmt.Sprintf("%s within 1 %s, %s anywhere", human.Odds(kf*au.GeoIndUpper), au.GeoUnit, s)
	}
	return s
}

// save remembers a valid population for the next session.
func (p *populationTab) save() {
	s, err := p.study()
	if err != nil {
		return
	}
	if b, err := json.Marshal(s.Mechanisms); err == nil {
		p.ws.app.Preferences().SetString(prefPopulation, string(b))
	}
}

// restore sets the population of the last session, if it fits the
// alphabet, and reports whether it did.
func (p *populationTab) restore() bool {
	var ms []core.MechanismSpec
	if err := json.Unmarshal([]byte(p.ws.app.Preferences().String(prefPopulation)), &ms); err != nil || len(ms) == 0 {
		return false
	}
	if (&core.Study{Alphabet: p.alphabet, Mechanisms: ms}).Validate() != nil {
		return false
	}
	p.setSpecs(ms)
	return true
}

// onChoosePreset shows the Population screen with its preset list
// focused: the arrow keys choose, Ctrl+Shift+P applies.
func (p *populationTab) onChoosePreset() {
	p.ws.show(p)
	p.ws.win.Canvas().Focus(p.preset)
}

// putStudy writes the population into a study being saved: its
// alphabet and mechanisms.
func (p *populationTab) putStudy(s *studyfile.Study) error {
	cs, err := p.study()
	if err != nil {
		return fmt.Errorf("the population of mechanisms: %w\n\nCorrect it on the Population screen", err)
	}
	s.Study = cs
	return nil
}

// takeStudy sets the population of a study opened.
func (p *populationTab) takeStudy(s *studyfile.Study) {
	p.setAlphabet(s.Alphabet)
	p.setSpecs(s.Mechanisms)
}
