package registry

// overridden drops from reg's capabilities each one an MCP snapshot records for a
// tool that a capability declared by hand also names: annotations are a server's
// hints, and what a person declared wins.
func overridden(reg *Registry) []Capability {
	snapshots := map[string]bool{}
	for _, src := range reg.Config.Spec.MCPSources {
		if p, ok := reg.SnapshotPath(src); ok {
			snapshots[p] = true
		}
	}
	if len(snapshots) == 0 {
		return reg.Capabilities
	}
	type tool struct{ server, name string }
	declared := map[tool]bool{}
	for _, c := range reg.Capabilities {
		if !snapshots[c.doc.file()] && c.Spec.MCP != nil {
			declared[tool{c.MCPServer(reg.Config), c.Spec.MCP.Tool}] = true
		}
	}
	kept := reg.Capabilities[:0:0]
	for _, c := range reg.Capabilities {
		if snapshots[c.doc.file()] && c.Spec.MCP != nil && declared[tool{c.MCPServer(reg.Config), c.Spec.MCP.Tool}] {
			continue
		}
		kept = append(kept, c)
	}
	return kept
}

// FromSnapshot says c was recorded by skillsync mcp refresh, not declared by hand.
func (r *Registry) FromSnapshot(c Capability) bool {
	for _, src := range r.Config.Spec.MCPSources {
		if p, ok := r.SnapshotPath(src); ok && p == c.doc.file() {
			return true
		}
	}
	return false
}
