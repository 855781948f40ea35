// Command mcpserver is a tiny stdio MCP server for the conformance suite: it offers
// the tools listed in a JSON file and answers every call with a fixed text, so the
// clients under test list the capabilities' MCP tools the way they would list real ones.
//
//	mcpserver TOOLS.json
//
// It imports, of this module: test/e2e/mcpserver/tools.
package main
