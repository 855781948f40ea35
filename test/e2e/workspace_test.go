//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/workspacefs"
	"github.com/skillsync/skillsync/test/e2e/mcpserver/tools"
)

// workspace is a copy of a source workspace that skillsync has just reconciled.
type workspace struct {
	label   string
	dir     string
	files   map[string][]byte // every generated file, by workspace path
	skills  []skillCase
	servers map[string]string // MCP server name -> tools file
}

// skillCase is one skill to type, and what the registry says about it.
type skillCase struct {
	name           string
	capabilityID   string // empty for a workflow skill
	title          string
	description    string
	mcpServer      string
	mcpTool        string // the tool's name on mcpServer; empty when reached by CLI
	modelInvocable bool
}

// prepare copies src, optionally rewrites its skillsync.yaml, reconciles it with the
// real binary under profile, and reads back what was generated.
func prepare(t *testing.T, label, src, profile string, editConfig func(string) string) *workspace {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	if editConfig != nil {
		cfg := filepath.Join(dir, registry.ConfigName)
		data, err := os.ReadFile(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(cfg, []byte(editConfig(string(data))), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runSkillsync(t, dir, "--profile", profile, "reconcile", "--once")
	reg, err := registry.Load(workspacefs.OS{}, dir)
	if err != nil {
		t.Fatal(err)
	}
	ws := &workspace{label: label, dir: dir, files: map[string][]byte{}, servers: map[string]string{}}
	for _, target := range clients.Targets {
		matches, _ := filepath.Glob(filepath.Join(dir, target.Dir, "*", "SKILL.md"))
		for _, m := range matches {
			data, err := os.ReadFile(m)
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(dir, m)
			ws.files[filepath.ToSlash(rel)] = data
		}
	}
	serverTools := map[string][]tools.Tool{}
	for _, c := range reg.Capabilities {
		if c.Spec.MCP != nil {
			server := c.MCPServer(reg.Config)
			serverTools[server] = append(serverTools[server], tools.FromCapability(c))
		}
		if c.Spec.Skill == nil {
			continue
		}
		sc := skillCase{name: c.Spec.Skill.Alias, capabilityID: c.ID, title: c.Spec.Title, description: c.SkillDescription(),
			modelInvocable: c.Spec.Effect == registry.EffectRead}
		if c.Spec.MCP != nil {
			sc.mcpServer, sc.mcpTool = c.MCPServer(reg.Config), c.Spec.MCP.Tool
		}
		ws.skills = append(ws.skills, sc)
	}
	for _, s := range reg.Skills {
		ws.skills = append(ws.skills, skillCase{name: s.Name, description: s.Spec.Description, modelInvocable: !s.Spec.DisableModelInvocation})
	}
	for server, list := range serverTools {
		path := filepath.Join(t.TempDir(), server+".json")
		writeJSON(t, path, list)
		ws.servers[server] = path
	}
	return ws
}

// bodyOf is a generated file without its front matter.
func bodyOf(file []byte) string {
	_, rest, _ := strings.Cut(string(file), "\n---\n")
	return strings.TrimLeft(rest, "\n")
}
