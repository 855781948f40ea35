//go:build e2e

package e2e

import (
	"crypto/rand"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/test/e2e/mockapi"
)

// personalCandidates are the home directories a client might read personal
// skills from: every one a client documents, and every client's project
// directory, since clients read each other's.
var personalCandidates = []string{
	".claude/skills", ".agents/skills", ".qwen/skills", ".codex/skills", ".gemini/skills",
	".config/opencode/skills", ".opencode/skills", ".copilot/skills", ".github/skills",
	".cline/skills", ".clinerules/skills", ".config/kilo/skills", ".kilo/skills",
	".kilocode/skills", ".config/agents/skills", ".cursor/skills",
}

// TestPersonalSkills runs each real client with a fresh HOME holding one skill
// in every candidate personal directory, each with a name never used before,
// and reads from the model's requests which directories the client
// read: they must be the client table's Personal directories. It then puts one
// name in the client's first personal directory and in its project directory,
// each description with its own token, and checks that the model is shown the
// one the table's PersonalClash says (a client that lists no descriptions
// shows neither token, and the table must say it is not recorded).
func TestPersonalSkills(t *testing.T) {
	for _, c := range []client{claudeCode(t), qwenCode(t), codex(t), geminiCLI(t), openCode(t), kilo(t), copilotCLI(t), cline(t)} {
		t.Run(c.name, func(t *testing.T) {
			entry, ok := clients.Lookup(c.name)
			if !ok {
				t.Fatalf("%s is not in the client table", c.name)
			}
			// The names are the tokens: Cline lists names without descriptions.
			token := strings.ToLower(rand.Text()[:12])
			home := map[string]string{}
			for i, dir := range personalCandidates {
				name := fmt.Sprintf("h%s-%d", token, i)
				home[dir+"/"+name+"/SKILL.md"] = skillFile(name, "A personal skill.")
			}
			reqs := runWithHome(t, c, home, nil)
			var read []string
			for i, dir := range personalCandidates {
				if sentToModel(reqs, fmt.Sprintf("h%s-%d", token, i)) {
					read = append(read, dir)
				}
			}
			t.Logf("%s %s reads personal skills from %v", c.name, c.version, read)
			if want := slices.Sorted(slices.Values(entry.Personal)); !slices.Equal(slices.Sorted(slices.Values(read)), want) {
				t.Errorf("%s read personal skills from %v; the client table says %v", c.name, read, entry.Personal)
			}
			if len(entry.Personal) == 0 {
				return
			}

			personal, project := "personal-"+rand.Text(), "project-"+rand.Text()
			reqs = runWithHome(t, c,
				map[string]string{entry.Personal[0] + "/twin/SKILL.md": skillFile("twin", "A skill of one name. Token "+personal+".")},
				map[string]string{clients.Dir(c.target) + "/twin/SKILL.md": skillFile("twin", "A skill of one name. Token "+project+".")})
			var got clients.Clash
			switch sawPersonal, sawProject := sentToModel(reqs, personal), sentToModel(reqs, project); {
			case sawPersonal && sawProject:
				got = clients.ClashBoth
			case sawPersonal:
				got = clients.ClashPersonal
			case sawProject:
				got = clients.ClashProject
			}
			t.Logf("%s %s, one name in ~/%s and %s: %v", c.name, c.version, entry.Personal[0], clients.Dir(c.target), got)
			// A client whose choice differs from run to run shows one or the other,
			// never both and never neither.
			either := entry.PersonalClash == clients.ClashEither && (got == clients.ClashPersonal || got == clients.ClashProject)
			if got != entry.PersonalClash && !either {
				t.Errorf("%s with a personal and a project skill of one name: %v; the client table says %v", c.name, got, entry.PersonalClash)
			}
		})
	}
}

func skillFile(name, description string) string {
	return "---\nname: " + name + "\ndescription: " + description + "\n---\nSay what this skill is.\n"
}

// runWithHome runs one plain prompt of c against a fresh mock, with home's files
// in its HOME and project's in its workspace, and returns what the model was sent.
func runWithHome(t *testing.T, c client, home, project map[string]string) []mockapi.Request {
	t.Helper()
	ws := testkit.ExampleWorkspace(t)
	testkit.WriteFiles(t, ws, project)
	mock, err := mockapi.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer mock.Close()
	setup := c.setup
	c.setup = func(t *testing.T, dir, mockURL string, servers map[string]string) {
		setup(t, dir, mockURL, servers)
		testkit.WriteFiles(t, dir, home)
	}
	out, runErr := runClient(t, c, ws, mock.URL, "Say hello.", nil)
	reqs := mock.Requests()
	if len(reqs) == 0 {
		t.Fatalf("%s sent its model nothing (exit %v):\n%s", c.name, runErr, out)
	}
	return reqs
}

