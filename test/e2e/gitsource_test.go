//go:build e2e

package e2e

import (
	"crypto/rand"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/testkit/gitremote"
	"github.com/skillsync/skillsync/test/e2e/mockapi"
)

// TestGitSourceSkillRuns pulls a skill from a repository laid out as public
// skill repositories are (skills/NAME/SKILL.md with its files), served over
// smart HTTP, through a git source pinned by skillsync.lock, and types it in
// Claude Code: the model must be told where the skill's files are, and the
// script it asks to run, by its path, must run, which it does only if it
// reached the generated copy, executable.
func TestGitSourceSkillRuns(t *testing.T) {
	c := claudeCode(t)
	token := "ran-" + rand.Text()
	up := gitremote.New(t)
	up.Commit(t, "main", map[string]string{
		"README.md": "Team skills.\n",
		"skills/hello/SKILL.md": "---\nname: hello\ndescription: Say hello from the skill's script.\nallowed-tools: Bash\n---\n" +
			"Run the script scripts/hello.sh of this skill, by its path, and report what it prints.\n" +
			"How to read its output: [the reference](references/output.md).\n",
		"skills/hello/references/output.md": "The script prints one word.\n",
		"skills/hello/scripts/hello.sh*":    "#!/bin/sh\necho " + token + "\n",
	})
	up.Tag(t, "v1.0.0", "main", "")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	ws := t.TempDir()
	testkit.WriteFile(t, ws, "skillsync.yaml", []byte("apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: []\n  targets: [claude-code]\n"+
		"  sources:\n    - name: team\n      git: "+up.URL+"\n      ref: v1.0.0\n      path: skills\n      allow: [{finding: executable}]\n"))
	runSkillsync(t, ws, "update", "--yes")
	runSkillsync(t, ws, "reconcile", "--once")

	mock, err := mockapi.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer mock.Close()
	mock.RunFromSkillDir("Bash", "command", "scripts/hello.sh")
	out, runErr := runCommand(t, c, ws, mock.URL, func() []string { return c.command("/hello") }, nil)

	reqs := mock.Requests()
	i := slices.IndexFunc(reqs, func(r mockapi.Request) bool { return r.Call != nil })
	if i < 0 {
		t.Fatalf("Claude Code never told its model where the skill's files are, in %d requests (exit %v):\n%s", len(reqs), runErr, out)
	}
	want := filepath.Join(ws, ".claude", "skills", "hello", "scripts", "hello.sh")
	if got, _ := reqs[i].Call.Args["command"].(string); got != want {
		t.Errorf("the model was pointed at %q, want %q", got, want)
	}
	for _, r := range reqs[:i+1] {
		if strings.Contains(string(r.Body), token) {
			t.Fatalf("the token reached the model before the call; it would prove nothing")
		}
	}
	if i+1 >= len(reqs) || !strings.Contains(string(reqs[i+1].Body), token) {
		t.Errorf("Claude Code did not run the script from the source, or sent nothing of its output back (exit %v):\n%s", runErr, out)
	}
}
