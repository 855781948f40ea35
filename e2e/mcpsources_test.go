//go:build e2e

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

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
// installed from npm, with skillsync mcp refresh, and checks the effect of each.
func TestMCPSources(t *testing.T) {
	version := envOr("E2E_MCP_SERVERS_VERSION", mcpServersVersion)
	files := npmInstall(t, "@modelcontextprotocol/server-filesystem", version)
	memory := npmInstall(t, "@modelcontextprotocol/server-memory", version)
	ws := t.TempDir()
	if err := os.CopyFS(ws, os.DirFS(filepath.Join(repoRoot(t), "fixtures", "example"))); err != nil {
		t.Fatal(err)
	}
	config := `apiVersion: skillsync/v1
kind: Workspace
spec:
  registry: [registry/*.yaml]
  targets: [claude-code]
  profile: cli
  mcp: {server: majordomus}
  mcpSources:
    - name: files
      command: node
      args: [` + filepath.Join(files, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js") + `, ` + ws + `]
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
	for _, server := range []string{"files", "memory"} {
		data, err := os.ReadFile(filepath.Join(ws, "registry", "mcp-"+server+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(strings.NewReader(string(data)))
		for {
			var doc struct {
				Metadata struct{ Name string }
				Spec     struct{ Effect string }
			}
			if dec.Decode(&doc) != nil {
				break
			}
			got[doc.Metadata.Name] = doc.Spec.Effect
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
}
