package gui

import (
	"github.com/privmap/privmap/app/pipeline"
	"github.com/privmap/privmap/core"
)

// runRequest is a run of the application's pipeline (pipeline.Run) with the
// data set it was made on, for the maps.
type runRequest struct {
	pipeline.Request
	ds *dataset
	// intervals: the Compare screen computes the estimates' intervals
	// once the run is shown.
	intervals bool
}

// runResult is a finished run with its data set.
type runResult struct {
	*pipeline.Result
	ds        *dataset
	intervals bool
}

// methodResult is one estimator's outcome.
type methodResult = pipeline.MethodResult

// methodTitle returns the title of a method as the window shows it
// (core.Method.Title), a function value for pipeline.Run.
func methodTitle(m core.Method) string { return m.Title() }
