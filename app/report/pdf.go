package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"

	"codeberg.org/go-fonts/liberation/liberationmonoregular"
	"codeberg.org/go-fonts/liberation/liberationsansbold"
	"codeberg.org/go-fonts/liberation/liberationsansregular"
	"codeberg.org/go-pdf/fpdf"

	"github.com/privmap/privmap/app/human"
	"github.com/privmap/privmap/app/output"
)

// A Figure is a picture of a section: its caption and its PNG, drawn
// at the width of the text.
type Figure struct {
	Section, Caption string
	PNG              []byte
}

// Page layout, in millimetres.
const (
	margin    = 18.0
	labelW    = 46.0
	lineH     = 5.2
	smallLine = 4.2
)

// pdfDoc is the document being written and its page's text width.
type pdfDoc struct {
	*fpdf.Fpdf
	textW float64
	n     int // images registered
}

// WritePDF writes r as a PDF on r.Paper (a4 or letter), with the
// figures in their sections. The fonts are Liberation Sans and Mono,
// embedded as UTF-8 TrueType (ε, ×, ≤, km² print); the dates in the
// file are r.Created, so the same report is the same bytes.
func WritePDF(w io.Writer, r *Report, figs []Figure) error {
	size := "A4"
	if r.Paper == "letter" {
		size = "Letter"
	}
	f := fpdf.New("P", "mm", size, "")
	f.AddUTF8FontFromBytes("sans", "", liberationsansregular.TTF)
	f.AddUTF8FontFromBytes("sans", "B", liberationsansbold.TTF)
	f.AddUTF8FontFromBytes("mono", "", liberationmonoregular.TTF)
	if t, err := time.Parse(time.RFC3339, r.Created); err == nil {
		f.SetCreationDate(t)
		f.SetModificationDate(t)
	}
	f.SetTitle(r.Title, true)
	f.SetAuthor(r.Operator, true)
	f.SetCreator("privmap "+r.Privmap.Version, true)
	f.SetProducer("privmap (go-pdf/fpdf)", true)
	f.SetMargins(margin, margin, margin)
	f.SetAutoPageBreak(true, margin)
	f.AliasNbPages("{nb}")
	pw, _ := f.GetPageSize()
	d := &pdfDoc{Fpdf: f, textW: pw - 2*margin}
	f.SetFooterFunc(func() {
		f.SetY(-12)
		f.SetFont("sans", "", 8)
		f.SetTextColor(90, 90, 90)
		f.CellFormat(0, 4, fmt.Sprintf("privmap %s release report · %s · page %d of {nb}", r.Privmap.Version, r.Title, f.PageNo()), "", 0, "C", false, 0, "")
		f.SetTextColor(0, 0, 0)
	})
	f.AddPage()
	d.context(r)
	d.sections(r, figs)
	if err := f.Error(); err != nil {
		return fmt.Errorf("report: PDF: %w", err)
	}
	return f.Output(w)
}

// sections draws each section the report has and holds facts for, in
// their order.
func (d *pdfDoc) sections(r *Report, figs []Figure) {
	draw := []struct {
		name string
		has  bool
		draw func()
	}{
		{SectionData, r.Data != nil, func() { d.data(r.Data) }},
		{SectionPopulation, len(r.Population) > 0, func() { d.population(r.Population) }},
		{SectionAttack, r.Attack != nil, func() { d.attack(r.Attack) }},
		{SectionEstimates, len(r.Estimates) > 0, func() { d.estimates(r, figs) }},
		{SectionRelease, r.Release != nil, func() { d.release(r.Release, figs) }},
		{SectionManifest, r.Manifest != nil, func() { d.manifest(r.Manifest) }},
	}
	for _, s := range draw {
		if s.has && r.Has(s.name) {
			s.draw()
		}
	}
}

