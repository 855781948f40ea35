// Command skillsync keeps agent skill files in a workspace in step with its capability
// registry. This package only wires flags, output and exit codes to the controller.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// Exit codes, the same for every command (DESIGN §7).
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
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes one command line and returns its exit code.
func run(args []string, stdout, stderr io.Writer) int {
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
