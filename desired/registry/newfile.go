package registry

import (
	"path"
	"strings"
)

// FileFor is the registry file a command creates for stem: the first of
// patterns holding one "*" in its last element, and no other wildcard, with stem
// in its place; ok is false when there is no such pattern.
func FileFor(patterns []string, stem string) (file string, ok bool) {
	for _, p := range patterns {
		dir, base := path.Split(p)
		if strings.Count(base, "*") == 1 && !strings.ContainsAny(p, "?[{") && !strings.Contains(dir, "*") {
			return path.Join(dir, strings.Replace(base, "*", stem, 1)), true
		}
	}
	return "", false
}

// SnapshotPath is where the snapshot of src is written, relative to the
// workspace root; ok is false when src names none and no pattern can.
func (r *Registry) SnapshotPath(src MCPSource) (string, bool) {
	if src.Snapshot != "" {
		return path.Clean(r.InConfigDir(src.Snapshot)), true
	}
	return FileFor(r.RegistryPatterns(), "mcp-"+src.Name)
}

// ValidCapabilityID says id can name a capability.
func ValidCapabilityID(id string) bool { return isCapabilityID(id) }

// ValidMCPName says name can name an MCP server.
func ValidMCPName(name string) bool { return isMCPName(name) }

// ValidMCPToolName says name is one the MCP specification allows a tool.
func ValidMCPToolName(name string) bool { return isMCPToolName(name) }

// mcpToolNameRule says what MCPToolNamePattern allows.
const mcpToolNameRule = "MCP tool names are 1 to 128 letters, digits, _, - and ."
