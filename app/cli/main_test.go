package cli

import (
	"os"
	"testing"
)

// TestMain keeps the tests' ledgers out of the user's data folder: the
// default ledger (ledger.DefaultPath) is under a temporary
// XDG_DATA_HOME, removed afterwards.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "privmap-cli-test-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_DATA_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
