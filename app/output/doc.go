// Package output writes what privmap writes, all or nothing.
//
// A Batch stages every output of a command beside its destination and
// renames them into place only when all were written; a failure leaves
// every earlier file byte-identical (WriteFile is a batch of one). A
// Record is a command's provenance: its arguments, the SHA-256 of its
// inputs and output, and its JSON line, which privmap report reads.
// Pictures are stamped with the software that drew them (StampPNG,
// StampSVG).
package output
