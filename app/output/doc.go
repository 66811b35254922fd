// Package output writes what privmap writes, all or nothing.
//
// A Batch stages every output of a command beside its destination and
// renames them into place only when all were written; a failure leaves
// every earlier file byte-identical (WriteFile is a batch of one). A
// Record is a command's provenance: its arguments, the SHA-256 of its
// inputs and output, and its JSON line, which privmap report reads.
// Pictures are stamped with the software that drew them (StampPNG,
// StampSVG).
//
// # How a batch commits
//
// A Batch commits a command's or an export's files all or none. Regular
// files are written beside their destination and renamed into place. A
// hard link is kept to each file they replace until the end. Devices,
// pipes and standard output are written after them. A device that fails,
// such as /dev/full, puts the renamed files back. Each fill runs in a
// goroutine that Commit leaves when its context ends, so a figure being
// drawn does not hold a cancelled command. WriteFile is a batch of one.
package output