func sentToModel(reqs []mockapi.Request, token string) bool {
	return slices.ContainsFunc(reqs, func(r mockapi.Request) bool { return strings.Contains(string(r.Body), token) })
}

// TestUserWorkspaceSkills runs skillsync --user in each client's fresh HOME,
// with a user registry in ~/.config/skillsync declaring a skill whose
// description holds a token never used before, and checks that the client shows
// its model the skill from the personal directory skillsync wrote.
func TestUserWorkspaceSkills(t *testing.T) {
	for _, c := range []client{claudeCode(t), qwenCode(t), codex(t), openCode(t)} {
		t.Run(c.name, func(t *testing.T) {
			token := "Token " + rand.Text() + "."
			registry := map[string]string{
				".config/skillsync/skillsync.yaml": "apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: [registry/*.yaml]\n",
				".config/skillsync/registry/mine.yaml": "apiVersion: skillsync/v1\nkind: Skill\nmetadata: {name: carry-on}\n" +
					"spec:\n  description: My own skill. Use when asked to carry on. " + token + "\n  body: Carry on.\n",
			}
			ws := testkit.ExampleWorkspace(t)
			mock, err := mockapi.Start()
			if err != nil {
				t.Fatal(err)
			}
			defer mock.Close()
			setup := c.setup
			c.setup = func(t *testing.T, home, mockURL string, servers map[string]string) {
				setup(t, home, mockURL, servers)
				testkit.WriteFiles(t, home, registry)
				cmd := exec.Command(skillsyncBin, "--user", "reconcile", "--once")
				cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("skillsync --user reconcile --once: %v\n%s", err, out)
				}
			}
			out, runErr := runClient(t, c, ws, mock.URL, "Say hello.", nil)
			reqs := mock.Requests()
			if len(reqs) == 0 {
				t.Fatalf("%s sent its model nothing (exit %v):\n%s", c.name, runErr, out)
			}
			if !sentToModel(reqs, token) {
				t.Errorf("%s did not show its model the skill skillsync --user wrote into the home directory", c.name)
			}
		})
	}
}

// TestCodexSideFile checks with the real Codex what a skill directory's own
// agents/openai.yaml becomes: a skill whose file gives only its interface is
// listed for the model, and one kept from the model by disable-model-invocation,
// whose file skillsync gives Codex's policy beside the author's interface, is
// not.
func TestCodexSideFile(t *testing.T) {
	c := codex(t)
	shown, hidden := "shown-"+strings.ToLower(rand.Text()[:8]), "hidden-"+strings.ToLower(rand.Text()[:8])
	ws := testkit.ExampleWorkspace(t)
	files := map[string]string{}
	for name, keep := range map[string]bool{shown: false, hidden: true} {
		front := "---\nname: " + name + "\ndescription: A skill with its own Codex interface. Use when asked.\n"
		if keep {
			front += "disable-model-invocation: true\n"
		}
		files["skills/"+name+"/SKILL.md"] = front + "---\nSay what this skill is.\n"
		files["skills/"+name+"/agents/openai.yaml"] = "interface:\n  display_name: \"" + name + "\"\n  short_description: \"Its own interface\"\n"
		files["registry/"+name+".yaml"] = "apiVersion: skillsync/v1\nkind: Skill\nmetadata: {name: " + name + "}\nspec: {dir: ../skills/" + name + "}\n"
	}
	testkit.WriteFiles(t, ws, files)
	runSkillsync(t, ws, "reconcile", "--once")
	side, err := os.ReadFile(filepath.Join(ws, ".agents/skills", hidden, "agents/openai.yaml"))
	if err != nil || !strings.Contains(string(side), "allow_implicit_invocation: false") || !strings.Contains(string(side), "display_name") {
		t.Fatalf("%s's agents/openai.yaml (%v):\n%s", hidden, err, side)
	}
	mock, err := mockapi.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer mock.Close()
	out, runErr := runClient(t, c, ws, mock.URL, "Say hello.", nil)
	reqs := mock.Requests()
	if len(reqs) == 0 {
		t.Fatalf("Codex sent its model nothing (exit %v):\n%s", runErr, out)
	}
	if !sentToModel(reqs, shown) {
		t.Errorf("Codex did not list %s, whose agents/openai.yaml gives only its interface", shown)
	}
	if sentToModel(reqs, hidden) {
		t.Errorf("Codex listed %s, kept from the model by the policy skillsync added to its own agents/openai.yaml", hidden)
	}
}
