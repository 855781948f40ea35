//go:build e2e

package e2e

import (
	"crypto/rand"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/test/e2e/mockapi"
	yaml "go.yaml.in/yaml/v3"
)

// The reference MCP servers, pinned; E2E_MCP_SERVERS_VERSION checks another.
const mcpServersVersion = "2026.8.31"

// wantEffects are the effects skillsync derives from the annotations of the tools
// of two real servers, checked into the test: a server that changes its
// annotations changes this table, in review.
var wantEffects = map[string]string{
	"files.create_directory":          "write",
	"files.directory_tree":            "read",
	"files.edit_file":                 "destructive",
	"files.get_file_info":             "read",
	"files.list_allowed_directories":  "read",
	"files.list_directory":            "read",
	"files.list_directory_with_sizes": "read",
	"files.move_file":                 "destructive",
	"files.read_file":                 "read",
	"files.read_media_file":           "read",
	"files.read_multiple_files":       "read",
	"files.read_text_file":            "read",
	"files.search_files":              "read",
	"files.write_file":                "destructive",
	"memory.add_observations":         "write",
	"memory.create_entities":          "write",
	"memory.create_relations":         "write",
	"memory.delete_entities":          "destructive",
	"memory.delete_observations":      "destructive",
	"memory.delete_relations":         "destructive",
	"memory.open_nodes":               "read",
	"memory.read_graph":               "read",
	"memory.search_nodes":             "read",
}

