//go:build e2e

package e2e

import (
	"bytes"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"text/tabwriter"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/desired"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/test/e2e/agentskills"
	"github.com/skillsync/skillsync/test/e2e/mockapi"
)

// sentence is what the user types after /alias: quotes, a colon, placeholders, a
// backslash, ---, #, unicode, an emoji, and blanks around it.
const sentence = `  Ship "it" by Friday: costs $1, not $ARGUMENTS; \$0 — it's #1 --- ünï 🚀  `

func TestMain(m *testing.M) {
	if err := buildBinaries(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		testkit.RemoveBinaries()
		os.Exit(1)
	}
	code := m.Run()
	testkit.RemoveBinaries()
	os.Exit(code)
}

// result is one row of the table the suite prints.
type result struct {
	client, workspace, skill, check string
	ok                              bool
	detail                          string
}

type suite struct {
	t       *testing.T
	mock    *mockapi.Server
	results []result
}

func (s *suite) record(c client, ws *workspace, skill, check string, ok bool, detail string) {
	s.results = append(s.results, result{c.name + " " + c.version, ws.label, skill, check, ok, detail})
	if !ok {
		s.t.Errorf("%s / %s / %s / %s: %s", c.name, ws.label, skill, check, detail)
	}
}

func TestConformance(t *testing.T) {
	mock, err := mockapi.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer mock.Close()
	s := &suite{t: t, mock: mock}
	tested := []client{claudeCode(t), qwenCode(t)}
	example := testkit.Fixture("example")
	hard := filepath.Join(testkit.Root(), "test", "e2e", "testdata", "conformance")

	for _, ws := range []*workspace{
		prepare(t, "example (cli)", example, "cli", nil),
		prepare(t, "example (web-shell)", example, "web-shell", nil),
		prepare(t, "conformance (plain)", hard, "plain", nil),
		prepare(t, "conformance (charts)", hard, "charts", nil),
	} {
		s.agentSkillsFiles(ws)
		for _, c := range tested {
			for _, sk := range ws.skills {
				s.run(c, ws, sk, c.target)
			}
		}
	}
	// Qwen Code also reads .agents/skills: with only that target, it must load them.
	agentsOnly := prepare(t, "conformance (agents only)", hard, "charts", onlyTarget("agents"))
	s.agentSkillsFiles(agentsOnly)
	for _, sk := range agentsOnly.skills {
		s.run(tested[1], agentsOnly, sk, "agents")
	}
	s.print()
}

// run types /<skill> <sentence> in the client and checks what reached the model.
func (s *suite) run(c client, ws *workspace, sk skillCase, target string) {
	s.mock.Reset()
	out, err := runClient(s.t, c, ws.dir, s.mock.URL, "/"+sk.name+" "+sentence, ws.servers)
	tr := readTranscript(s.mock.Requests())
	dir := filepath.Join(ws.dir, filepath.FromSlash(clients.Dir(target)), sk.name)
	block, loaded := tr.block("Base directory for this skill: " + dir + "\n")
	file, projected := ws.files[filepath.ToSlash(filepath.Join(clients.Dir(target), sk.name, desired.SkillFile))]

	if !projected {
		s.record(c, ws, sk.name, "absent when withheld", !loaded && err == nil,
			fmt.Sprintf("loaded=%v exit=%v output=%.200q", loaded, err, out))
		return
	}
	body := bodyOf(file)
	want := expectedBody(c, body)
	// The body names the MCP tool as the client shows it, which may be cut and
	// hashed out of the tool's own name.
	named, _ := mcpToolNamed(c, target, sk, block)
	s.record(c, ws, sk.name, "loaded", loaded && err == nil && strings.Contains(block, want) &&
		strings.Contains(block, sk.capabilityID) && (sk.mcpTool == "" || named != ""),
		fmt.Sprintf("exit=%v loaded=%v output=%.300q\nwant body:\n%s\ngot block:\n%s", err, loaded, out, want, block))
	if !loaded {
		return
	}
	if sk.capabilityID != "" {
		typed := arrives(c, sentence)
		got := typedText(c, tr, block)
		s.record(c, ws, sk.name, "text as typed, once", got == typed && placedOnce(c, block, typed),
			fmt.Sprintf("got %q, want %q once in:\n%s", got, typed, block))
		got, want := titleLine(block, sk.capabilityID), html.UnescapeString(inert(sk.title))
		s.record(c, ws, sk.name, "registry text unaltered", got == want,
			fmt.Sprintf("the model reads the title as %q, want %q", got, want))
		s.record(c, ws, sk.name, "structure not forged", structureIntact(c, block, sk.title),
			fmt.Sprintf("the title's tags or markers reached the model as structure:\n%s", block))
	}
	if sk.mcpTool != "" {
		named, name := mcpToolNamed(c, target, sk, block)
		s.record(c, ws, sk.name, "MCP tool offered", named != "" &&
			(tr.offersTool(name) || tr.mentions("\n"+name+"\n") || tr.mentions(`"`+name+`"`)),
			"the body does not name "+name+" as it should in "+clients.Dir(target)+", or no tool of that name among "+strings.Join(tr.tools, ", "))
	}
	listed := listedWithDescription(c, tr, sk.name, sk.description)
	if sk.modelInvocable {
		s.record(c, ws, sk.name, "listed with description", listed, "not in the model's skill listing")
	} else {
		s.record(c, ws, sk.name, "absent from model listing", !listedAtAll(c, tr, sk.name), "write/destructive skill listed for the model")
	}
}

// agentSkillsFiles checks every generated .agents/skills file against the spec.
func (s *suite) agentSkillsFiles(ws *workspace) {
	spec := client{name: "Agent Skills spec", version: "strict"}
	for p, data := range ws.files {
		if !strings.HasPrefix(p, clients.Dir("agents")+"/") {
			continue
		}
		name := filepath.Base(filepath.Dir(p))
		problems := agentskills.Check(name, data)
		s.record(spec, ws, name, "strict check", len(problems) == 0, strings.Join(problems, "; "))
	}
}

func (s *suite) print() {
	sort.SliceStable(s.results, func(i, j int) bool { return s.results[i].client < s.results[j].client })
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CLIENT\tWORKSPACE\tSKILL\tCHECK\tRESULT")
	passed, failed := 0, 0
	for _, r := range s.results {
		verdict := "pass"
		if !r.ok {
			verdict, failed = "FAIL", failed+1
		} else {
			passed++
		}
		skill := r.skill
		if len(skill) > 32 {
			skill = skill[:29] + "..."
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.client, r.workspace, skill, r.check, verdict)
	}
	tw.Flush()
	fmt.Print(buf.String())
	fmt.Printf("%d passed, %d failed\n", passed, failed)
}

// onlyTarget rewrites skillsync.yaml to enable a single target.
func onlyTarget(target string) func(string) string {
	return func(config string) string {
		var out []string
		for _, line := range strings.Split(config, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "targets:") {
				line = "  targets: [" + target + "]"
			}
			out = append(out, line)
		}
		return strings.Join(out, "\n")
	}
}

func runSkillsync(t *testing.T, ws string, args ...string) {
	t.Helper()
	cmd := exec.Command(skillsyncBin, append([]string{"--workspace", ws}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("skillsync %v: %v\n%s", args, err, out)
	}
}
