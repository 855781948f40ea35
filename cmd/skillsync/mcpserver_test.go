package main

import (
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
