package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/initgc"
	"github.com/skillsync/skillsync/internal/printable"
	"github.com/spf13/cobra"
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

// shownProblems is the invalid input behind an exit 2, already printed on
// stderr: run prints it no more, and puts it in the Error document -o json and
// -o yaml print instead of nothing.
type shownProblems registry.Problems

func (ps shownProblems) Error() string { return registry.Problems(ps).Error() }

// invalidInput is the exit error of problems the command has printed.
func invalidInput(ps registry.Problems) error {
	return &exitError{exitInvalid, shownProblems(ps)}
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

// The main package is initialized after every package it imports, in the tests
// too: the collector is held off until then.
func init() { initgc.Done() }

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

// run executes one command line and returns its exit code. Everything it prints goes
// through a printable.Writer: paths, file contents and registry text can hold escape
// sequences, and none of them may reach a terminal raw.
func run(args []string, stdout, stderr io.Writer) int {
	written := &countingWriter{w: printable.NewWriter(stdout)}
	stderr = printable.NewWriter(stderr)
	root := newRootCommand(written, stderr)
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	if err == nil {
		return exitOK
	}
	code, message, problems := exitInvalid, err, registry.Problems(nil)
	var ee *exitError
	var shown shownProblems
	if errors.As(err, &ee) {
		code, message = ee.code, ee.err
		if errors.As(ee.err, &shown) {
			message, problems = nil, registry.Problems(shown)
		}
		if message != nil {
			fmt.Fprintf(stderr, "skillsync: %v\n", message)
		}
	} else {
		fmt.Fprintf(stderr, "skillsync: %v\nRun 'skillsync --help' for usage.\n", err)
	}
	if output := outputFlag(cmd); documentFormat(output) && written.n == 0 {
		doc := errorJSON{typeMeta: kindOf(kindError), ExitCode: code, Problems: problemReports(problems)}
		if message != nil {
			doc.Error = message.Error()
		}
		writeDocument(written, output, doc)
	}
	return code
}

// outputFlag is the -o a command was given, "" for a command without one.
func outputFlag(cmd *cobra.Command) string {
	if cmd == nil {
		return ""
	}
	if f := cmd.Flags().Lookup("output"); f != nil {
		return f.Value.String()
	}
	return ""
}

// countingWriter tells whether a command wrote its document before it failed.
type countingWriter struct {
	w io.Writer
	n int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += n
	return n, err
}
