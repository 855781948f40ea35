// Package tools is the MCP tool list the conformance suite's server offers: one tool
// per capability, as a real server for that registry would list it.
//
// It imports, of this module: desired/registry.
package tools
