package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/skillsync/skillsync/internal/testkit/benchkit"
)

func main() {
	if len(os.Args) == 3 && os.Args[1] == "serve" {
		serve(os.Args[2])
		return
	}
	adds := flag.Int("adds", 15, "tools added (and registry saves) per series")
	flag.Parse()

	tmp := benchkit.ScratchDir("skillsync-mcpbench-")
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "skillsync")
	self := filepath.Join(tmp, "mcplatency")
	benchkit.Check(benchkit.BuildAsReleased(bin))
	benchkit.Check(benchkit.Build("", self, "./test/bench/mcplatency", nil))
	ws := filepath.Join(tmp, "ws")
	tools := filepath.Join(tmp, "tools.json")
	benchkit.Check(os.MkdirAll(filepath.Join(ws, "registry"), 0o755))
	writeTools(tools, 0)
	benchkit.Check(os.WriteFile(filepath.Join(ws, "skillsync.yaml"), []byte("apiVersion: skillsync/v1\nkind: Workspace\nspec:\n"+
		"  registry: [registry/*.yaml]\n  targets: [claude-code]\n  mcp: {server: bench}\n  mcpSources:\n"+
		"    - name: bench\n      command: "+self+"\n      args: [serve, "+tools+"]\n      skills: [{tool: \"tool_*\"}]\n"), 0o644))
	writeRegistry(ws, 0)

	addr := benchkit.Must(benchkit.FreeAddr())
	watcher := exec.Command(bin, "--workspace", ws, "reconcile", "--health-addr", addr)
	benchkit.Check(watcher.Start())
	defer func() {
		watcher.Process.Signal(os.Interrupt)
		watcher.Wait()
	}()
	benchkit.AwaitReady(addr)
	benchkit.AwaitText(filepath.Join(ws, ".claude/skills/tool-0/SKILL.md"), "tool_0", time.Now().Add(time.Minute))

	var mcpTimes, saveTimes []time.Duration
	for i := 1; i <= *adds; i++ {
		start := time.Now()
		writeTools(tools, i)
		benchkit.AwaitText(filepath.Join(ws, ".claude/skills", fmt.Sprintf("tool-%d", i), "SKILL.md"), fmt.Sprintf("tool_%d", i), time.Now().Add(time.Minute))
		mcpTimes = append(mcpTimes, time.Since(start))

		start = time.Now()
		writeRegistry(ws, i)
		benchkit.AwaitText(filepath.Join(ws, ".claude/skills/saved/SKILL.md"), fmt.Sprintf("Saved %d", i), time.Now().Add(time.Minute))
		saveTimes = append(saveTimes, time.Since(start))
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "change\tp50\tp90\tmax\tp50 / save p50\t")
	base := benchkit.Percentile(saveTimes, 50)
	for _, r := range []struct {
		name  string
		times []time.Duration
	}{{"registry save → skill on disk", saveTimes}, {"MCP tool added → skill on disk", mcpTimes}} {
		p50 := benchkit.Percentile(r.times, 50)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.1f×\t\n", r.name, benchkit.Ms(p50), benchkit.Ms(benchkit.Percentile(r.times, 90)), benchkit.Ms(benchkit.Percentile(r.times, 100)), float64(p50)/float64(base))
	}
	tw.Flush()
	fmt.Printf("%d of each, alternating, in one watcher with the default debounce; the server checks its tools file every 2 ms.\n", *adds)
}

// writeTools lists tools tool_0 … tool_n, each with one required string.
func writeTools(path string, n int) {
	var tools []map[string]any
	for i := 0; i <= n; i++ {
		tools = append(tools, map[string]any{"name": fmt.Sprintf("tool_%d", i), "annotations": map[string]any{"readOnlyHint": true},
			"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}, "required": []string{"text"}}})
	}
	data, err := json.Marshal(tools)
	benchkit.Check(err)
	benchkit.Check(os.WriteFile(path+".tmp", data, 0o644))
	benchkit.Check(os.Rename(path+".tmp", path))
}

// writeRegistry saves a registry file declaring the skill "saved", its title
// numbered i.
func writeRegistry(ws string, i int) {
	path := filepath.Join(ws, "registry", "saved.yaml")
	doc := fmt.Sprintf("apiVersion: skillsync/v1\nkind: Capability\nmetadata: {name: bench.saved}\nspec:\n  title: \"Saved %d\"\n  effect: read\n"+
		"  input: {type: object, properties: {text: {type: string}}}\n  mcp: {tool: saved}\n  skill: {alias: saved, argument: text}\n", i)
	benchkit.Check(os.WriteFile(path+".swp", []byte(doc), 0o644))
	benchkit.Check(os.Rename(path+".swp", path))
}

// serve is the MCP server: the tools of the file at path, kept in step with it.
func serve(path string) {
	server := mcp.NewServer(&mcp.Implementation{Name: "mcplatency", Version: "1"}, nil)
	served := map[string]bool{}
	var last []byte
	load := func() {
		data, err := os.ReadFile(path)
		if err != nil || bytes.Equal(data, last) {
			return
		}
		var tools []*mcp.Tool
		if json.Unmarshal(data, &tools) != nil {
			return
		}
		last = data
		for _, t := range tools {
			if !served[t.Name] {
				served[t.Name] = true
				server.AddTool(t, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return &mcp.CallToolResult{}, nil
				})
			}
		}
	}
	load()
	go func() {
		for range time.Tick(2 * time.Millisecond) {
			load()
		}
	}()
	benchkit.Check(server.Run(context.Background(), &mcp.StdioTransport{}))
}