func (d *pdfDoc) heading(s string) {
	if _, y := d.GetXY(); y > 250 {
		d.AddPage()
	}
	d.Ln(3)
	d.SetFont("sans", "B", 13)
	d.CellFormat(0, 8, s, "B", 1, "L", false, 0, "")
	d.Ln(2)
}

func (d *pdfDoc) subheading(s string) {
	d.Ln(1)
	d.SetFont("sans", "B", 10.5)
	d.MultiCell(0, lineH+0.4, s, "", "L", false)
}

// kv writes a label and its value, the value wrapped beside the label.
func (d *pdfDoc) kv(label, value string) {
	if value == "" {
		return
	}
	d.SetFont("sans", "B", 9.5)
	_, ph := d.GetPageSize()
	if d.GetY()+lineH > ph-margin {
		d.AddPage()
	}
	x, y := d.GetXY()
	page := d.PageNo()
	d.MultiCell(labelW, lineH, label, "", "L", false)
	yl := d.GetY()
	d.SetXY(x+labelW, y)
	d.SetFont("sans", "", 9.5)
	d.MultiCell(d.textW-labelW, lineH, value, "", "L", false)
	if d.PageNo() == page && d.GetY() < yl {
		d.SetY(yl)
	}
}

// mono writes a value in the monospaced font (digests, commands).
func (d *pdfDoc) mono(label, value string) {
	d.SetFont("sans", "B", 9.5)
	d.CellFormat(labelW, lineH, label, "", 0, "L", false, 0, "")
	d.SetFont("mono", "", 8)
	d.MultiCell(d.textW-labelW, lineH, value, "", "L", false)
}

// para writes a paragraph of text.
func (d *pdfDoc) para(s string) {
	if s == "" {
		return
	}
	d.SetFont("sans", "", 9.5)
	d.MultiCell(0, lineH, s, "", "L", false)
}

func (d *pdfDoc) context(r *Report) {
	d.SetFont("sans", "B", 18)
	d.MultiCell(0, 9, r.Title, "", "L", false)
	d.Ln(1)
	d.SetFont("sans", "", 10)
	d.MultiCell(0, lineH, "Release report written by privmap: distribution estimation under free-will local privacy.", "", "L", false)
	d.Ln(2)
	created := r.Created
	if t, err := time.Parse(time.RFC3339, r.Created); err == nil {
		created = t.Format("2 January 2006, 15:04 UTC")
	}
	d.kv("Date", created)
	build := "privmap " + r.Privmap.Version
	if r.Privmap.Commit != "" {
		build += ", commit " + r.Privmap.Commit
	}
	d.kv("Software", build+", "+r.Privmap.Go)
	d.kv("Operator", r.Operator)
	d.kv("Notes", r.Notes)
	d.kv("Sections", strings.Join(r.Sections, ", "))
	d.Ln(2)
	d.SetFillColor(250, 240, 225)
	d.SetFont("sans", "", 9)
	text := r.RawData
	if r.Publishable != "" {
		text = r.Publishable + " " + text
	}
	d.MultiCell(0, smallLine+0.4, text, "1", "L", true)
}

func (d *pdfDoc) data(x *Data) {
	d.heading("The data")
	if x.File != nil {
		d.kv("File", fmt.Sprintf("%s (%s bytes)", x.File.Path, human.Thousands(int(x.File.Bytes))))
		d.mono("SHA-256", x.File.SHA256)
	}
	d.kv("Format", x.Format)
	if rd := x.Read; rd != nil {
		d.kv("Read", fmt.Sprintf("%s lines: %s records read, %s malformed lines skipped", human.Thousands(rd.Lines), human.Thousands(rd.Records), human.Thousands(rd.Skipped)))
	}
	d.kv("Alphabet", x.Alphabet)
	if x.Unit == "record" {
		d.kv("Data in the study", fmt.Sprintf("%s records (%s)", human.Thousands(x.Data), x.PerPerson))
	} else {
		d.kv("Data in the study", fmt.Sprintf("%s data of %s people (%s)", human.Thousands(x.Data), human.Thousands(x.People), x.PerPerson))
	}
	bound := "none: a person may contribute any number of data"
	if x.Bound > 0 {
		bound = fmt.Sprintf("at most %s data a person", human.Thousands(x.Bound))
	}
	d.kv("Contribution bound", fmt.Sprintf("%s; the most one person contributes: %s", bound, human.Thousands(x.MostPerPerson)))
}

