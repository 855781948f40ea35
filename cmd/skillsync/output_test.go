package main

import (
	"strings"
	"testing"
	"text/tabwriter"
)

// The tables once went through text/tabwriter; the lines must stay as it aligned
// them, trailing blanks trimmed.
func TestWriteTableAlignsAsTabwriterDid(t *testing.T) {
	rows := [][]string{
		{"created", ".claude/skills/résumé/SKILL.md", "skill/résumé", ""},
		{"conflict", ".agents/skills/a/SKILL.md", "-", "edited by hand; --force overwrites it"},
		{"deleted", "x", "capability/ß-long-owner-name", ""},
		{"", "", "", "note only"},
	}
	var want strings.Builder
	tw := tabwriter.NewWriter(&want, 0, 0, 2, ' ', 0)
	for _, r := range rows {
		tw.Write([]byte(strings.Join(r, "\t") + "\n"))
	}
	tw.Flush()
	var trimmed strings.Builder
	for _, line := range strings.SplitAfter(want.String(), "\n") {
		if line != "" {
			trimmed.WriteString(strings.TrimRight(line, " \n") + "\n")
		}
	}

	var got strings.Builder
	writeTable(&got, rows)
	if got.String() != trimmed.String() {
		t.Errorf("table:\n%s\nwant (text/tabwriter):\n%s", got.String(), trimmed.String())
	}
}

func TestWriteTableOfNoRowsWritesNothing(t *testing.T) {
	var got strings.Builder
	writeTable(&got, nil)
	if got.Len() != 0 {
		t.Errorf("wrote %q", got.String())
	}
}
