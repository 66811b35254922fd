//go:build !linux

package core

// availableMemory is +Inf where privmap cannot read it: work is then
// bounded by its documented limits alone.
func availableMemory() float64 { return unknownMemory }