func (d *pdfDoc) population(ms []Mechanism) {
	d.heading("The population: mechanisms and what they guarantee")
	d.para("Every user sanitises her own data with one of these mechanisms before it leaves her device. The guarantees are audited from each mechanism's channel, not taken from its parameters. ε is in nats: seeing a report, the odds between two values change at most e^ε; a planar or linear geometric mechanism's ε is per km (or per step), so that between places d km apart the odds change at most e^(ε·d). Where a person sends several reports, her guarantee is given for all of them together.")
	for _, m := range ms {
		share := fmt.Sprintf("%.3g%% of users", 100*m.Share)
		sens := "every cell protected"
		if m.Sensitive > 0 {
			sens = fmt.Sprintf("%s sensitive cells protected", human.Thousands(m.Sensitive))
		}
		d.subheading(fmt.Sprintf("%s — %s, %s, %s", m.ID, m.Level, share, sens))
		audit := "unbounded: some reports tell values apart for certain"
		if m.LDP != nil {
			audit = fmt.Sprintf("ε-LDP %.4g per report", *m.LDP)
		}
		if m.GeoInd != nil {
			audit += fmt.Sprintf("; ε-geo-indistinguishability %.4g per %s", *m.GeoInd, m.GeoUnit)
		}
		d.kv("Audited", audit)
		d.kv("One report", m.PerReport)
		d.kv("One person", m.PerPerson)
	}
}

func (d *pdfDoc) estimates(r *Report, figs []Figure) {
	d.heading("The estimates")
	for i, e := range r.Estimates {
		d.subheading(fmt.Sprintf("%d. %s", i+1, e.Title))
		d.kv("File", fmt.Sprintf("%s (%s bytes)", e.File.Path, human.Thousands(int(e.File.Bytes))))
		d.mono("SHA-256", e.File.SHA256)
		if len(e.Command) > 0 {
			d.mono("Command", strings.Join(e.Command, " "))
		}
		if e.Seed != nil {
			d.kv("Seed", fmt.Sprint(*e.Seed))
		}
		if e.Kind != "" {
			d.kv("Reports", e.Kind)
		}
		d.kv("Convergence", e.Certified)
		if er := e.Errors; er != nil {
			emd := "not measured"
			if er.EMD != nil {
				emd = fmt.Sprintf("%.4g %s", *er.EMD, er.EMDUnit)
			}
			d.kv("Errors against the truth", fmt.Sprintf("TV %.4g · EMD %s · JSD %.4g nats · squared error %.4g", er.TV, emd, er.JSD, er.SqErr))
			d.kv("In words", er.Reading)
		}
		if iv := e.Intervals; iv != nil {
			d.kv("Uncertainty", iv.Sentence)
		}
		for _, fg := range figs {
			if fg.Section == SectionEstimates+":"+e.File.SHA256 {
				d.figure(fg)
			}
		}
	}
}

