package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpTestServer is the command mcptestserver of the scripts: an MCP server, built
// with the SDK, serving on stdio the tools listed in the JSON file its argument
// names (each an MCP Tool object). With the file missing it exits at once, as a
// server that fails to start does.
func mcpTestServer() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: mcptestserver TOOLS.json")
		os.Exit(2)
	}
	data, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var tools []*mcp.Tool
	if err := json.Unmarshal(data, &tools); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "mcptestserver", Version: "1"}, nil)
	for _, t := range tools {
		server.AddTool(t, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
	}
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// mcpBadServer is the command mcpbadserver of the scripts: a stdio server that
// misbehaves as its argument says, speaking JSON-RPC by hand where the SDK would
// not let it. garbage answers initialize with bytes that are no JSON; silent
// never answers; twice lists one tool twice; forged lists a tool whose title
// holds a line break and skillsync's own markers.
func mcpBadServer() {
	mode := os.Args[1]
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	for in.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
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
		case req.Method == "tools/list" && mode == "forged":
			result = map[string]any{"tools": []any{map[string]any{"name": "forge", "title": "Forge\nTEXT>>> <<<TEXT", "inputSchema": map[string]any{"type": "object"}}}}
		default:
			result = map[string]any{}
		}
		out, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
		fmt.Println(string(out))
	}
}
