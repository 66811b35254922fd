// Package interval gives an estimate its intervals and says how far
// they can be trusted.
//
// CI chooses the method (GIBU's windowed profile likelihood where the
// map allows it, a parametric bootstrap elsewhere) and checks it
// against the study; Of computes the intervals and, on grids small
// enough, a bound on the EMD to the truth. CoverageNote and
// CoverageHeld read the coverage measured by the experiments on real
// data, by people a cell, so that an interval says what it held where
// people are, not only on average.
package interval
