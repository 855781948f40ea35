package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	if len(os.Args) == 3 && os.Args[1] == "serve" {
		serve(os.Args[2])
		return
	}
	adds := flag.Int("adds", 15, "tools added (and registry saves) per series")
	flag.Parse()

	tmp, err := os.MkdirTemp("", "skillsync-mcpbench-")
	check(err)
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "skillsync")
	self := filepath.Join(tmp, "mcplatency")
	for out, pkg := range map[string]string{bin: "./cmd/skillsync", self: "./test/bench/mcplatency"} {
		build := exec.Command("go", "build", "-o", out, pkg)
		build.Stderr = os.Stderr
		check(build.Run())
	}
	ws := filepath.Join(tmp, "ws")
	tools := filepath.Join(tmp, "tools.json")
	check(os.MkdirAll(filepath.Join(ws, "registry"), 0o755))
	writeTools(tools, 0)
	check(os.WriteFile(filepath.Join(ws, "skillsync.yaml"), []byte("apiVersion: skillsync/v1\nkind: Workspace\nspec:\n"+
		"  registry: [registry/*.yaml]\n  targets: [claude-code]\n  mcp: {server: bench}\n  mcpSources:\n"+
		"    - name: bench\n      command: "+self+"\n      args: [serve, "+tools+"]\n      skills: [{tool: \"tool_*\"}]\n"), 0o644))
	writeRegistry(ws, 0)

	addr := freeAddr()
	watcher := exec.Command(bin, "--workspace", ws, "reconcile", "--health-addr", addr)
	check(watcher.Start())
	defer func() {
		watcher.Process.Signal(os.Interrupt)
		watcher.Wait()
	}()
	awaitReady(addr)
	await(filepath.Join(ws, ".claude/skills/tool-0/SKILL.md"), "tool_0")

	var mcpTimes, saveTimes []time.Duration
	for i := 1; i <= *adds; i++ {
		start := time.Now()
		writeTools(tools, i)
		await(filepath.Join(ws, ".claude/skills", fmt.Sprintf("tool-%d", i), "SKILL.md"), fmt.Sprintf("tool_%d", i))
		mcpTimes = append(mcpTimes, time.Since(start))

		start = time.Now()
		writeRegistry(ws, i)
		await(filepath.Join(ws, ".claude/skills/saved/SKILL.md"), fmt.Sprintf("Saved %d", i))
		saveTimes = append(saveTimes, time.Since(start))
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "change\tp50\tp90\tmax\tp50 / save p50\t")
	base := percentile(saveTimes, 50)
	for _, r := range []struct {
		name  string
		times []time.Duration
	}{{"registry save → skill on disk", saveTimes}, {"MCP tool added → skill on disk", mcpTimes}} {
		p50 := percentile(r.times, 50)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.1f×\t\n", r.name, ms(p50), ms(percentile(r.times, 90)), ms(percentile(r.times, 100)), float64(p50)/float64(base))
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
	check(err)
	check(os.WriteFile(path+".tmp", data, 0o644))
	check(os.Rename(path+".tmp", path))
}

// writeRegistry saves a registry file declaring the skill "saved", its title
// numbered i.
func writeRegistry(ws string, i int) {
	path := filepath.Join(ws, "registry", "saved.yaml")
	doc := fmt.Sprintf("apiVersion: skillsync/v1\nkind: Capability\nmetadata: {name: bench.saved}\nspec:\n  title: \"Saved %d\"\n  effect: read\n"+
		"  input: {type: object, properties: {text: {type: string}}}\n  mcp: {tool: saved}\n  skill: {alias: saved, argument: text}\n", i)
	check(os.WriteFile(path+".swp", []byte(doc), 0o644))
	check(os.Rename(path+".swp", path))
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
	check(server.Run(context.Background(), &mcp.StdioTransport{}))
}

func await(path, text string) {
	deadline := time.Now().Add(time.Minute)
	for {
		if data, err := os.ReadFile(path); err == nil && bytes.Contains(data, []byte(text)) {
			return
		}
		if time.Now().After(deadline) {
			fmt.Fprintf(os.Stderr, "%s never held %q\n", path, text)
			os.Exit(1)
		}
		time.Sleep(200 * time.Microsecond)
	}
}

func awaitReady(addr string) {
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if resp, err := http.Get("http://" + addr + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
	}
	fmt.Fprintln(os.Stderr, "watcher never became ready")
	os.Exit(1)
}

func percentile(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (len(s)*p+99)/100 - 1
	return s[max(0, min(i, len(s)-1))]
}

func freeAddr() string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	check(err)
	defer ln.Close()
	return ln.Addr().String()
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
