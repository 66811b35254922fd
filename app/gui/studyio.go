package gui

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/storage"
	"github.com/paulmach/orb"

	"github.com/privmap/privmap/app/output"
	"github.com/privmap/privmap/app/studyfile"
	"github.com/privmap/privmap/core"
	"github.com/privmap/privmap/geo"
)

// study returns the whole study as the window holds it: each screen
// that owns members of the study file (a studyMember) writes them — the
// population's alphabet and mechanisms, where the data came from and how
// they were binned, the run's options.
func (u *ui) study() (*studyfile.Study, error) {
	if u.ws.data == nil {
		return nil, errors.New("no data are loaded yet")
	}
	s := &studyfile.Study{}
	for _, sc := range u.screens {
		if m, ok := sc.(studyMember); ok {
			if err := m.putStudy(s); err != nil {
				return nil, err
			}
		}
	}
	return s, nil
}

// onSaveStudy asks for a file and writes the study JSON (docs/ARCHITECTURE.md
// §7).
func (u *ui) onSaveStudy() {
	s, err := u.study()
	if err != nil {
		showError(u.win, fmt.Errorf("cannot save the study: %w", err), "Nothing was written.")
		return
	}
	entry, path := pathEntry(u.win, filepath.Join(lastFolder(u.app), "study.json"), []string{".json"})
	showPathForm(u.win, "Save the study", "Save", path, entry, nil, func(name string) error {
		rememberFolder(u.app, name)
		var source string // no more readable than the data it holds
		if s.Source != nil {
			source = s.Source.Path
		}
		return output.WriteFile(name, func(w io.Writer) error { return studyfile.Write(w, s) }, source)
	})
}

// onOpenStudy asks for a study file and opens it.
func (u *ui) onOpenStudy() {
	showFileOpen(u.win, u.app, []string{".json"}, func(rc fyne.URIReadCloser) {
		defer rc.Close()
		b, err := core.ReadAllLimited(rc, core.MaxStudyBytes, "a study file")
		if err == nil {
			err = u.openStudy(b, rc.URI().Name())
		}
		if err != nil {
			showError(u.win, fmt.Errorf("%s: %w", rc.URI().Name(), err), "Nothing was changed; correct the file and open it again.")
		}
	})
}

// openStudy shows a study: its data are loaded again from their file
// with its grid or attributes, then its population and run options are
// set. A study without a source applies to the data loaded if its
// alphabet fits them.
func (u *ui) openStudy(b []byte, name string) error {
	s, err := studyfile.Read(bytes.NewReader(b))
	if err != nil {
		return err
	}
	if u.ws.loading {
		return errors.New("data are still loading; wait for them or cancel, then open the study again")
	}
	apply := func() {
		for _, sc := range u.screens {
			if m, ok := sc.(studyMember); ok {
				m.takeStudy(s)
			}
		}
	}
	if s.Source == nil {
		ds := u.ws.data
		if ds == nil || !sameAlphabet(ds.studyAlphabet(), s.Alphabet) {
			return errors.New("the study names no data file and its alphabet does not fit the data loaded: open its data first")
		}
		apply()
		return nil
	}
	src, err := studySource(s.Source)
	if err != nil {
		return err
	}
	d := u.data
	if err := d.applySource(s.Source); err != nil {
		return err
	}
	// The population is set once the data are shown, after the data
	// tab's own hook has set the alphabet.
	d.afterLoad = func(ds *dataset) {
		if !sameAlphabet(ds.studyAlphabet(), s.Alphabet) {
			showError(u.win, fmt.Errorf("%s: its data were loaded, but their alphabet differs from the study's", name),
				"Its population was not applied; check the study's alphabet against its grid or attributes.")
			return
		}
		apply()
	}
	d.load(src, false)
	return nil
}

// studySource returns the file a study's source names, to be read by
// the column mapping it records.
func studySource(src *studyfile.Source) (source, error) {
	if src.Path == "" {
		return defaultSource(), nil
	}
	if _, err := os.Stat(src.Path); err != nil {
		return source{}, fmt.Errorf("its data file: %w", err)
	}
	m, err := src.Mapping()
	if err != nil {
		return source{}, fmt.Errorf("its data file's column mapping: %w", err)
	}
	s := uriSource(storage.NewFileURI(src.Path))
	s.mapping, s.blank, s.personKey = m, src.BlankPerson, src.PersonKey
	// The layouts read from their path keep their format and places.
	if f, err := geo.ParseFormat(src.Format); err == nil {
		if in := (geo.Input{Path: src.Path, Format: f, Venues: src.Venues, Reviews: src.Reviews}); in.FromPath() {
			if err := in.Check(); err != nil {
				return source{}, fmt.Errorf("its data file: %w", err)
			}
			s.layout = &in
		}
	}
	return s, nil
}

// sameAlphabet reports whether two alphabets have the same symbols and
// geometry (labels and attributes aside).
func sameAlphabet(a, b core.Alphabet) bool {
	if a.Kind != b.Kind || a.Len() != b.Len() {
		return false
	}
	if a.Kind == core.KindGrid {
		near := func(x, y float64) bool { return math.Abs(x-y) <= 1e-6*max(1, math.Abs(x)) }
		return a.Cols == b.Cols && a.Rows == b.Rows && near(a.CellKm, b.CellKm)
	}
	return true
}

// putStudy records in a study being saved where the data came from and
// how they were binned.
func (d *dataTab) putStudy(s *studyfile.Study) error {
	s.Source = d.ws.data.studySource()
	return nil
}

// takeStudy does nothing: the Data screen applies a study's source
// before its data are loaded (applySource), and the other screens take
// the study once they are shown.
func (d *dataTab) takeStudy(*studyfile.Study) {}

// applySource sets the grid and census controls as a study's source
// records them.
func (d *dataTab) applySource(src *studyfile.Source) error {
	bb := src.BBox
	if len(bb) != 0 && len(bb) != 4 {
		return fmt.Errorf("source bbox has %d numbers, want south, west, north, east", len(bb))
	}
	rule, limit, err := geo.ParseContribution(cmp.Or(src.PerUser, "first"))
	if err != nil {
		return fmt.Errorf("source per_user %q: want first, all or a whole number K", src.PerUser)
	}
	perUser := perUserFirst
	switch {
	case limit > 0:
		perUser = perUserBounded
		d.bound.SetText(strconv.Itoa(limit))
	case rule == geo.All:
		perUser = perUserAll
	}
	if len(bb) == 4 { // south, west, north, east
		d.setBoxEntries(orb.Bound{Min: orb.Point{bb[1], bb[0]}, Max: orb.Point{bb[3], bb[2]}})
	}
	if src.CellKm > 0 {
		d.cell.SetText(strconv.FormatFloat(src.CellKm, 'g', -1, 64))
	}
	// Not d.onPerUser: the data are loaded afresh, not gridded again.
	d.perUser.OnChanged = nil
	d.perUser.SetSelected(perUser)
	d.perUser.OnChanged = d.onPerUser
	d.showBound()
	if src.Attrs != "" {
		d.census.attrs.SetText(src.Attrs)
	}
	missing := missingDrop
	if src.Missing == "category" {
		missing = missingCategory
	}
	d.census.missing.SetSelected(missing)
	return nil
}