// TestMCPSources records the tools of the filesystem and memory reference servers,
// installed from npm, with skillsync mcp refresh, checks the effect of each, and
// has the real Claude Code call the filesystem server through the skill made from
// one of its tools.
func TestMCPSources(t *testing.T) {
	version := envOr("E2E_MCP_SERVERS_VERSION", mcpServersVersion)
	files := npmInstall(t, "@modelcontextprotocol/server-filesystem", version)
	memory := npmInstall(t, "@modelcontextprotocol/server-memory", version)
	ws := testkit.ExampleWorkspace(t)
	// files is configured in .mcp.json, which skillsync and Claude Code both read;
	// memory only in skillsync.yaml.
	mcpJSON := filepath.Join(ws, ".mcp.json")
	writeJSON(t, mcpJSON, map[string]any{"mcpServers": map[string]any{"files": map[string]any{
		"type": "stdio", "command": "node",
		"args": []string{filepath.Join(files, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"), ws},
	}}})
	config := `apiVersion: skillsync/v1
kind: Workspace
spec:
  registry: [registry/*.yaml]
  targets: [claude-code]
  profile: cli
  mcp: {server: majordomus}
  mcpSources:
    - name: files
      skills:
        - {tool: read_text_file, alias: read-file, argument: path}
    - name: memory
      command: node
      args: [` + filepath.Join(memory, "node_modules/@modelcontextprotocol/server-memory/dist/index.js") + `]
      env: {MEMORY_FILE_PATH: ` + filepath.Join(t.TempDir(), "memory.jsonl") + `}
`
	if err := os.WriteFile(filepath.Join(ws, "skillsync.yaml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(skillsyncBin, "--workspace", ws, "mcp", "refresh")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mcp refresh: %v\n%s", err, out)
	}
	got := map[string]string{}
	var readText struct{ Title, Description string }
	for _, server := range []string{"files", "memory"} {
		data, err := os.ReadFile(filepath.Join(ws, "registry", "mcp-"+server+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(strings.NewReader(string(data)))
		for {
			var doc struct {
				Metadata struct{ Name string }
				Spec     struct{ Effect, Title, Description string }
			}
			if dec.Decode(&doc) != nil {
				break
			}
			got[doc.Metadata.Name] = doc.Spec.Effect
			if doc.Metadata.Name == "files.read_text_file" {
				readText.Title, readText.Description = doc.Spec.Title, doc.Spec.Description
			}
		}
	}
	for id, want := range wantEffects {
		if got[id] != want {
			t.Errorf("%s: effect %q, want %q", id, got[id], want)
		}
	}
	for id := range got {
		if _, ok := wantEffects[id]; !ok {
			t.Errorf("%s (%s): a tool the table does not know; add it", id, got[id])
		}
	}
	reconciled, err := exec.Command(skillsyncBin, "--workspace", ws, "reconcile", "--once").CombinedOutput()
	if err != nil {
		t.Fatalf("reconcile: %v\n%s", err, reconciled)
	}
	skill, err := os.ReadFile(filepath.Join(ws, ".claude/skills/read-file/SKILL.md"))
	if err != nil || !strings.Contains(string(skill), "mcp__files__read_text_file") {
		t.Errorf("the skill of read_text_file does not name the tool as Claude Code has it: %v\n%s", err, skill)
	}
	// The server's own description, not its title, is what the model reads of the
	// skill: recorded as one line, and the skill's description.
	var front struct{ Description string }
	if _, rest, ok := strings.Cut(string(skill), "---\n"); ok {
		head, _, _ := strings.Cut(rest, "\n---\n")
		yaml.Unmarshal([]byte(head), &front)
	}
	if readText.Description == "" || readText.Description == readText.Title || strings.ContainsAny(readText.Description, "\n\t") ||
		front.Description != readText.Description {
		t.Errorf("read_text_file: recorded title %q, description %q; the skill's description %q", readText.Title, readText.Description, front.Description)
	}
	t.Run("Claude Code calls the server through /read-file", func(t *testing.T) { callThroughSkill(t, ws, mcpJSON) })
}

// callThroughSkill types /read-file and a workspace path in the real Claude Code,
// configured by mcpJSON alone. The mock's model is told nothing: it calls the
// tool the loaded body names, with the argument the body names set to the text
// in it, as a model would. The real server's answer must then hold a token that
// only the file holds.
func callThroughSkill(t *testing.T, ws, mcpJSON string) {
	const typed = "notes/proof.txt"
	const tool = "mcp__files__read_text_file"
	token := "proof-" + rand.Text()
	testkit.WriteFile(t, ws, typed, []byte("This file holds "+token+".\n"))
	mock, err := mockapi.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer mock.Close()
	mock.FollowSkill()
	bin, version := installClaudeCode(t)
	c := client{
		name: "Claude Code", target: "claude-code", version: version,
		// Headless, Claude Code cannot ask before calling a tool: the one tool
		// is allowed, as a person would allow it.
		command: func(prompt string) []string {
			return []string{bin, "--strict-mcp-config", "--mcp-config", mcpJSON, "--allowedTools", tool, "-p", prompt}
		},
		// Otherwise Claude Code offers MCP tools only by name, to be loaded through
		// its ToolSearch first, and the mock's model reads the tools offered.
		env: func(mockURL, home string) []string {
			return append(claudeEnv(mockURL, home), "ENABLE_TOOL_SEARCH=false")
		},
		setup: func(*testing.T, string, string, map[string]string) {},
	}
	out, runErr := runClient(t, c, ws, mock.URL, "/read-file "+typed, nil)
	reqs := mock.Requests()
	i := slices.IndexFunc(reqs, func(r mockapi.Request) bool { return r.Call != nil })
	if i < 0 {
		t.Fatalf("the mock's model found no offered tool and property named in the loaded body, in %d requests (exit %v):\n%s", len(reqs), runErr, out)
	}
	if call := reqs[i].Call; call.Tool != tool || len(call.Args) != 1 || call.Args["path"] != typed {
		t.Errorf("the loaded body led to the call %s %v, want %s {path: %q}", call.Tool, call.Args, tool, typed)
	}
	for _, r := range reqs[:i+1] {
		if strings.Contains(string(r.Body), token) {
			t.Fatalf("the token reached the model before the call; it would prove nothing")
		}
	}
	if i+1 >= len(reqs) {
		t.Fatalf("no request followed the call (exit %v):\n%s", runErr, out)
	}
	result, isError, ok := toolResult(reqs[i+1].Body, mockapi.CallID)
	if !ok || isError || !strings.Contains(result, token) {
		t.Errorf("the request after the call carries no result of the server reading %s (found %v, error %v):\n%s", typed, ok, isError, result)
	}
	if runErr != nil {
		t.Errorf("Claude Code: %v\n%s", runErr, out)
	}
}

// toolResult reads the result of the call id in an Anthropic Messages request:
// its text, and whether it is an error.
func toolResult(body []byte, id string) (text string, isError, ok bool) {
	var req struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	json.Unmarshal(body, &req)
	for _, m := range req.Messages {
		var blocks []struct {
			Type      string          `json:"type"`
			ToolUseID string          `json:"tool_use_id"`
			IsError   bool            `json:"is_error"`
			Content   json.RawMessage `json:"content"`
		}
		json.Unmarshal(m.Content, &blocks)
		for _, b := range blocks {
			if b.Type == "tool_result" && b.ToolUseID == id {
				return strings.Join(mockapi.ContentTexts(b.Content), "\n"), b.IsError, true
			}
		}
	}
	return "", false, false
}
