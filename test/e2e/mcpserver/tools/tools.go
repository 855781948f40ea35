package tools

import (
	"encoding/json"

	"github.com/skillsync/skillsync/desired/registry"
)

// Tool is one MCP tool as tools/list returns it.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// FromCapability is the MCP tool a capability declares.
func FromCapability(c registry.Capability) Tool {
	schema := c.Spec.Input
	if schema == nil {
		schema = json.RawMessage(`{"type":"object"}`)
	}
	// The description is not the title, so the suite can tell a skill listing from
	// the tool list.
	return Tool{Name: c.Spec.MCP.Tool, Description: "The tool of capability " + c.ID + ".", InputSchema: schema}
}
