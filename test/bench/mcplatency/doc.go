// Command mcplatency measures how long after an MCP server adds a tool the
// watcher has written the tool's skill, against a registry save measured the
// same way in the same workspace and process. It prints a table; docs/mcp.md
// and docs/performance.md record it.
//
//	go run ./test/bench/mcplatency [-adds 15]
//
// The bench runs itself as the MCP server (mcplatency serve TOOLS.json), built
// with the official Go SDK: it checks the tools file every 2 ms and adds what is
// new, which the SDK announces with tools/list_changed.
//
// It imports, of this module: internal/testkit/benchkit.
package main
