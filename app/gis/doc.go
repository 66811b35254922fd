// Package gis lays privmap's maps on a grid as a GIS layer: the truth,
// an estimate with its intervals, their difference and a release's
// counts, one column each (Grid). The formats that write it are
// geo/layer's registry.
package gis
