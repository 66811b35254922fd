package experiment

import (
	"fmt"
	"strings"
)

// A Paper is a publication whose experiments privmap reproduces, by the
// short name the code cites it with (docs/ARCHITECTURE.md, the papers).
type Paper struct {
	Short   string // FW, CEM, ULDP, PM
	Authors string
	Title   string
	Venue   string // where it appeared, with its identifier
	Year    int
}

// Citation returns the paper as a reference: authors, title, venue, year.
func (p *Paper) Citation() string {
	s := fmt.Sprintf("“%s”, %s, %d", p.Title, p.Venue, p.Year)
	if p.Authors != "" {
		s = p.Authors + ", " + s
	}
	return s
}

// Papers are the papers privmap reproduces, in the order they are cited.
// PM's authors are not in the text privmap was built from and are left
// out rather than guessed; its arXiv number finds it.
var Papers = []*Paper{
	{Short: "FW", Authors: "E. ElSalamouny and C. Palamidessi",
		Title: "Reconstruction of the distribution of sensitive data under free-will privacy",
		Venue: "arXiv:2208.11268", Year: 2022},
	{Short: "CEM", Authors: "T. Murakami, H. Hino and J. Sakuma",
		Title: "Toward distribution estimation under local differential privacy with small samples",
		Venue: "Proceedings on Privacy Enhancing Technologies 2018(3), doi:10.1515/popets-2018-0022", Year: 2018},
	{Short: "ULDP", Authors: "T. Murakami and Y. Kawamoto",
		Title: "Utility-optimized local differential privacy mechanisms for distribution estimation",
		Venue: "28th USENIX Security Symposium", Year: 2019},
	{Short: "PM",
		Title: "More flexible differential privacy: the application of piecewise mixture distributions in query release",
		Venue: "arXiv:1707.01189", Year: 2017},
}

// Paper returns the paper e reproduces, by its name's prefix (fw-, cem-,
// uldp-, pm-), or nil for privmap's own checks (coverage).
func (e *Experiment) Paper() *Paper {
	fam, _, _ := strings.Cut(e.Name, "-")
	for _, p := range Papers {
		if strings.EqualFold(p.Short, fam) {
			return p
		}
	}
	return nil
}

// Short returns what e reproduces in a few words, its Title up to the
// first colon ("FW Fig. 7"), for lists.
func (e *Experiment) Short() string {
	s, _, _ := strings.Cut(e.Title, ":")
	return s
}

// Source says where e comes from in one line: its paper's citation, or
// that it is privmap's own check.
func (e *Experiment) Source() string {
	if p := e.Paper(); p != nil {
		return p.Short + ": " + p.Citation()
	}
	return "privmap's own check of its intervals (go doc ./app/interval), no paper"
}
