package gui

import (
	"github.com/privmap/privmap/app"
	"github.com/privmap/privmap/core"
)

// runRequest is a run of the application's pipeline (app.Run) with the
// data set it was made on, for the maps.
type runRequest struct {
	app.Request
	ds *dataset
}

// runResult is a finished run with its data set.
type runResult struct {
	*app.Result
	ds *dataset
}

// methodResult is one estimator's outcome.
type methodResult = app.MethodResult

// methodTitles name the estimators as the window shows them.
var methodTitles = map[core.Method]string{
	core.MethodGIBU: "GIBU",
	core.MethodCEM:  "Corrected EM",
	core.MethodIBUM: "[IBU]_M",
	core.MethodIBUR: "[IBU]_R",
	core.MethodINVM: "[INV]_M",
	core.MethodINVR: "[INV]_R",
	core.MethodRAPM: "[RAP]_M",
	core.MethodRAPR: "[RAP]_R",
	core.MethodULDP: "ULDP empirical",
}

// methodTitle returns the title of a method.
func methodTitle(m core.Method) string {
	if t, ok := methodTitles[m]; ok {
		return t
	}
	return string(m)
}
