package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestMain runs main itself when asked, so that tests can start the
// program as a subprocess with its own environment.
func TestMain(m *testing.M) {
	if os.Getenv("PRIVMAP_TEST_MAIN") == "1" {
		os.Args = append([]string{"privmap"}, strings.Fields(os.Getenv("PRIVMAP_TEST_ARGS"))...)
		main()
		return
	}
	os.Exit(m.Run())
}

func runMain(t *testing.T, env []string, args string) (stderr string, err error) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LC_") && !strings.HasPrefix(kv, "LANG") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "PRIVMAP_TEST_MAIN=1", "PRIVMAP_TEST_ARGS="+args)
	cmd.Env = append(cmd.Env, env...)
	var eb bytes.Buffer
	cmd.Stderr = &eb
	err = cmd.Run()
	return eb.String(), err
}

// TestCLocaleQuiet checks that the command line says nothing of Fyne's
// locale parsing under the C, C.UTF-8 and POSIX locales of scripts and
// Debian's default environment (see package clocale).
func TestCLocaleQuiet(t *testing.T) {
	envs := [][]string{{"LANG=C.UTF-8"}, {"LC_ALL=C.UTF-8"}, {"LANG=C"}, {"LANG=POSIX"}, {"LC_ALL=C", "LANG=C.UTF-8"}, {"LANG="}, {"LANG=de_DE.UTF-8"}}
	for _, env := range envs {
		stderr, err := runMain(t, env, "help")
		if err != nil {
			t.Errorf("%v: privmap help: %v", env, err)
		}
		if strings.Contains(stderr, "Fyne error") || !strings.Contains(stderr, "usage: privmap") {
			t.Errorf("%v: privmap help printed %q", env, stderr)
		}
	}
	if _, err := runMain(t, []string{"LANG=C"}, "nosuchcommand"); err == nil {
		t.Error("an unknown command exited 0")
	}
}

// TestGUIWithoutWindow checks that "privmap gui" asked for help, or
// started without a display, says so and exits non-zero instead of
// opening a file named -h or panicking in GLFW.
func TestGUIWithoutWindow(t *testing.T) {
	stderr, err := runMain(t, nil, "gui -h")
	if err == nil || !strings.Contains(stderr, "usage: privmap gui") {
		t.Errorf("privmap gui -h: %v, %q", err, stderr)
	}
	stderr, err = runMain(t, []string{"DISPLAY=", "WAYLAND_DISPLAY="}, "gui")
	if err == nil || !strings.Contains(stderr, "no display") || strings.Contains(stderr, "panic") {
		t.Errorf("privmap gui without a display: %v, %q", err, stderr)
	}
}
