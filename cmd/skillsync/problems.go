package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/skillsync/skillsync/desired/registry"
)

// inputError turns a load failure into the exit error it deserves: invalid input is
// exit 2 with every problem listed, anything else exit 4.
func inputError(stderr io.Writer, err error) error {
	var ps registry.Problems
	if errors.As(err, &ps) {
		printProblems(stderr, ps)
		return &exitError{code: exitInvalid}
	}
	return &exitError{exitFailure, err}
}

func printProblems(w io.Writer, ps registry.Problems) {
	fmt.Fprintf(w, "skillsync: invalid input, nothing was written or deleted (%d problem(s)):\n", len(ps))
	for _, p := range ps {
		fmt.Fprintf(w, "  %s\n", p)
		if p.Snippet != "" {
			fmt.Fprintf(w, "    %s\n", strings.ReplaceAll(p.Snippet, "\n", "\n    "))
		}
	}
}
