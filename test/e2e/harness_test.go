//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/test/e2e/mockapi"
)

// Pinned client versions; E2E_CLAUDE_VERSION and E2E_QWEN_VERSION override them.
const (
	claudeVersion = "2.1.328"
	qwenVersion   = "0.24.4"
)

// clientRunTimeout bounds one client run; a run that needs it is a failure, not a
// measurement.
const clientRunTimeout = 3 * time.Minute

// client is one installed agent client and how to start it against the mock.
type client struct {
	name    string
	target  string // the target whose files it reads first
	version string
	command func(prompt string) []string
	env     func(mockURL, home string) []string
	// setup writes whatever the client needs in its throwaway HOME.
	setup func(t *testing.T, home, mockURL string, servers map[string]string)
	// invoke is the command that types text for the skill called name, where it
	// differs from command("/name text"); load is the call the mock's model makes
	// to load that skill, for a client that loads skills only through its model.
	invoke func(name, text string) []string
	load   func(name, text string) *mockapi.SkillCall
}

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}

// cacheDir holds the npm installs between runs; it is never committed.
func cacheDir(t *testing.T) string {
	dir := envOr("E2E_CACHE", filepath.Join(testkit.Root(), "test", "e2e", ".cache"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// npmInstall installs pkg@version under the cache unless it is already there.
func npmInstall(t *testing.T, pkg, version string) string {
	t.Helper()
	prefix := filepath.Join(cacheDir(t), strings.NewReplacer("@", "", "/", "-").Replace(pkg)+"@"+version)
	manifest := filepath.Join(prefix, "node_modules", filepath.FromSlash(pkg), "package.json")
	if data, err := os.ReadFile(manifest); err == nil {
		var m struct{ Version string }
		if json.Unmarshal(data, &m) == nil && m.Version == version {
			return prefix
		}
	}
	t.Logf("installing %s@%s with npm into %s", pkg, version, prefix)
	if err := os.MkdirAll(prefix, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("npm", "install", "--prefix", prefix, "--no-audit", "--no-fund", "--loglevel=error", pkg+"@"+version)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm install %s@%s: %v\n%s", pkg, version, err, out)
	}
	return prefix
}

// installClaudeCode installs the pinned Claude Code and returns its binary.
func installClaudeCode(t *testing.T) (bin, version string) {
	version = envOr("E2E_CLAUDE_VERSION", claudeVersion)
	prefix := npmInstall(t, "@anthropic-ai/claude-code", version)
	return filepath.Join(prefix, "node_modules", "@anthropic-ai", "claude-code-linux-x64", "claude"), version
}

func claudeEnv(mockURL, home string) []string {
	return []string{"ANTHROPIC_BASE_URL=" + mockURL, "ANTHROPIC_API_KEY=test", "DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"}
}

func claudeCode(t *testing.T) client {
	bin, version := installClaudeCode(t)
	var mcpConfig string
	return client{
		name: "Claude Code", target: "claude-code", version: version,
		command: func(prompt string) []string {
			return []string{bin, "--strict-mcp-config", "--mcp-config", mcpConfig, "-p", prompt}
		},
		env: claudeEnv,
		setup: func(t *testing.T, home, mockURL string, servers map[string]string) {
			mcpConfig = filepath.Join(home, "mcp.json")
			writeJSON(t, mcpConfig, map[string]any{"mcpServers": mcpServers(servers, true)})
		},
	}
}

func qwenCode(t *testing.T) client {
	version := envOr("E2E_QWEN_VERSION", qwenVersion)
	prefix := npmInstall(t, "@qwen-code/qwen-code", version)
	cli := filepath.Join(prefix, "node_modules", "@qwen-code", "qwen-code", "cli.js")
	return client{
		name: "Qwen Code", target: "qwen-code", version: version,
		command: func(prompt string) []string {
			return []string{"node", cli, "--auth-type", "openai", "-p", prompt}
		},
		env: func(mockURL, home string) []string {
			return []string{"OPENAI_BASE_URL=" + mockURL + "/v1", "OPENAI_API_KEY=test", "OPENAI_MODEL=mock-model"}
		},
		setup: func(t *testing.T, home, mockURL string, servers map[string]string) {
			writeJSON(t, filepath.Join(home, ".qwen", "settings.json"), map[string]any{"mcpServers": mcpServers(servers, false)})
		},
	}
}

// mcpServers configures one stdio MCP server per name, each serving its tools file.
func mcpServers(toolsFiles map[string]string, typed bool) map[string]any {
	out := map[string]any{}
	for name, tools := range toolsFiles {
		s := map[string]any{"command": mcpServerBin, "args": []string{tools}}
		if typed {
			s["type"] = "stdio"
		}
		out[name] = s
	}
	return out
}

// mcpServerBin and skillsyncBin are built once per run by TestMain.
var mcpServerBin, skillsyncBin string

func buildBinaries() error {
	for out, pkg := range map[*string]string{&mcpServerBin: "./test/e2e/mcpserver", &skillsyncBin: "./cmd/skillsync"} {
		var err error
		if *out, err = testkit.Program(pkg); err != nil {
			return err
		}
	}
	return nil
}

// runClient runs one prompt in ws with a fresh HOME and returns its combined output.
func runClient(t *testing.T, c client, ws, mockURL, prompt string, servers map[string]string) (string, error) {
	return runCommand(t, c, ws, mockURL, func() []string { return c.command(prompt) }, servers)
}

// runCommand runs one command line of c in ws with a fresh HOME; line is called
// once the HOME is set up, since a command may name files there.
func runCommand(t *testing.T, c client, ws, mockURL string, line func() []string, servers map[string]string) (string, error) {
	t.Helper()
	home := t.TempDir()
	c.setup(t, home, mockURL, servers)
	args := line()
	ctx, cancel := context.WithTimeout(context.Background(), clientRunTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Dir = ws
	cmd.Env = append(baseEnv(home, ws), c.env(mockURL, home)...)
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// baseEnv is all a client run inherits: a fresh HOME, the PATH, no colours. OpenCode
// and Kilo take the project from $PWD, not from the working directory.
func baseEnv(home, dir string) []string {
	return []string{"HOME=" + home, "PWD=" + dir, "PATH=" + os.Getenv("PATH"), "TERM=dumb", "NO_COLOR=1"}
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	testkit.WriteFile(t, filepath.Dir(path), filepath.Base(path), data)
}
