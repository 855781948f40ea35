package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"text/tabwriter"

	"github.com/skillsync/skillsync/internal/testkit"
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

// A path with a line break, which a repository can carry into a target
// directory, is one row of the plan, quoted: not rows of its own, nor a line
// a CI runner would read as a workflow command.
func TestAPathWithALineBreakIsOneRowOfThePlan(t *testing.T) {
	ws := testkit.ExampleWorkspace(t)
	if code, _, stderr := runCLI(t, ws, "reconcile", "--once"); code != 0 {
		t.Fatalf("reconcile: exit %d, %s", code, stderr)
	}
	forged := "x\ncreated  .claude-skills-forged-SKILL.md  capability-x\n::error file=skillsync.yaml,line=1::forged"
	if err := os.Mkdir(filepath.Join(ws, ".claude", "skills", forged), 0o755); err != nil {
		t.Skip("this filesystem takes no line break in a name:", err)
	}
	for _, args := range [][]string{{"reconcile", "--check"}, {"reconcile", "--check", "-o", "github"}, {"reconcile", "--once"}} {
		_, stdout, _ := runCLI(t, ws, args...)
		for _, line := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n") {
			if strings.HasPrefix(line, "created") || strings.HasPrefix(line, "::error file=skillsync.yaml") {
				t.Errorf("%v printed a forged line: %q", args, line)
			}
		}
		if want := strconv.Quote(".claude/skills/" + forged); !strings.Contains(stdout, want) {
			t.Errorf("%v does not name the folder quoted, %s:\n%s", args, want, stdout)
		}
	}
}
