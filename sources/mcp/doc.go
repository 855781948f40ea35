// Package mcp records the tools of MCP servers as capabilities: it lists a
// server's tools through the official Go SDK and writes them, mapped, into a
// snapshot file of the registry that a run reads without the server.
//
// It imports, of this module: clients, desired/registry, internal/banner,
// internal/printable, internal/workspacefs.
package mcp
