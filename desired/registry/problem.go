package registry

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Position is a place in an input file, relative to the workspace root.
type Position struct {
	File   string
	Line   int
	Column int
}

func (p Position) String() string {
	file := p.File
	if strings.ContainsAny(file, "\n\t") {
		// A line break would print as two lines, the second of which could pass
		// for another message; every other control character is escaped where
		// the message is written (printable.Writer).
		file = strconv.Quote(file)
	}
	switch {
	case p.Line == 0:
		return file
	case p.Column == 0:
		return fmt.Sprintf("%s:%d", file, p.Line)
	}
	return fmt.Sprintf("%s:%d:%d", file, p.Line, p.Column)
}

// Problem is one thing wrong with the inputs: what, where, and what to do about it.
type Problem struct {
	Pos     Position
	Message string
	Hint    string
	// Snippet shows the line a syntax error is on, with a caret under its column,
	// for a reader at a terminal; String leaves it out, so that a problem stays
	// one line in JSON and logs.
	Snippet string
	// Finding is the kind of scan finding (Findings) the problem reports, when
	// it reports one: a report keyed by kind (SARIF's rule) tells them apart.
	Finding string
	// DeclaredAt is where the workspace declares the source the problem's file
	// came from, when Pos names a file of a source (source:path) and not one
	// of the workspace: where a reader of the workspace can act on it.
	DeclaredAt Position
	// snapshot is the MCP snapshot holding what the problem is about, when it
	// points elsewhere (at the selector that made a recorded skill): a refresh
	// may mend it.
	snapshot string
	// broughtBy is the MCP snapshot whose recording of a tool makes the
	// problem, when a refresh cannot mend it (a selector naming a tool include
	// and exclude leave out): a refresh that would record the tool writes no
	// snapshot, as for the problems a refresh can mend.
	broughtBy string
}

func (p Problem) String() string {
	s := p.Pos.String() + ": " + p.Message
	if p.Hint != "" {
		s += " (" + p.Hint + ")"
	}
	return s
}

// Problems is every problem found in one load, reported together.
type Problems []Problem

func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// Sorted orders problems by file, line and column so reports are stable.
func (ps Problems) Sorted() Problems {
	out := append(Problems(nil), ps...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Pos, out[j].Pos
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
	return out
}
