package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/controller"
)

// printStarted says which clients init found in use, which targets it chose for
// them and why, and what it wrote.
func printStarted(w io.Writer, s controller.Started) {
	rec := s.Targets
	targets := strings.Join(rec.Targets, ", ")
	if len(s.InUse) == 0 {
		fmt.Fprintf(w, "no client found in use here; targets %s reach every client skillsync verifies\n", targets)
	} else {
		fmt.Fprintln(w, "clients in use:")
		var rows [][]string
		for _, c := range clients.All {
			if found := s.InUse[c.Name]; len(found) > 0 {
				rows = append(rows, []string{"  " + c.Name, strings.Join(found, ", ")})
			}
		}
		writeTable(w, rows)
		fmt.Fprintf(w, "targets %s reach each of them", targets)
		if len(rec.Twice) == 0 {
			fmt.Fprint(w, " from one directory")
		}
		fmt.Fprintln(w)
	}
	if n := len(rec.Twice); n > 0 {
		verb := "reads"
		if n > 1 {
			verb = "read"
		}
		fmt.Fprintf(w, "note: %s %s two of these directories and may list a skill twice; no set of targets that reaches all these clients avoids it\n",
			strings.Join(rec.Twice, ", "), verb)
	}
	for _, f := range s.Files {
		fmt.Fprintf(w, "created %s\n", f)
	}
	fmt.Fprintln(w, "next: skillsync reconcile --once")
}
