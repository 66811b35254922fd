// Package build says which privmap this is: its version, the commit it
// was built from, the Go and Fyne versions and the licences of the data
// and modules linked in (Read, About). Records, studies, reports and
// the About dialog carry them.
package build
