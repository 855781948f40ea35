//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/test/e2e/mockapi"
)

// Pinned versions of the clients beyond Claude Code and Qwen Code; the
// E2E_<NAME>_VERSION variables override them.
const (
	codexVersion    = "0.169.0"
	geminiVersion   = "0.61.0"
	openCodeVersion = "1.18.33"
	copilotVersion  = "1.0.102"
	clineVersion    = "3.0.65"
	kiloVersion     = "7.7.7"
)

func bin(prefix, name string) string {
	return filepath.Join(prefix, "node_modules", ".bin", name)
}

// askFor is the prompt for a client that loads a skill only through its model:
// it names the skill and carries the text, and the mock's model loads the skill.
func askFor(name, text string) string { return "Use the " + name + " skill with this text: " + text }

func codex(t *testing.T) client {
	version := envOr("E2E_CODEX_VERSION", codexVersion)
	codex := bin(npmInstall(t, "@openai/codex", version), "codex")
	return client{
		name: "Codex", target: "agents", version: version,
		command: func(prompt string) []string { return []string{codex, "exec", "--skip-git-repo-check", prompt} },
		invoke: func(name, text string) []string {
			return []string{codex, "exec", "--skip-git-repo-check", "$" + name + " " + text}
		},
		env: func(mockURL, home string) []string { return []string{"MOCK_API_KEY=test"} },
		setup: func(t *testing.T, home, mockURL string, servers map[string]string) {
			var b strings.Builder
			fmt.Fprintf(&b, "model_provider = \"mock\"\nmodel = \"mock-model\"\ncheck_for_update_on_startup = false\n")
			fmt.Fprintf(&b, "[model_providers.mock]\nname = \"mock\"\nbase_url = %q\nenv_key = \"MOCK_API_KEY\"\nwire_api = \"responses\"\n", mockURL+"/v1")
			fmt.Fprintf(&b, "[analytics]\nenabled = false\n")
			for name, tools := range servers {
				fmt.Fprintf(&b, "[mcp_servers.%s]\ncommand = %q\nargs = [%q]\n", name, mcpServerBin, tools)
			}
			testkit.WriteFile(t, home, ".codex/config.toml", []byte(b.String()))
		},
	}
}

func geminiCLI(t *testing.T) client {
	version := envOr("E2E_GEMINI_VERSION", geminiVersion)
	gemini := bin(npmInstall(t, "@google/gemini-cli", version), "gemini")
	return client{
		name: "Gemini CLI", target: "gemini", version: version,
		command: func(prompt string) []string {
			return []string{gemini, "-p", prompt, "-m", "gemini-2.5-flash", "--approval-mode", "yolo"}
		},
		invoke: func(name, text string) []string {
			return []string{gemini, "-p", askFor(name, text), "-m", "gemini-2.5-flash", "--approval-mode", "yolo"}
		},
		load: func(name, text string) *mockapi.SkillCall {
			return &mockapi.SkillCall{Tool: "activate_skill", Args: map[string]any{"name": name}}
		},
		env: func(mockURL, home string) []string {
			return []string{"GEMINI_API_KEY=test", "GOOGLE_GEMINI_BASE_URL=" + mockURL, "GEMINI_CLI_TRUST_WORKSPACE=true"}
		},
		setup: func(t *testing.T, home, mockURL string, servers map[string]string) {
			writeJSON(t, filepath.Join(home, ".gemini", "settings.json"), map[string]any{
				"security":   map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
				"telemetry":  map[string]any{"enabled": false},
				"general":    map[string]any{"enableAutoUpdate": false},
				"mcpServers": mcpServers(servers, false),
			})
		},
	}
}

// openCodeConfig is OpenCode's and Kilo's configuration: the mock as the only
// provider, and the MCP servers.
func openCodeConfig(mockURL string, servers map[string]string) string {
	mcp := map[string]any{}
	for name, tools := range servers {
		mcp[name] = map[string]any{"type": "local", "command": []string{mcpServerBin, tools}}
	}
	data, _ := json.Marshal(map[string]any{
		"provider": map[string]any{"mock": map[string]any{"npm": "@ai-sdk/openai-compatible",
			"options": map[string]any{"baseURL": mockURL + "/v1", "apiKey": "test"}, "models": map[string]any{"m": map[string]any{}}}},
		"model": "mock/m",
		"mcp":   mcp,
	})
	return string(data)
}

