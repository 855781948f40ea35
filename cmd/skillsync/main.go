package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/skillsync/skillsync/internal/printable"
)

// Exit codes, the same for every command (README, "Commands").
const (
	exitOK        = 0
	exitChanges   = 1
	exitInvalid   = 2
	exitConflicts = 3
	exitFailure   = 4
)

// exitError carries an exit code out of a command; a nil err prints nothing.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func main() {
	limitMemory()
	if err := checkOpenFiles(); err != nil {
		fmt.Fprintf(os.Stderr, "skillsync: %v\n", err)
		os.Exit(exitFailure)
	}
	startPoller()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// startPoller makes the Go runtime set up its I/O poller now, while descriptors are
// free: it does so on the first file opened, and if that open finds the open-file
// limit reached, the runtime aborts with "eventfd failed" instead of the open
// failing with "too many open files", which skillsync reports as such.
func startPoller() {
	if f, err := os.Open(os.DevNull); err == nil {
		f.Close()
	}
}

// defaultMemoryLimit is the soft limit the garbage collector keeps the heap under
// when GOMEMLIMIT does not set one. A pass over 10 000 capabilities holds about
// 35 MB of live data; without a limit the collector lets garbage grow the heap to
// twice that. Near the limit it collects more often instead, which costs some CPU
// only in workspaces that large (docs/performance.md).
const defaultMemoryLimit = 45 << 20

func limitMemory() {
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(defaultMemoryLimit)
	}
}

// run executes one command line and returns its exit code. Everything it prints goes
// through a printable.Writer: paths, file contents and registry text can hold escape
// sequences, and none of them may reach a terminal raw.
func run(args []string, stdout, stderr io.Writer) int {
	stdout, stderr = printable.NewWriter(stdout), printable.NewWriter(stderr)
	root := newRootCommand(stdout, stderr)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintf(stderr, "skillsync: %v\n", ee.err)
		}
		return ee.code
	}
	fmt.Fprintf(stderr, "skillsync: %v\nRun 'skillsync --help' for usage.\n", err)
	return exitInvalid
}
