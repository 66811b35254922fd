// Package studyfile reads and writes privmap's study files: core's
// study (alphabet, mechanisms, shares) with the members the
// application adds — the data source and its column mapping, the run
// settings, the plan settings, the legacy ledger, and which privmap
// wrote it. Read refuses unknown members; Open reads a file by name.
package studyfile