// openCodeLike is OpenCode or Kilo, which share their code: the text goes as
// separate words after --, since a quoted argument holding spaces is re-quoted.
func openCodeLike(name, version, command, prefix, target string) client {
	var servers map[string]string
	return client{
		name: name, target: target, version: version,
		command: func(prompt string) []string { return []string{command, "run", prompt} },
		invoke: func(skill, text string) []string {
			return append([]string{command, "run", "--command", skill, "--"}, strings.Fields(text)...)
		},
		env: func(mockURL, home string) []string {
			return []string{prefix + "_CONFIG_CONTENT=" + openCodeConfig(mockURL, servers), prefix + "_DISABLE_AUTOUPDATE=1", prefix + "_DISABLE_MODELS_FETCH=1",
				prefix + "_DISABLE_LSP_DOWNLOAD=1", prefix + "_DISABLE_SHARE=1", "npm_config_offline=true"}
		},
		setup: func(t *testing.T, home, mockURL string, s map[string]string) { servers = s },
	}
}

func openCode(t *testing.T) client {
	version := envOr("E2E_OPENCODE_VERSION", openCodeVersion)
	return openCodeLike("OpenCode", version, bin(npmInstall(t, "opencode-ai", version), "opencode"), "OPENCODE", "opencode")
}

func kilo(t *testing.T) client {
	version := envOr("E2E_KILO_VERSION", kiloVersion)
	return openCodeLike("Kilo", version, bin(npmInstall(t, "@kilocode/cli", version), "kilo"), "KILO", "kilo")
}

func copilotCLI(t *testing.T) client {
	version := envOr("E2E_COPILOT_VERSION", copilotVersion)
	copilot := bin(npmInstall(t, "@github/copilot", version), "copilot")
	var mcpConfig string
	run := func(prompt string) []string {
		return []string{copilot, "-p", prompt, "--allow-all-tools", "--trust-folder", "-s", "--additional-mcp-config", "@" + mcpConfig}
	}
	return client{
		name: "Copilot CLI", target: "github", version: version,
		command: run,
		invoke:  func(name, text string) []string { return run("/" + name + " " + text) },
		load: func(name, text string) *mockapi.SkillCall {
			return &mockapi.SkillCall{Tool: "skill", Args: map[string]any{"skill": name}}
		},
		env: func(mockURL, home string) []string {
			return []string{"COPILOT_OFFLINE=true", "COPILOT_PROVIDER_BASE_URL=" + mockURL + "/v1", "COPILOT_PROVIDER_API_KEY=test",
				"COPILOT_MODEL=gpt-4.1", "COPILOT_AUTO_UPDATE=false"}
		},
		setup: func(t *testing.T, home, mockURL string, servers map[string]string) {
			mcpConfig = filepath.Join(home, "mcp.json")
			writeJSON(t, mcpConfig, map[string]any{"mcpServers": mcpServers(servers, false)})
		},
	}
}

func cline(t *testing.T) client {
	version := envOr("E2E_CLINE_VERSION", clineVersion)
	cline := bin(npmInstall(t, "cline", version), "cline")
	env := []string{"CLINE_SESSION_BACKEND_MODE=local", "CLINE_NO_AUTO_UPDATE=1"}
	return client{
		name: "Cline", target: "cline", version: version,
		command: func(prompt string) []string { return []string{cline, prompt} },
		invoke:  func(name, text string) []string { return []string{cline, askFor(name, text)} },
		load: func(name, text string) *mockapi.SkillCall {
			return &mockapi.SkillCall{Tool: "skills", Args: map[string]any{"skill": name, "args": nil}}
		},
		env: func(mockURL, home string) []string { return env },
		setup: func(t *testing.T, home, mockURL string, servers map[string]string) {
			writeJSON(t, filepath.Join(home, ".cline", "data", "settings", "cline_mcp_settings.json"), map[string]any{"mcpServers": mcpServers(servers, false)})
			auth := exec.Command(cline, "auth", "-p", "openai-compatible", "-k", "test", "-b", mockURL+"/v1", "-m", "m")
			auth.Dir, auth.Env = home, append(baseEnv(home, home), env...)
			if out, err := auth.CombinedOutput(); err != nil {
				t.Fatalf("cline auth: %v\n%s", err, out)
			}
		},
	}
}