func (d *pdfDoc) release(x *Release, figs []Figure) {
	d.heading("The central release")
	d.kv("File", fmt.Sprintf("%s (%s bytes)", x.File.Path, human.Thousands(int(x.File.Bytes))))
	d.mono("SHA-256", x.File.SHA256)
	if len(x.Command) > 0 {
		d.mono("Command", strings.Join(x.Command, " "))
	}
	kind := "a preview: noise from a seeded generator, not for publication, not spent"
	if x.Publication {
		kind = "a publication: exact integer noise from the operating system's generator, spent in the organisation's ledger (below)"
	}
	d.kv("Mechanism", fmt.Sprintf("%s, %s; sensitivity Δ = %d; worst case ε = %.4g per person", x.Mechanism, x.Level, x.Sensitivity, x.WorstEps))
	d.kv("Kind", kind)
	d.kv("Neighbours", x.Neighbours)
	d.kv("Accuracy", x.Accuracy)
	if x.MAE != nil {
		d.kv("Mean absolute error", fmt.Sprintf("%.4g against the true counts (preview only: the truth is raw data)", *x.MAE))
	}
	if x.LedgerSpent != nil {
		s := fmt.Sprintf("ε %.4g spent by publications of these data", *x.LedgerSpent)
		if x.LedgerLimit != nil && *x.LedgerLimit > 0 {
			s += fmt.Sprintf(" of a budget of %.4g", *x.LedgerLimit)
		}
		if l := x.Ledger; l != nil {
			s += fmt.Sprintf(" (data set %q in %s", l.Dataset, l.Path)
			if l.Entry > 0 {
				s += fmt.Sprintf("; this publication is entry %d", l.Entry)
			}
			s += ")"
		}
		d.kv("Ledger", s)
		if l := x.Ledger; l != nil && l.Head != "" {
			d.mono("Chain head", l.Head)
		}
	}
	for _, fg := range figs {
		if fg.Section == SectionRelease {
			d.figure(fg)
		}
	}
}

func (d *pdfDoc) manifest(m *Manifest) {
	d.AddPage()
	d.heading("Manifest: files and the commands that remake them")
	d.para("Every file this report rests on or writes, with its SHA-256. Run the commands in an empty folder holding the input files to remake the outputs byte for byte; a publication is listed as the draw its ledger records, which no command remakes.")
	d.para(m.Note)
	d.subheading("Inputs")
	for _, f := range m.Inputs {
		d.fileLine(f)
	}
	d.subheading("Outputs")
	for _, f := range m.Outputs {
		d.fileLine(f)
	}
	if len(m.Draws) > 0 {
		d.subheading("Publications: recorded draws, not commands")
		for _, s := range m.Draws {
			d.para(s)
		}
	}
	if len(m.Commands) > 0 {
		d.subheading("Commands")
		d.SetFont("mono", "", 7.5)
		for _, c := range m.Commands {
			d.MultiCell(0, smallLine, c, "", "L", false)
			d.Ln(1)
		}
	}
}

func (d *pdfDoc) fileLine(f output.FileDigest) {
	d.SetFont("sans", "", 9)
	if f.SHA256 == SelfDigest {
		d.MultiCell(0, smallLine, f.Path+" — this report (a file cannot hold its own digest)", "", "L", false)
		d.Ln(0.8)
		return
	}
	d.MultiCell(0, smallLine, fmt.Sprintf("%s — %s bytes", f.Path, human.Thousands(int(f.Bytes))), "", "L", false)
	d.SetFont("mono", "", 7.5)
	d.MultiCell(0, smallLine, f.SHA256, "", "L", false)
	d.Ln(0.8)
}

// figure draws a figure at the text's width, on a new page when it
// does not fit on this one, its caption below.
func (d *pdfDoc) figure(fg Figure) {
	d.n++
	name := fmt.Sprintf("fig%d", d.n)
	info := d.RegisterImageOptionsReader(name, fpdf.ImageOptions{ImageType: "PNG"}, bytes.NewReader(fg.PNG))
	if info == nil || d.Err() {
		return
	}
	w := d.textW
	h := w * info.Height() / info.Width()
	_, ph := d.GetPageSize()
	if d.GetY()+h+12 > ph-margin {
		d.AddPage()
	}
	d.Ln(2)
	d.ImageOptions(name, margin, d.GetY(), w, h, true, fpdf.ImageOptions{ImageType: "PNG"}, 0, "")
	d.SetFont("sans", "", 8.5)
	d.MultiCell(0, smallLine, fg.Caption, "", "C", false)
}
