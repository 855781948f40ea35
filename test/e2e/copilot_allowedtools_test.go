//go:build e2e

package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/test/e2e/mockapi"
)

// TestCopilotAllowedTools records whether Copilot CLI in prompt mode (-p) takes
// a skill's allowed-tools front matter as leave to run its shell tool. The mock's
// model loads the skill with Copilot's skill tool, then runs the skill's script
// with its bash tool, without --allow-all-tools. Measured with 1.0.102: no
// spelling grants it; the call is denied as in a skill with no allowed-tools,
// while the same rule given as --allow-tool runs it. The client table records
// it: in headless Copilot a skill's allowed-tools grants nothing.
func TestCopilotAllowedTools(t *testing.T) {
	const denied = "Permission denied because no interactive user response was available."
	c := copilotCLI(t)
	for _, v := range []struct {
		name    string
		allowed string   // the allowed-tools value in SKILL.md, if any
		flags   []string // in place of --allow-all-tools
		ran     bool
	}{
		// The controls: the harness can run the script, and shell(bash:*) is a
		// rule Copilot reads that covers the call.
		{name: "--allow-all-tools", flags: []string{"--allow-all-tools"}, ran: true},
		{name: "--allow-tool", flags: []string{"--allow-tool", "shell(bash:*)"}, ran: true},
		{name: "no allowed-tools"},
		{name: "shell", allowed: "shell"},
		{name: "shell(bash:*)", allowed: "shell(bash:*)"},
		{name: "list", allowed: "[shell]"},
		{name: "bash", allowed: "bash"},
		{name: "Bash", allowed: "Bash"},
	} {
		t.Run(v.name, func(t *testing.T) {
			ws := t.TempDir()
			marker := filepath.Join(ws, "marker")
			front := "name: hello\ndescription: Say hello from the skill's script.\n"
			if v.allowed != "" {
				front += "allowed-tools: " + v.allowed + "\n"
			}
			testkit.WriteFile(t, ws, ".github/skills/hello/SKILL.md", []byte("---\n"+front+"---\nRun the script scripts/hello.sh of this skill.\n"))
			script := testkit.WriteFile(t, ws, ".github/skills/hello/scripts/hello.sh", []byte("#!/bin/sh\necho ran > "+marker+"\necho hello-from-script\n"))
			if err := os.Chmod(script, 0o755); err != nil {
				t.Fatal(err)
			}
			load, run := startMock(t), startMock(t)
			load.LoadSkill(&mockapi.SkillCall{Tool: "skill", Args: map[string]any{"skill": "hello"}})
			run.LoadSkill(&mockapi.SkillCall{Tool: "bash", Args: map[string]any{"command": "bash " + script, "description": "Run the skill's script"}})
			out, runErr := runCommand(t, c, ws, twoCalls(t, load, run), func() []string {
				line := slices.DeleteFunc(c.command("Use the hello skill."), func(a string) bool { return a == "--allow-all-tools" })
				return append(line, v.flags...)
			}, nil)

			// Without the skill loaded, a denial would say nothing of allowed-tools.
			i := slices.IndexFunc(run.Requests(), func(r mockapi.Request) bool { return r.Call != nil })
			if i < 0 {
				t.Fatalf("the model never got to call bash (exit %v):\n%s", runErr, out)
			}
			if got, _ := chatToolResult(run.Requests()[i].Body, hiddenID); !strings.Contains(got, `Skill "hello" loaded successfully`) {
				t.Fatalf("the skill did not load before the call: %q", got)
			}
			var result string
			for _, r := range load.Requests() {
				if s, ok := chatToolResult(r.Body, runID); ok {
					result = s
				}
			}
			_, statErr := os.Stat(marker)
			ran := statErr == nil
			t.Logf("allowed-tools %q, flags %q: script ran %v; bash result: %q", v.allowed, v.flags, ran, result)
			if ran != v.ran {
				t.Errorf("script ran = %v, want %v (exit %v)\n%s", ran, v.ran, runErr, out)
			}
			if want := map[bool]string{true: "hello-from-script", false: denied}[v.ran]; !strings.Contains(result, want) {
				t.Errorf("the model was told %q, want it to hold %q", result, want)
			}
		})
	}
}

func startMock(t *testing.T) *mockapi.Server {
	m, err := mockapi.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// hiddenID and runID are as long as mockapi.CallID, so lengths stay right.
const (
	hiddenID = "call_mock_loads"
	runID    = "call_mock_shell"
)

// twoCalls serves Copilot's model from two mocks in turn, since a mock makes one
// call per conversation, none once a request holds mockapi.CallID. load answers
// the first request; run answers the one that carries load's result, with that
// id renamed to hiddenID, and its call's id is renamed to runID; the request
// that carries both results goes back to load, which answers text.
func twoCalls(t *testing.T, load, run *mockapi.Server) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		to, second := load, bytes.Contains(body, []byte(mockapi.CallID)) && !bytes.Contains(body, []byte(runID))
		if second {
			to, body = run, bytes.ReplaceAll(body, []byte(mockapi.CallID), []byte(hiddenID))
		}
		req, _ := http.NewRequest(r.Method, to.URL+r.URL.RequestURI(), bytes.NewReader(body))
		req.Header = r.Header.Clone()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		if second {
			out = bytes.ReplaceAll(out, []byte(mockapi.CallID), []byte(runID))
		}
		w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
		w.WriteHeader(resp.StatusCode)
		w.Write(out)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// chatToolResult is what a Chat Completions request shows the model as the
// result of the call id, if it holds one.
func chatToolResult(body []byte, id string) (string, bool) {
	var req struct {
		Messages []struct {
			Role       string          `json:"role"`
			ToolCallID string          `json:"tool_call_id"`
			Content    json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	json.Unmarshal(body, &req)
	for _, m := range req.Messages {
		if m.Role == "tool" && m.ToolCallID == id {
			return strings.Join(mockapi.ContentTexts(m.Content), "\n"), true
		}
	}
	return "", false
}
