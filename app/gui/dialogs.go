package gui

import (
	"errors"
	"fmt"
	"image/png"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// showFileOpen asks for a file to open: a path typed or pasted (the
// folder last opened from filled in, Enter opens), or Browse… for the
// file dialog there, offering files ending in one of exts (any file when
// none). It passes the file to open and remembers its folder; a path
// that cannot be opened, or a failure of the dialog, is shown.
func showFileOpen(w fyne.Window, a fyne.App, exts []string, open func(fyne.URIReadCloser)) {
	dir := folderPref(a, prefOpened)
	entry := widget.NewEntry()
	entry.SetText(dir + string(filepath.Separator))
	entry.SetPlaceHolder("a file's path, typed or pasted")
	entry.Validator = func(s string) error {
		st, err := os.Stat(strings.TrimSpace(s))
		switch {
		case err != nil:
			return errors.New("no such file")
		case st.IsDir():
			return errors.New("a folder: name a file in it, or Browse…")
		}
		return nil
	}
	var form *dialog.FormDialog
	chosen := func(rc fyne.URIReadCloser) {
		form.Hide()
		rememberOpened(a, rc.URI())
		open(rc)
	}
	browse := &widget.Button{Text: "Browse…", Icon: theme.FolderOpenIcon(), OnTapped: func() {
		fd := dialog.NewFileOpen(func(rc fyne.URIReadCloser, err error) {
			if err != nil {
				dialog.ShowError(err, w)
				return
			}
			if rc != nil {
				chosen(rc)
			}
		}, w)
		if len(exts) > 0 {
			fd.SetFilter(storage.NewExtensionFileFilter(exts))
		}
		startIn(fd, dir)
		fd.Resize(fyne.NewSize(800, 560))
		fd.Show()
	}}
	form = dialog.NewForm("Open a file", "Open", "Cancel",
		[]*widget.FormItem{widget.NewFormItem("Path", container.NewBorder(nil, nil, nil, browse, entry))}, func(ok bool) {
			if !ok {
				return
			}
			path := strings.TrimSpace(entry.Text)
			rc, err := storage.Reader(storage.NewFileURI(path))
			if err != nil {
				showError(w, fmt.Errorf("%s: %w", path, err), "Check the path, or choose the file with Browse….")
				return
			}
			chosen(rc)
		}, w)
	entry.OnSubmitted = func(string) { form.Submit() }
	form.Resize(fyne.NewSize(720, form.MinSize().Height))
	form.Show()
	w.Canvas().Focus(entry)
}

// pathEntry is a file name entry with a Browse… button that opens the
// file dialog in the entry's folder.
func pathEntry(w fyne.Window, path string, exts []string) (*widget.Entry, fyne.CanvasObject) {
	e := widget.NewEntry()
	e.SetText(path)
	e.Validator = func(s string) error {
		if strings.TrimSpace(s) == "" {
			return errors.New("name the file to write")
		}
		if st, err := os.Stat(filepath.Dir(s)); err != nil || !st.IsDir() {
			return errors.New("the folder does not exist")
		}
		return nil
	}
	browse := &widget.Button{Icon: theme.FolderOpenIcon(), OnTapped: func() {
		d := dialog.NewFileSave(func(uc fyne.URIWriteCloser, err error) {
			if err != nil || uc == nil {
				return
			}
			uc.Close()
			e.SetText(uc.URI().Path())
		}, w)
		d.SetFileName(filepath.Base(e.Text))
		startIn(d, filepath.Dir(e.Text))
		d.SetFilter(storage.NewExtensionFileFilter(exts))
		d.Show()
	}}
	return e, container.NewBorder(nil, nil, nil, browse, e)
}

// showPathForm shows a form whose first row is a file name, focused so
// that it can be typed straight away, and calls submit with the path and
// closes only when submit succeeds; an error is shown with what to do.
func showPathForm(w fyne.Window, title, confirm string, path fyne.CanvasObject, entry *widget.Entry,
	extra []*widget.FormItem, submit func(path string) error) dialog.Dialog {
	items := append([]*widget.FormItem{widget.NewFormItem("File", path)}, extra...)
	d := dialog.NewForm(title, confirm, "Cancel", items, func(ok bool) {
		if !ok {
			return
		}
		p := strings.TrimSpace(entry.Text)
		if err := submit(p); err != nil {
			showError(w, fmt.Errorf("%s: %w", p, err), "Choose another file or folder and try again; nothing was overwritten.")
			return
		}
		showWritten(w, p)
	}, w)
	entry.OnSubmitted = func(string) { d.Submit() } // Enter exports
	d.Resize(fyne.NewSize(620, d.MinSize().Height))
	d.Show()
	w.Canvas().Focus(entry)
	return d
}

// showWritten confirms that the file name was written, with its folder
// and, for a picture, its size in pixels, and offers to open the folder.
func showWritten(w fyne.Window, name string) {
	text := fmt.Sprintf("Wrote %s\nin %s", filepath.Base(name), filepath.Dir(name))
	if f, err := os.Open(name); err == nil {
		if cfg, err := png.DecodeConfig(f); err == nil {
			text += fmt.Sprintf("\n(%d × %d pixels)", cfg.Width, cfg.Height)
		}
		f.Close()
	}
	msg := widget.NewLabel(text)
	msg.Wrapping = fyne.TextWrapBreak
	d := dialog.NewCustomConfirm("Written", "Open folder", "OK", msg, func(open bool) {
		if open {
			if err := fyne.CurrentApp().OpenURL(&url.URL{Scheme: "file", Path: filepath.Dir(name)}); err != nil {
				showError(w, err, "Open the folder from your file manager.")
			}
		}
	}, w)
	d.Resize(fyne.NewSize(520, d.MinSize().Height))
	d.Show()
}

// startIn makes a file dialog open in folder dir, if it can be listed.
func startIn(fd *dialog.FileDialog, dir string) {
	if l, err := storage.ListerForURI(storage.NewFileURI(dir)); err == nil {
		fd.SetLocation(l)
	}
}

// showError shows err in a dialog followed by what to do next.
func showError(w fyne.Window, err error, next string) {
	dialog.ShowError(advice{err, next}, w)
}

// advice is an error with what to do about it.
type advice struct {
	err  error
	next string
}

func (a advice) Error() string { return a.err.Error() + "\n\n" + a.next }
func (a advice) Unwrap() error { return a.err }
