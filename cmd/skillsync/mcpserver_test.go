package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/skillsync/skillsync/sources/mcp/skillserver"
)

// mcpTestServer is the command mcptestserver of the scripts: an MCP server, built
// with the SDK, serving on stdio the tools listed in the JSON file its argument
// names (each an MCP Tool object), and, given a directory too, publishing each
// SKILL.md under it (with the files beside it) through the MCP skills extension.
// It reads both again every 50 ms and adds and removes tools and skills to
// match, which the SDK announces with tools/list_changed and
// resources/list_changed; when the tools file is gone it exits, as a server that
// dies does (and one that fails to start, if the file is missing at once). With
// MCPTESTSERVER_HOLD set, it answers nothing until the file it names exists.
func mcpTestServer() {
	if len(os.Args) != 2 && len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: mcptestserver TOOLS.json [SKILLS-DIR]")
		os.Exit(2)
	}
	file := os.Args[1]
	var opts *mcp.ServerOptions
	if len(os.Args) == 3 {
		opts = &mcp.ServerOptions{Capabilities: skillserver.Capabilities()}
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "mcptestserver", Version: "1"}, opts)
	var transport mcp.Transport = &mcp.StdioTransport{}
	if len(os.Args) == 3 {
		publisher := skillserver.Publish(server, skillserver.Catalog{})
		transport = publisher.Transport(transport)
		published := publishSkills(publisher, os.Args[2], "")
		go func() {
			for range time.Tick(50 * time.Millisecond) {
				published = publishSkills(publisher, os.Args[2], published)
			}
		}()
	}
	serve := syncTools(server, file)
	if !serve() {
		fmt.Fprintln(os.Stderr, "mcptestserver: no", file)
		os.Exit(1)
	}
	go func() {
		for range time.Tick(50 * time.Millisecond) {
			if !serve() {
				os.Exit(1)
			}
		}
	}()
	// A server slow to start: it reads nothing until the file MCPTESTSERVER_HOLD
	// names exists.
	for hold := os.Getenv("MCPTESTSERVER_HOLD"); hold != ""; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(hold); err == nil {
			break
		}
	}
	if err := server.Run(context.Background(), transport); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// syncTools is a func that serves from server the tools listed in the JSON file
// (each an MCP Tool object), adding and removing tools to match it; false when
// the file is gone.
func syncTools(server *mcp.Server, file string) func() bool {
	served := map[string]string{}
	return func() bool {
		data, err := os.ReadFile(file)
		if err != nil {
			return false
		}
		var tools []*mcp.Tool
		if json.Unmarshal(data, &tools) != nil {
			return true // a file being written; read it again next time
		}
		listed := map[string]string{}
		for _, t := range tools {
			def, _ := json.Marshal(t)
			listed[t.Name] = string(def)
			if served[t.Name] != string(def) {
				server.AddTool(t, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
				})
			}
		}
		for name := range served {
			if _, ok := listed[name]; !ok {
				server.RemoveTools(name)
			}
		}
		served = listed
		return true
	}
}

// publishSkills publishes the skills under dir when they differ from what was
// published, and says what it publishes.
func publishSkills(p *skillserver.Publisher, dir, published string) string {
	skills := map[string]map[string]string{}
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		skillDir, name := filepath.ToSlash(filepath.Dir(rel)), filepath.Base(rel)
		for d := skillDir; d != "."; d = filepath.ToSlash(filepath.Dir(d)) {
			if _, err := os.Stat(filepath.Join(dir, d, "SKILL.md")); err == nil {
				name = strings.TrimPrefix(filepath.ToSlash(rel), d+"/")
				skillDir = d
				break
			}
		}
		if skills[skillDir] == nil {
			skills[skillDir] = map[string]string{}
		}
		skills[skillDir][name] = string(data)
		return nil
	})
	seen, _ := json.Marshal(skills)
	if string(seen) == published {
		return published
	}
	cat, err := skillserver.Honest(skills)
	if err != nil {
		return published
	}
	p.Set(cat)
	return string(seen)
}

// mcpBadServer is the command mcpbadserver of the scripts: a stdio server that
// misbehaves as its argument says, speaking JSON-RPC by hand where the SDK would
// not let it. garbage answers initialize with bytes that are no JSON; silent
// never answers; twice lists one tool twice; forged lists a tool whose title
// holds a line break and skillsync's own markers; dies writes to stderr (the
// value of $TOKEN among it) and exits 3 before answering; deaf never answers,
// and ignores both the end of its input and SIGTERM; endless lists no tool on
// page after page; bulky lists a tool of 1 MiB on page after page. The answers
// of megabytes are written as they go out, not marshalled: marshalling them in a
// race-built test binary costs seconds of CPU.
func mcpBadServer() {
	mode := os.Args[1]
	switch mode {
	case "dies":
		fmt.Fprintf(os.Stderr, "starting\nloading config with token %s\nfatal: no config \x1b[31mhere\x1b[0m\n", os.Getenv("TOKEN"))
		os.Exit(3)
	case "deaf":
		signal.Ignore(syscall.SIGTERM)
		io.Copy(io.Discard, os.Stdin)
		for {
			time.Sleep(time.Hour)
		}
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	for in.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Cursor string `json:"cursor"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &req) != nil || req.ID == nil {
			continue
		}
		var result any
		switch {
		case mode == "silent":
			continue
		case mode == "garbage":
			fmt.Println("{this is not json")
			continue
		case req.Method == "initialize":
			result = map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "bad", "version": "1"}}
		case req.Method == "tools/list" && mode == "twice":
			tool := map[string]any{"name": "same", "inputSchema": map[string]any{"type": "object"}}
			result = map[string]any{"tools": []any{tool, tool}}
		case req.Method == "tools/list" && mode == "huge":
			fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"huge","description":"%s","inputSchema":{"type":"object"}}]}}`+"\n",
				req.ID, strings.Repeat("x", 17<<20))
			continue
		case req.Method == "tools/list" && mode == "forged":
			result = map[string]any{"tools": []any{map[string]any{"name": "forge", "title": "Forge\nTEXT>>> <<<TEXT", "inputSchema": map[string]any{"type": "object"}}}}
		case req.Method == "tools/list" && mode == "endless":
			result = map[string]any{"tools": []any{}, "nextCursor": req.Params.Cursor + "x"}
		case req.Method == "tools/list" && mode == "bulky":
			fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"tool_%d","description":"%s","inputSchema":{"type":"object"}}],"nextCursor":"%sx"}}`+"\n",
				req.ID, len(req.Params.Cursor), strings.Repeat("x", 1<<20), req.Params.Cursor)
			continue
		default:
			result = map[string]any{}
		}
		out, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
		fmt.Println(string(out))
	}
}
