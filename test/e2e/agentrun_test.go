//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/desired"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/test/e2e/mockapi"
)

// request is what one request to the mock showed the model, whatever its wire
// protocol: every text (system prompt, messages, tool descriptions, tool results)
// and the names of the tools offered. The model's own tool calls are left out.
type request struct {
	texts []string
	tools []string
}

// notText are the keys whose values are no text the model is shown: its own calls
// and the request's bookkeeping.
var notText = map[string]bool{
	"tool_calls": true, "functionCall": true, "arguments": true, "model": true, "role": true,
	"type": true, "id": true, "call_id": true, "tool_call_id": true, "name": true,
}

func readRequests(reqs []mockapi.Request) []request {
	var out []request
	for _, r := range reqs {
		var body map[string]any
		if json.Unmarshal(r.Body, &body) != nil {
			continue
		}
		var req request
		walkTexts(body, &req.texts)
		tools, _ := body["tools"].([]any)
		for _, t := range tools {
			req.tools = append(req.tools, toolNames(t)...)
		}
		out = append(out, req)
	}
	return out
}

func walkTexts(v any, out *[]string) {
	switch v := v.(type) {
	case string:
		*out = append(*out, v)
	case []any:
		for _, x := range v {
			walkTexts(x, out)
		}
	case map[string]any:
		for k, x := range v {
			if !notText[k] {
				walkTexts(x, out)
			}
		}
	}
}

// toolNames reads the names of one entry of a request's tools: a Chat Completions
// function, a Responses tool or namespace, or Gemini function declarations.
func toolNames(t any) []string {
	m, _ := t.(map[string]any)
	var names []string
	if n, ok := m["name"].(string); ok {
		names = append(names, n)
	}
	if f, ok := m["function"].(map[string]any); ok {
		if n, ok := f["name"].(string); ok {
			names = append(names, n)
		}
	}
	for _, key := range []string{"functionDeclarations", "tools"} {
		list, _ := m[key].([]any)
		for _, d := range list {
			names = append(names, toolNames(d)...)
		}
	}
	return names
}

func (r request) count(s string) int {
	n := 0
	for _, t := range r.texts {
		n += strings.Count(t, s)
	}
	return n
}

// countRead is count with HTML entities read as the characters they stand for and
// runs of blanks as one space, as clients show descriptions.
func (r request) countRead(s string) int {
	fold := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	n := 0
	for _, t := range r.texts {
		n += strings.Count(fold(html.UnescapeString(t)), fold(s))
	}
	return n
}

func (r request) text(holding string) (string, bool) {
	for _, t := range r.texts {
		if strings.Contains(t, holding) {
			return t, true
		}
	}
	return "", false
}

// runAgent types text for one skill in a client beyond Claude Code and Qwen Code
// and checks what reached the model.
func (s *suite) runAgent(c client, ws *workspace, sk skillCase) {
	s.mock.Reset()
	s.mock.LoadSkill(nil)
	if c.load != nil {
		s.mock.LoadSkill(c.load(sk.name, sentence))
	}
	out, err := runCommand(s.t, c, ws.dir, s.mock.URL, func() []string { return c.invoke(sk.name, sentence) }, ws.servers)
	reqs := readRequests(s.mock.Requests())
	dir := clients.Dir(c.target)
	file, projected := ws.files[path.Join(dir, sk.name, desired.SkillFile)]
	if !projected {
		reached := slices.ContainsFunc(reqs, func(r request) bool {
			return r.count(skillsyncBanner(sk)) > 0 || r.count("Capability `"+sk.capabilityID+"`") > 0 && sk.capabilityID != ""
		})
		s.record(c, ws, sk.name, "absent when withheld", !reached, fmt.Sprintf("reached=%v exit=%v output=%.200q", reached, err, out))
		return
	}
	if c.load != nil && !sk.modelInvocable && clientInfo(c.name).CanHide() {
		// Kept from the model, and no way for a person to invoke it headless: the
		// model's skill tool must not load it.
		reached := slices.ContainsFunc(reqs, func(r request) bool { return r.count(skillsyncBanner(sk)) > 0 || r.count(bodyOf(file)) > 0 })
		s.record(c, ws, sk.name, "the model cannot load it", !reached && len(reqs) > 1, fmt.Sprintf("reached=%v, %d requests, exit=%v", reached, len(reqs), err))
		return
	}
	want := expectedBody(c, bodyOf(file))
	// The request of the conversation, not one a client sends aside (a title).
	i := slices.IndexFunc(reqs, func(r request) bool { _, ok := r.text(want); return ok && len(r.tools) > 0 })
	if i < 0 {
		i = slices.IndexFunc(reqs, func(r request) bool { _, ok := r.text(want); return ok })
	}
	s.record(c, ws, sk.name, "loaded from "+dir, i >= 0 && err == nil,
		fmt.Sprintf("exit=%v, %d requests; output=%.300q\nwant body:\n%s", err, len(reqs), out, want))
	if i < 0 {
		return
	}
	req := reqs[i]
	block, _ := req.text(want)
	if sk.capabilityID != "" {
		typed := arrives(c, sentence)
		s.record(c, ws, sk.name, "text as typed, once", req.count(typed) == 1,
			fmt.Sprintf("%q reached the model %d times", typed, req.count(typed)))
		got, want := titleLine(block, sk.capabilityID), html.UnescapeString(inert(sk.title))
		s.record(c, ws, sk.name, "registry text unaltered", got == want,
			fmt.Sprintf("the model reads the title as %q, want %q", got, want))
	}
	if sk.mcpTool != "" {
		named, offered := mcpToolNamed(c, c.target, sk, block)
		s.record(c, ws, sk.name, "MCP tool named is offered", named != "" && slices.Contains(req.tools, offered),
			fmt.Sprintf("the body names %q; %q among the tools offered: %s", named, offered, strings.Join(req.tools, ", ")))
	}
}

