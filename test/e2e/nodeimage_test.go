//go:build e2e

package e2e

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillsync/skillsync/internal/syncbuffer"
	"github.com/skillsync/skillsync/internal/testkit"
)

// The sidecar with a stdio MCP server that `npx` starts, run the way the
// Kubernetes node overlay runs the Node image (HOME and npx's cache on a
// scratch volume, started from /): the server is fetched from npm, answers,
// its tools are recorded, and /readyz turns ready. Run the way the static image
// runs it, with no Node on the PATH, the same workspace never gets ready and
// /readyz names the server that does not answer, which is what the Node image
// is for.
func TestNodeImageStartsAnNpxServer(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not installed: ", err)
	}
	for _, c := range []struct {
		name  string
		path  string
		ready bool
	}{{"node", filepath.Dir(node), true}, {"static", "/nonexistent", false}} {
		t.Run(c.name, func(t *testing.T) {
			ws := testkit.ExampleWorkspace(t)
			scratch := t.TempDir()
			config, err := os.ReadFile(filepath.Join(ws, "skillsync.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			config = append(config, `
  mcpSources:
    - name: memory
      command: npx
      args: ["-y", "@modelcontextprotocol/server-memory@`+envOr("E2E_MCP_SERVERS_VERSION", mcpServersVersion)+`"]
      env: {MEMORY_FILE_PATH: `+filepath.Join(scratch, "memory.jsonl")+`}
`...)
			if err := os.WriteFile(filepath.Join(ws, "skillsync.yaml"), config, 0o644); err != nil {
				t.Fatal(err)
			}
			addr := testkit.FreeAddr(t)
			cmd := exec.Command(skillsyncBin, "reconcile", "--watch")
			cmd.Dir = "/"
			cmd.Env = []string{"PATH=" + c.path, "HOME=" + scratch, "NPM_CONFIG_CACHE=" + filepath.Join(scratch, "npm"),
				"NPM_CONFIG_UPDATE_NOTIFIER=false", "SKILLSYNC_WORKSPACE=" + ws, "SKILLSYNC_HEALTH_ADDR=" + addr, "SKILLSYNC_LOG_FORMAT=json"}
			var logs syncbuffer.Buffer
			cmd.Stdout, cmd.Stderr = &logs, &logs
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				cmd.Process.Signal(os.Interrupt)
				cmd.Wait()
			})
			url := "http://" + addr + "/readyz"
			if c.ready {
				testkit.AwaitReady(t, url, 3*time.Minute, &logs)
				snapshot, err := os.ReadFile(filepath.Join(ws, "registry", "mcp-memory.yaml"))
				if err != nil || !strings.Contains(string(snapshot), "memory.create_entities") {
					t.Errorf("the server's tools were not recorded: %v\n%s", err, logs.String())
				}
				return
			}
			// Not ready, and saying why: the server named, the command not found.
			var body struct {
				Ready      bool
				MCPSources map[string]string `json:"mcpSources"`
			}
			for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
				resp, err := http.Get(url)
				if err != nil {
					continue
				}
				json.NewDecoder(resp.Body).Decode(&body)
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					t.Fatalf("ready with no Node to start the server\n%s", logs.String())
				}
				if body.MCPSources["memory"] != "" {
					break
				}
			}
			if !strings.Contains(body.MCPSources["memory"], "npx") {
				t.Errorf("/readyz does not say why memory does not answer: %v\n%s", body.MCPSources, logs.String())
			}
		})
	}
}
