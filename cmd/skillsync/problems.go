package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/controller/plan"
	"github.com/skillsync/skillsync/desired/registry"
)

// inputError turns a load failure into the exit error it deserves: invalid input is
// exit 2 with every problem listed, anything else exit 4.
func inputError(stderr io.Writer, err error) error {
	var ps registry.Problems
	if errors.As(err, &ps) {
		printProblems(stderr, ps)
		return invalidInput(ps)
	}
	return &exitError{exitFailure, err}
}

func printProblems(w io.Writer, ps registry.Problems) {
	printProblemsUnder(w, fmt.Sprintf("skillsync: invalid input, nothing was written or deleted (%d problem(s)):", len(ps)), ps)
}

// printProblemsUnder prints ps below the line header.
func printProblemsUnder(w io.Writer, header string, ps registry.Problems) {
	fmt.Fprintln(w, header)
	for _, p := range ps {
		fmt.Fprintf(w, "  %s\n", p)
		if p.Snippet != "" {
			fmt.Fprintf(w, "    %s\n", strings.ReplaceAll(p.Snippet, "\n", "\n    "))
		}
	}
}

// problemReport is a problem in every JSON output: one object a program can
// point an editor at.
type problemReport struct {
	File     string `json:"file"`
	Line     int    `json:"line,omitempty"`
	Column   int    `json:"column,omitempty"`
	Message  string `json:"message"`
	Hint     string `json:"hint,omitempty"`
	Severity string `json:"severity"`
}

func problemReports(ps registry.Problems) []problemReport { return reportsAs("error", ps) }

func warningReports(ps registry.Problems) []problemReport { return reportsAs("warning", ps) }

func reportsAs(severity string, ps registry.Problems) []problemReport {
	out := []problemReport{}
	for _, p := range ps {
		out = append(out, problemReport{File: p.Pos.File, Line: p.Pos.Line, Column: p.Pos.Column,
			Message: p.Message, Hint: p.Hint, Severity: severity})
	}
	return out
}

// annotate writes each problem as a GitHub Actions error annotation, which the
// runner shows on the file and line of a pull request.
func annotate(w io.Writer, ps registry.Problems) { annotateAs(w, "error", ps) }

// annotateAs writes each of ps as a GitHub Actions annotation of the level
// given (error, warning).
func annotateAs(w io.Writer, level string, ps registry.Problems) {
	for _, p := range ps {
		text := p.Message
		if p.Hint != "" {
			text += " (" + p.Hint + ")"
		}
		githubCommand(w, level, text, "file", p.Pos.File, "line", p.Pos.Line, "col", p.Pos.Column)
	}
}

// githubCommand writes one workflow command, ::name props::text, escaped as the
// runner reads it; a zero or empty property is left out.
func githubCommand(w io.Writer, name, text string, props ...any) {
	var parts []string
	for i := 0; i+1 < len(props); i += 2 {
		value := fmt.Sprint(props[i+1])
		if value == "" || value == "0" {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s=%s", props[i], githubEscape(value, true)))
	}
	fmt.Fprintf(w, "::%s %s::%s\n", name, strings.Join(parts, ","), githubEscape(text, false))
}

func githubEscape(s string, property bool) string {
	s = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
	if property {
		s = strings.NewReplacer(":", "%3A", ",", "%2C").Replace(s)
	}
	return s
}

// outOfStep is a path a run leaves as it should not be, and what to say of it.
type outOfStep struct {
	controller.Result
	text string
}

// leftOutOfStep are the paths the run leaves as they should not be: in
// conflict, failed, or, for --check, to change. -o github and -o sarif report
// the same paths in the same words.
func leftOutOfStep(out controller.Outcome, check bool) []outOfStep {
	if !out.Planned {
		return nil
	}
	var left []outOfStep
	for r := range out.Results(check) {
		if r.Fate == controller.InSync || r.Fate == controller.Made && r.Action != plan.Conflict {
			continue
		}
		verb, note := fateWords(r)
		text := verb + " " + r.Path
		if note != "" {
			text += ": " + note
		}
		if r.Action != plan.Conflict && r.Fate == controller.Proposed {
			text += " (run skillsync reconcile --once and commit the result)"
		}
		left = append(left, outOfStep{r, text})
	}
	return left
}

// annotatePlan writes a GitHub Actions error annotation for each path the run
// leaves as it should not be.
func annotatePlan(w io.Writer, out controller.Outcome, check bool) {
	for _, l := range leftOutOfStep(out, check) {
		githubCommand(w, "error", l.text, annotationAt(out, l.Result)...)
	}
}

// annotationAt is where a change's annotation goes (changeAt).
func annotationAt(out controller.Outcome, r controller.Result) []any {
	at := changeAt(out, r)
	return []any{"file", at.File, "line", at.Line, "col", at.Column}
}

// changeAt is where a change is reported: on the registry line that declares
// the skill when the change follows from the declaration (a file to create or
// update), where the pull request changed it; else on the file.
func changeAt(out controller.Outcome, r controller.Result) registry.Position {
	if r.Action == plan.Create || r.Action == plan.Update {
		if pos, ok := out.Registry.NameAt(r.Owner); ok && pos.File != "" {
			return pos
		}
	}
	return registry.Position{File: r.Path}
}
