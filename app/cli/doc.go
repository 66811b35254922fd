// Package cli is privmap's command line (docs/COMMANDS.md): the
// sub-commands that run headless behind the GUI. Each writes its files
// atomically and reports errors on stderr as "privmap CMD: FILE: line N:
// reason" with a non-zero exit status.
package cli