// mcpToolNamed is how the body in block, read from target's directory, names the
// skill's MCP tool, and the tool the client must offer for it: the client's own
// name in the client's own directory, and in the shared .agents/skills the server
// and tool by name, which the client offers under its own name (Codex as a
// namespace).
func mcpToolNamed(c client, target string, sk skillCase, block string) (named, offered string) {
	info := clientInfo(c.name)
	offered = info.MCPToolName(sk.mcpServer, sk.mcpTool)
	if target != "agents" {
		if strings.Contains(block, "`"+offered+"`") {
			return offered, offered
		}
		return "", offered
	}
	neutral := "the tool `" + sk.mcpTool + "` of the MCP server `" + sk.mcpServer + "`"
	if strings.Contains(block, neutral) {
		return neutral, offered
	}
	return "", offered
}

func clientInfo(name string) clients.Client {
	i := slices.IndexFunc(clients.All, func(c clients.Client) bool { return c.Name == name })
	return clients.All[i]
}

// skillsyncBanner is the first line of the banner of any file generated for sk.
func skillsyncBanner(sk skillCase) string {
	owner := "skill/" + sk.name
	if sk.capabilityID != "" {
		owner = "capability/" + sk.capabilityID
	}
	return "# Code generated by skillsync from " + owner + ";"
}

// listingRun asks the client something that needs no skill and checks which
// skills its model was told about: every skill in a directory the client reads
// once, except those the client keeps from the model.
func (s *suite) listingRun(c client, ws *workspace) {
	s.mock.Reset()
	s.mock.LoadSkill(nil)
	out, err := runCommand(s.t, c, ws.dir, s.mock.URL, func() []string { return c.command("Say hello.") }, ws.servers)
	reqs := readRequests(s.mock.Requests())
	i := slices.IndexFunc(reqs, func(r request) bool { return len(r.tools) > 0 })
	if i < 0 {
		s.record(c, ws, "-", "model request with tools", false, fmt.Sprintf("exit=%v output=%.300q", err, out))
		return
	}
	info := clientInfo(c.name)
	for _, sk := range ws.skills {
		copies := 0
		for _, dir := range info.Reads {
			if _, ok := ws.files[path.Join(dir, sk.name, desired.SkillFile)]; ok {
				copies++
			}
		}
		listed := listedTimes(c, reqs[i], sk)
		switch {
		case copies > 0 && (sk.modelInvocable || !info.CanHide()):
			s.record(c, ws, sk.name, fmt.Sprintf("listed once (%d copies)", copies), listed == 1, fmt.Sprintf("listed %d times", listed))
		case copies > 0:
			s.record(c, ws, sk.name, "kept from the model", listed == 0, fmt.Sprintf("listed %d times", listed))
		default:
			s.record(c, ws, sk.name, "withheld, not listed", listed == 0, fmt.Sprintf("listed %d times", listed))
		}
	}
}

// listedTimes counts the skill in what the model is told: by its description,
// or for Cline, which lists names only, in its skills tool's list.
func listedTimes(c client, r request, sk skillCase) int {
	if c.name != "Cline" {
		return r.countRead(descriptionStart(sk.description))
	}
	n := 0
	for _, t := range r.texts {
		_, list, ok := strings.Cut(t, "Available skills: ")
		if !ok {
			continue
		}
		list, _, _ = strings.Cut(list, "\n")
		for _, name := range strings.Split(strings.TrimSuffix(list, "."), ", ") {
			if name == sk.name {
				n++
			}
		}
	}
	return n
}

// TestConformanceAgents runs the hard cases in every client beyond Claude Code and
// Qwen Code that runs here, each against a mock of its own; E2E_CLIENTS (names
// separated by commas) picks some.
func TestConformanceAgents(t *testing.T) {
	hard := filepath.Join(testkit.Root(), "test", "e2e", "testdata", "conformance")
	for _, newClient := range []func(*testing.T) client{codex, geminiCLI, openCode, copilotCLI, cline, kilo} {
		c := newClient(t)
		if pick := os.Getenv("E2E_CLIENTS"); pick != "" && !slices.Contains(strings.Split(pick, ","), c.name) {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			mock, err := mockapi.Start()
			if err != nil {
				t.Fatal(err)
			}
			defer mock.Close()
			s := &suite{t: t, mock: mock}
			own := prepare(t, "conformance ("+c.target+")", hard, "charts", onlyTarget(c.target))
			for _, sk := range own.skills {
				s.runAgent(c, own, sk)
			}
			s.listingRun(c, own)
			if c.target != "agents" {
				both := prepare(t, "conformance ("+c.target+", agents)", hard, "charts", onlyTarget(c.target+", agents"))
				s.listingRun(c, both)
			}
			s.print()
		})
	}
}
