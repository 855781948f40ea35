//go:build e2e

package e2e

import (
	"crypto/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/test/e2e/mockapi"
)

// TestWholeSkillRuns puts a whole skill directory under the registry, a script
// and a reference beside its SKILL.md, reconciles it, and types the skill in
// each real client: the client must tell its model where the skill's files are
// (the mock's model finds the directory only there), and the script the model
// then asks to run, by its path alone, must run, which it does only if it was
// copied with its execute bit. Its output is a token the model never saw
// before the call.
func TestWholeSkillRuns(t *testing.T) {
	for _, c := range []struct {
		client
		shell, prop string
		// allow is what lets the client run the shell tool headless.
		allow []string
	}{
		// The skill's own allowed-tools front matter grants Bash in Claude Code.
		{client: claudeCode(t), shell: "Bash", prop: "command"},
		{client: qwenCode(t), shell: "run_shell_command", prop: "command", allow: []string{"--yolo"}},
		{client: codex(t), shell: "exec_command", prop: "cmd"},
		{client: openCode(t), shell: "bash", prop: "command"},
	} {
		t.Run(c.name, func(t *testing.T) {
			token := "ran-" + rand.Text()
			ws := testkit.ExampleWorkspace(t)
			testkit.WriteFiles(t, ws, map[string]string{
				"skills/hello/SKILL.md": "---\nname: hello\ndescription: Say hello from the skill's script.\nallowed-tools: Bash\n---\n" +
					"Run the script scripts/hello.sh of this skill, by its path, and report what it prints.\n" +
					"How to read its output: [the reference](reference.md).\n",
				"skills/hello/reference.md": "The script prints one word.\n",
				"registry/skill-hello.yaml": "apiVersion: skillsync/v1\nkind: Skill\nmetadata: {name: hello}\nspec:\n  dir: ../skills/hello\n",
			})
			script := testkit.WriteFile(t, ws, "skills/hello/scripts/hello.sh", []byte("#!/bin/sh\necho "+token+"\n"))
			if err := os.Chmod(script, 0o755); err != nil {
				t.Fatal(err)
			}
			runSkillsync(t, ws, "reconcile", "--once")

			mock, err := mockapi.Start()
			if err != nil {
				t.Fatal(err)
			}
			defer mock.Close()
			mock.RunFromSkillDir(c.shell, c.prop, "scripts/hello.sh")
			line := func() []string { return append(c.command("/hello"), c.allow...) }
			if c.invoke != nil {
				line = func() []string { return append(c.invoke("hello", "now"), c.allow...) }
			}
			out, runErr := runCommand(t, c.client, ws, mock.URL, line, nil)

			reqs := mock.Requests()
			i := slices.IndexFunc(reqs, func(r mockapi.Request) bool { return r.Call != nil })
			if i < 0 {
				t.Fatalf("%s never told its model where the skill's files are (%q or %q), in %d requests (exit %v):\n%s", c.name, mockapi.SkillDirLine, mockapi.SkillPathTag, len(reqs), runErr, out)
			}
			// The client may read the skill from any generated directory it reads.
			entry, _ := clients.Lookup(c.name)
			var want []string
			for _, dir := range entry.Reads {
				want = append(want, filepath.Join(ws, dir, "hello", "scripts", "hello.sh"))
			}
			if got, _ := reqs[i].Call.Args[c.prop].(string); !slices.Contains(want, got) {
				t.Errorf("the model was pointed at %q, want the script in a generated skill directory the client reads, one of %q", got, want)
			}
			for _, r := range reqs[:i+1] {
				if strings.Contains(string(r.Body), token) {
					t.Fatalf("the token reached the model before the call; it would prove nothing")
				}
			}
			if i+1 >= len(reqs) || !strings.Contains(string(reqs[i+1].Body), token) {
				t.Errorf("%s did not run the generated script, or sent nothing of its output back (exit %v):\n%s", c.name, runErr, out)
			}
		})
	}
}
