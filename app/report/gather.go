package report

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"image/png"
	"io"
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/privmap/privmap/app/build"
	"github.com/privmap/privmap/app/guarantee"
	"github.com/privmap/privmap/app/human"
	"github.com/privmap/privmap/app/interval"
	"github.com/privmap/privmap/app/mapplot"
	"github.com/privmap/privmap/app/output"
	"github.com/privmap/privmap/app/pipeline"
	"github.com/privmap/privmap/app/release"
	"github.com/privmap/privmap/app/studyfile"
	"github.com/privmap/privmap/core"
	"github.com/privmap/privmap/core/emd"
	"github.com/privmap/privmap/geo"
)

// DataFacts describes a study's data: the data file (dataName, else the
// one the study records; none for embedded data) with its digest and,
// for a check-in file, what reading it again finds; the alphabet; the
// people and the contribution bound.
func DataFacts(ctx context.Context, as *studyfile.Study, dataName string) (*Data, error) {
	s := as.Study
	d := &Data{Alphabet: AlphabetText(s.Alphabet), Cells: s.Alphabet.Len(), Data: len(s.Data)}
	d.People, d.MostPerPerson = s.Contributions()
	if delta, bound := s.Sensitivity(); bound {
		d.Bound = delta
	}
	d.Unit = s.Unit()
	switch {
	case s.People != nil:
		d.PerPerson = "people as the data file names them"
	case d.Unit == "record":
		d.People, d.MostPerPerson = 0, 0
		d.PerPerson = "people unknown: the data do not say who contributed which records, so each record is counted alone and what this report states protects records, not people"
	default:
		d.PerPerson = "every datum a person of its own"
	}
	if as.Source != nil {
		d.Format = as.Source.Format
		if w := perUserWords(as.Source.PerUser); w != "" {
			d.PerPerson += "; " + w
		}
		dataName = cmp.Or(dataName, as.Source.Path)
	}
	if dataName == "" {
		return d, nil
	}
	f, err := geo.ParseFormat(d.Format)
	if err != nil {
		// Not a check-in file: its digest alone.
		fd, err := output.Digest(ctx, dataName)
		if err != nil {
			return nil, fmt.Errorf("the data file: %w", err)
		}
		d.File = &fd
		return d, nil
	}
	// A check-in file is read once, digested as it is scanned.
	fd, err := output.DigestReading(ctx, dataName, func(r io.Reader) error {
		records := 0
		// Every record counts, a blank person id too.
		res, err := geo.ScanCheckins(ctx, r, f, geo.Options{SkipBad: true, BlankPerson: geo.BlankOwn}, func(geo.Checkin) error { records++; return nil })
		if err != nil {
			return err
		}
		d.Read = &Read{Lines: res.Lines, Records: records, Skipped: res.Skipped}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("the data file: %w", err)
	}
	d.File = &fd
	return d, nil
}

// AlphabetText describes an alphabet: a grid's cells, side and box, or
// a census table's attributes.
func AlphabetText(a core.Alphabet) string {
	if a.Kind == core.KindGrid {
		s := fmt.Sprintf("a grid of %d×%d = %s cells of about %.3g km", a.Cols, a.Rows, human.Thousands(a.Len()), a.CellKm)
		if a.North > a.South {
			s += fmt.Sprintf(", %s–%s, %s–%s (WGS 84)", human.Lat(a.South), human.Lat(a.North), human.Lon(a.West), human.Lon(a.East))
		}
		return s
	}
	var names []string
	for _, at := range a.Attributes {
		names = append(names, at.Name)
	}
	s := fmt.Sprintf("%s alphabet of %s symbols", a.Kind, human.Thousands(a.Len()))
	if len(names) > 0 {
		s += ": the attributes " + strings.Join(names, " × ")
	}
	return s
}

// Audits audits every mechanism on s's alphabet, as many at once as
// there are cores (a planar mechanism on New York's 9,024 cells takes
// 3.6 s alone); ctx cancels them.
func Audits(ctx context.Context, mechs []core.Mechanism, s *core.Study) ([]core.Audit, error) {
	audits := make([]core.Audit, len(mechs))
	errs := make([]error, len(mechs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(mechs)) {
		wg.Go(func() {
			for i := range next {
				audits[i], errs[i] = core.AuditMechanism(ctx, mechs[i], s.Alphabet)
			}
		})
	}
	for i := range mechs {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("mechanism %s: %w", s.Mechanisms[i].ID, err)
		}
	}
	return audits, nil
}

// PopulationFacts describes every mechanism of s with its audit: its
// level with units, share, sensitive cells and the guarantee of one
// report and of one person's reports together.
func PopulationFacts(s *core.Study, audits []core.Audit) ([]Mechanism, error) {
	shares, err := s.Shares()
	if err != nil {
		return nil, err
	}
	_, most := s.Contributions()
	unknown := s.Unit() == "record"
	var out []Mechanism
	for i, spec := range s.Mechanisms {
		au := audits[i]
		m := Mechanism{ID: spec.ID, Kind: string(spec.Kind), Level: levelWithUnits(spec, au), Eps: spec.Epsilon, Share: shares[i],
			Sensitive: len(spec.Sensitive), PerReport: guarantee.PlainReading(au), PerPerson: guarantee.PersonReading(au, most)}
		switch {
		case unknown:
			m.PerPerson = "The data do not say who sent which reports: each report is counted alone, and a person who sent several is protected less than one report's guarantee says."
		case m.PerPerson == "":
			m.PerPerson = "Each person sends one report: the guarantee of one report is hers."
		}
		if !math.IsInf(au.LDP, 1) {
			m.LDP = &au.LDP
		}
		if !math.IsNaN(au.GeoInd) && !math.IsInf(au.GeoIndUpper, 1) {
			m.GeoInd, m.GeoUnit = &au.GeoIndUpper, au.GeoUnit
		}
		out = append(out, m)
	}
	return out, nil
}

// levelWithUnits writes a mechanism's parameter with its units: "krr
// ε 3.05 nats per report", "planar-geometric ε 0.632 per km".
func levelWithUnits(spec core.MechanismSpec, au core.Audit) string {
	l := guarantee.MechanismLevel(spec)
	if info, ok := spec.Kind.Info(); ok && info.Convolution && au.GeoUnit != "" {
		return l + " per " + au.GeoUnit
	}
	if strings.Contains(l, "ε") {
		return l + " nats per report"
	}
	return l
}

// Run is what the command (or the window) that made an estimate says
// of it: the JSON line of privmap estimate.
type Run struct {
	Method       string   `json:"method"`
	LogLik       *float64 `json:"loglik"`
	Converged    bool     `json:"converged"`
	Iterations   int      `json:"iterations"`
	Gap          *float64 `json:"gap"`
	GapTol       *float64 `json:"gap_tol"`
	CILevel      *float64 `json:"ci_level"`
	CIMethod     string   `json:"ci_method"`
	CIReplicates int      `json:"ci_replicates"`
	CITV         *float64 `json:"ci_tv"`
	CIMaxError   *float64 `json:"ci_max_error"`
	Alpha        *float64 `json:"alpha"`
}

// EstimateFacts describes an estimate, the file fd holding theta (with
// its intervals iv, if any) on a, a map of unit (guarantee.MapUnit): with run
// (nil: unknown) its method and convergence, with truth its errors.
func EstimateFacts(ctx context.Context, fd output.FileDigest, theta []float64, iv *core.Intervals, a core.Alphabet, unit string, run *Run, truth []float64) (*Estimate, error) {
	e := &Estimate{File: fd, Method: "unknown", Title: "An estimate without a record",
		Certified: "not known: no record of this file was given (privmap estimate -record writes one), so its method and convergence are not stated"}
	if run != nil {
		e.Method, e.Title = run.Method, core.Method(run.Method).Title()
		e.LogLik, e.Gap, e.GapTol, e.Converged = run.LogLik, run.Gap, run.GapTol, &run.Converged
		e.Certified = certifiedText(*run)
	}
	if truth != nil {
		mt, err := emd.Compare(ctx, truth, theta, a)
		if err != nil {
			return nil, err
		}
		e.Errors = &Errors{TV: mt.TV, JSD: mt.JSD, SqErr: mt.MSE, Reading: guarantee.MetricsReadingOf(mt, unit)}
		if !math.IsNaN(mt.EMD) {
			e.Errors.EMD, e.Errors.EMDUnit = &mt.EMD, mt.EMDUnit
		}
	}
	if iv != nil {
		e.Intervals = intervalFacts(iv, theta, run)
	}
	return e, nil
}

// certifiedText says an estimate's convergence in words.
func certifiedText(l Run) string {
	tol := math.NaN()
	if l.GapTol != nil {
		tol = *l.GapTol
	}
	switch {
	case l.Alpha != nil && *l.Alpha == 0 && l.Converged:
		return fmt.Sprintf("the maximum-likelihood estimate after %d steps, left uncorrected: corrected EM's simulations chose α = 0, every correction of its grid coming out further from their truth", l.Iterations)
	case l.Alpha != nil && l.Converged:
		return fmt.Sprintf("the maximum-likelihood estimate after %d steps, corrected by CEM's bias term with weight α = %g (CEM Alg. 2): the correction moves it off the maximum on purpose, so no certificate applies", l.Iterations, *l.Alpha)
	case l.Gap != nil && l.Converged:
		return fmt.Sprintf("certified: its log-likelihood is within %.2g nats a report of the maximum (tolerance %.2g), after %d steps", *l.Gap, tol, l.Iterations)
	case l.Gap != nil:
		return fmt.Sprintf("NOT certified: its log-likelihood may be %.2g nats a report below the maximum, more than the tolerance %.2g", *l.Gap, tol)
	case l.Converged:
		return fmt.Sprintf("the method stopped by its own rule after %d steps (it has no certificate of optimality)", l.Iterations)
	}
	return fmt.Sprintf("the method did not converge within %d steps", l.Iterations)
}

// intervalFacts summarises an estimate's intervals.
func intervalFacts(iv *core.Intervals, est []float64, run *Run) *Intervals {
	out := &Intervals{Level: iv.Level}
	if run != nil {
		out.Method, out.Replicates, out.TV, out.MaxError = run.CIMethod, run.CIReplicates, run.CITV, run.CIMaxError
		if run.CILevel != nil {
			out.Level = *run.CILevel
		}
	}
	for _, h := range iv.HalfWidths(false) {
		out.MeanHalf += h / float64(len(est))
		out.MaxHalf = math.Max(out.MaxHalf, h)
	}
	p := strconv.FormatFloat(100*out.Level, 'f', -1, 64)
	s := fmt.Sprintf("With probability %s%%, each cell's probability lies within its interval (half-width %.2g on average, %.2g at most), and every cell at once within its band", p, out.MeanHalf, out.MaxHalf)
	if out.TV != nil {
		s += fmt.Sprintf("; the total variation to the truth is at most %.3g", *out.TV)
	}
	switch out.Method {
	case "":
	case string(core.IntervalBootstrap):
		s += fmt.Sprintf(" (a parametric bootstrap of %d replicates; approximate: docs/EXPERIMENTS.md measures how often they hold)", out.Replicates)
	case string(core.IntervalProfile):
		s += " (the profile likelihood; approximate: docs/EXPERIMENTS.md measures how often they hold)"
	case string(core.IntervalLocalProfile):
		s += fmt.Sprintf(" (the profile likelihood in a window of %d×%d cells around each cell; approximate: docs/EXPERIMENTS.md measures how often they hold)", core.LocalWindow, core.LocalWindow)
	default:
		s += fmt.Sprintf(" (%s; approximate: docs/EXPERIMENTS.md measures how often they hold)", out.Method)
	}
	out.Sentence = s + "."
	return out
}

// addNotes adds to the intervals' sentence what they describe when the
// study's people hold several records, and where the coverage
// experiment found the method's intervals short on a population like
// the study's: the filed report says what stderr and the window say.
func (iv *Intervals) addNotes(s *core.Study, run *Run) {
	var notes []string
	if note := interval.RecordsEstimand(s); note != "" {
		notes = append(notes, note)
	}
	if run != nil && iv.Method != "" {
		if note := interval.CoverageNote(core.Method(run.Method), core.IntervalMethod(iv.Method), s); note != "" {
			notes = append(notes, note)
		}
	}
	for _, n := range notes {
		iv.Sentence += " Note: " + strings.ToUpper(n[:1]) + n[1:] + "."
	}
}

// pxPerPt is the report's figures' pixels a typographic point: 2,000
// pixels span the A4 page's 174 mm of text (493 points, 4.1 pixels a
// point), and type at 2.6 pixels a point prints at about 60% of its
// size: the figures' 12-point labels at about 7.5 points, legible
// beside maps that fill the width.
const pxPerPt = 2.6

// An Underlay lays a basemap under maps (their Basemap and Opacity) and
// returns the basemap's credit, or why there is none.
type Underlay func(maps []*mapplot.Map) (credit string)

// EstimateFigures draws an estimate's maps on grid a for its section,
// two to a picture: with truth, true | estimate and estimate − truth,
// else the estimate; with iv the uncertainty (each cell's interval
// half-width) after them. A grid without a box has none.
//
// under, when not nil, lays a basemap under the maps and returns its
// credit, which the captions carry.
func EstimateFigures(a core.Alphabet, e *Estimate, theta, truth []float64, iv *core.Intervals, under Underlay) ([]Figure, error) {
	if a.Kind != core.KindGrid || !(a.North > a.South) {
		return nil, nil
	}
	em := mapplot.GridMap(a, theta, "Estimate", mapplot.Linear)
	maps, names := []*mapplot.Map{em}, []string{"the estimate"}
	if truth != nil {
		three := mapplot.Comparison(mapplot.GridMap(a, truth, "True", mapplot.Linear), em)
		maps, names = three[:], []string{"true map (raw data)", "estimate", "estimate − truth"}
	}
	if iv != nil {
		um := mapplot.GridMap(a, iv.HalfWidths(false), "Uncertainty: interval half-width", mapplot.Linear)
		um.Label = "± probability"
		maps, names = append(maps, um), append(names, "uncertainty (interval half-width)")
	}
	credit := ""
	if under != nil {
		credit = " · basemap: " + under(maps)
	}
	var figs []Figure
	for i := 0; i < len(maps); i += 2 {
		j := min(i+2, len(maps))
		b, err := figurePNG(&mapplot.Figure{Maps: maps[i:j]}, 2000, 900)
		if err != nil {
			return nil, err
		}
		figs = append(figs, Figure{Section: SectionEstimates + ":" + e.File.SHA256, Caption: e.Title + ": " + strings.Join(names[i:j], " | ") + credit, PNG: b})
	}
	return figs, nil
}

// figurePNG draws f within w×h pixels as PNG, its type at pxPerPt.
func figurePNG(f *mapplot.Figure, w, h int) ([]byte, error) {
	img, err := f.Image(w, h, pxPerPt)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// ReleaseLine is a release's JSON line, which report reads from its
// record.
type ReleaseLine = release.Line

// ReleaseFacts describes a release of cells counts in file fd: with l
// (nil: unknown) its mechanism at level (ε in words), privacy and
// accuracy.
func ReleaseFacts(fd output.FileDigest, cells int, l *ReleaseLine, level string) *Release {
	r := &Release{File: fd, Mechanism: "unknown", Level: "not known: no record of this file was given (privmap release -record writes one)", Cells: cells}
	if l == nil {
		return r
	}
	r.Mechanism, r.WorstEps, r.Sensitivity, r.Publication, r.Neighbours = l.Mechanism, l.WorstEps, l.Sensitivity, l.Secure, l.Neighbours
	r.LedgerSpent, r.LedgerLimit, r.Level, r.Ledger = l.LedgerSpent, l.LedgerBudget, level, l.Ledger
	if !l.Secure {
		r.MAE = &l.MAE
	}
	switch {
	case l.Accuracy != "":
		r.Accuracy = l.Accuracy
	case l.CILevel != nil && l.CIEach != nil && l.CIAll != nil:
		r.Accuracy = release.Interval{Level: *l.CILevel, Cells: cells, Each: *l.CIEach, All: *l.CIAll}.Sentence()
		if l.Suppressed > 0 || l.RecordsDropped > 0 {
			// An older record: its sentence held for counts neither
			// suppressed nor clipped, which these are.
			r.Accuracy = fmt.Sprintf("The interval of each count is ±%s alone and ±%s for every one at once, of the noise only: %s suppressed and %s dropped by clipping are farther from their true counts (the record predates privmap's statement of them; release again with -ci to have it).",
				human.Thousands(*l.CIEach), human.Thousands(*l.CIAll), human.Thousands(l.Suppressed)+" counts", human.Thousands(l.RecordsDropped)+" records")
		}
	}
	return r
}

// KeepSections drops the facts of the sections r does not show, so that
// its JSON holds what its PDF prints.
func KeepSections(r *Report) {
	if !r.Has(SectionData) {
		r.Data = nil
	}
	if !r.Has(SectionPopulation) {
		r.Population = nil
	}
	if !r.Has(SectionAttack) {
		r.Attack = nil
	}
	if !r.Has(SectionEstimates) {
		r.Estimates = nil
	}
	if !r.Has(SectionRelease) {
		r.Release = nil
	}
	if !r.Has(SectionManifest) {
		r.Manifest = nil
	}
	var figs []*FigureRef
	for _, f := range r.Figures {
		if r.Has(f.Section) {
			figs = append(figs, f)
		}
	}
	r.Figures = figs
}

// RawDataNote is the report's line on the raw data it shows.
const RawDataNote = "Raw data: the true map and the true counts are people's data themselves, shown only in a preview to judge the method; " +
	"they are never part of a release."

// The words of an estimate's reports (Estimate.Reports).
const (
	ReportsSimulated = "simulated"
	ReportsCollected = "collected"
	ReportsUnknown   = "unknown"
)

// reportsKind says an estimate's reports in words.
var reportsKind = map[string]string{
	ReportsSimulated: pipeline.PreviewWords + " (anyone with its seed and commands can test candidate data sets against it)",
	ReportsCollected: "collected: estimated from reports that no record given says privmap simulated",
	ReportsUnknown:   "not known: no record of this estimate was given, so where its reports came from is not stated",
}

// publishable says what of r may be published: a release drawn for
// publication, and estimates from collected reports; never a preview.
func publishable(r *Report) string {
	var may, not []string
	for i, e := range r.Estimates {
		name := fmt.Sprintf("estimate %d (%s)", i+1, e.Method)
		if e.Reports == ReportsCollected {
			may = append(may, name+", if its reports were collected from people (no record given says privmap simulated them)")
		} else {
			not = append(not, name)
		}
	}
	if rel := r.Release; rel != nil {
		if rel.Publication {
			may = append(may, "the released counts, drawn for publication")
		} else {
			not = append(not, "the released counts (a preview from a seeded generator)")
		}
	}
	var s []string
	if len(may) > 0 {
		s = append(s, "What may be published: "+strings.Join(may, "; ")+".")
	} else {
		s = append(s, "Nothing in this report is a publication.")
	}
	if len(not) > 0 {
		s = append(s, "Previews, not for publication: "+strings.Join(not, "; ")+".")
	}
	return strings.Join(s, " ")
}

// New returns a report's frame: its context and privmap's build.
func New(title, operator, notes, paper string, sections []string, created string) *Report {
	return &Report{Schema: Schema, Title: title, Created: created, Operator: operator, Notes: notes,
		Privmap: Build{Version: build.Version, Commit: build.Commit(), Go: runtime.Version()}, Paper: paper, Sections: sections, RawData: RawDataNote}
}

// AddFigures names the figures in r.
func AddFigures(r *Report, figs []Figure) {
	for _, f := range figs {
		r.Figures = append(r.Figures, &FigureRef{Section: strings.SplitN(f.Section, ":", 2)[0], Caption: f.Caption})
	}
}

// perUserWords says what grid's -per-user rule kept of each person's
// records ("per-person rule: 20" said it in privmap's own words).
func perUserWords(rule string) string {
	switch rule {
	case "":
		return ""
	case "first":
		return "each person's first record kept (grid -per-user first)"
	case "all":
		return "every record of each person kept (grid -per-user all)"
	}
	if k, err := strconv.Atoi(rule); err == nil {
		return fmt.Sprintf("each person's first %d records by time kept, at most (grid -per-user %d)", k, k)
	}
	return "records kept of each person by the rule " + rule
}
