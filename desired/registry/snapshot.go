package registry

import "fmt"

// overridden drops from reg's capabilities each one an MCP snapshot records for a
// tool that a capability declared by hand also names: annotations are a server's
// hints, and what a person declared wins. A source's capability of a tool the
// workspace declares or records itself is dropped too, and noted as shadowed.
func overridden(reg *Registry) []Capability {
	if len(reg.Config.Spec.MCPSources) == 0 {
		return reg.Capabilities
	}
	type tool struct{ server, name string }
	declared := map[tool]bool{} // by a person of the workspace
	recorded := map[tool]bool{} // by the workspace's snapshots
	for _, c := range reg.Capabilities {
		if c.Spec.MCP == nil {
			continue
		}
		t := tool{c.MCPServer(reg.Config), c.Spec.MCP.Tool}
		switch {
		case reg.isSnapshot(c.doc.file()):
			recorded[t] = true
		case c.source == 0:
			declared[t] = true
		}
	}
	kept := reg.Capabilities[:0:0]
	for _, c := range reg.Capabilities {
		if c.Spec.MCP == nil {
			kept = append(kept, c)
			continue
		}
		t := tool{c.MCPServer(reg.Config), c.Spec.MCP.Tool}
		switch {
		case reg.isSnapshot(c.doc.file()) && declared[t]:
			continue
		case c.source > 0 && (declared[t] || recorded[t]):
			// The workspace's own declaration or recording of the tool
			// shadows a source's, as for any name.
			reg.Shadowed = append(reg.Shadowed, Shadowed{Kind: "capability", Name: c.ID, Source: reg.Config.Spec.Sources[c.source-1].Name,
				At: itemAt(reg.config, c.source-1, "spec", "sources").Position()})
			continue
		}
		kept = append(kept, c)
	}
	return kept
}

// FromSnapshot says c was recorded by skillsync mcp refresh, not declared by hand.
func (r *Registry) FromSnapshot(c Capability) bool { return r.isSnapshot(c.doc.file()) }

// OfSnapshot are the problems of ps in the snapshot rel, or about what it holds
// (a name of a skill it records that another holds, at the selector that made
// it; a tool it records that a selector names and the patterns leave out):
// those recording rel again can bring.
func (r *Registry) OfSnapshot(rel string, ps Problems) Problems {
	var of Problems
	for _, p := range ps {
		if p.Pos.File == rel || p.snapshot == rel || p.broughtBy == rel {
			of = append(of, p)
		}
	}
	return of
}

// OutsideSnapshots are the problems of ps in files other than the snapshots of
// r's MCP sources, and not about what a snapshot holds: those a refresh cannot
// mend.
func (r *Registry) OutsideSnapshots(ps Problems) Problems {
	var outside Problems
	for _, p := range ps {
		if !r.isSnapshot(p.Pos.File) && p.snapshot == "" {
			outside = append(outside, p)
		}
	}
	return outside
}

// selectorOf finds the skills: selector that made the skill of c, a capability
// the snapshot of an MCP source records: the source's index in spec.mcpSources,
// and the selector's in its skills.
func (r *Registry) selectorOf(c Capability) (source, selector int, ok bool) {
	if c.Spec.MCP == nil {
		return 0, 0, false
	}
	for i, src := range r.Config.Spec.MCPSources {
		if p, ok := r.SnapshotPath(src); ok && p == c.doc.file() {
			j, ok := src.SkillSelector(c.Spec.MCP.Tool)
			return i, j, ok
		}
	}
	return 0, 0, false
}

func (r *Registry) isSnapshot(file string) bool {
	for _, src := range r.Config.Spec.MCPSources {
		if p, ok := r.SnapshotPath(src); ok && p == file {
			return true
		}
	}
	return false
}

// unmatched is the problem of a registry pattern that matches no file. One that
// would match the snapshot of an MCP source is about that snapshot, which a
// refresh writes: the first refresh of a workspace is what mends it.
func (r *Registry) unmatched(pattern string, pos Position) Problem {
	p := Problem{Pos: pos, Message: fmt.Sprintf("registry glob %q matches no file", pattern), Hint: "check the pattern; it is relative to " + ConfigName}
	for _, src := range r.Config.Spec.MCPSources {
		if snapshot, ok := r.SnapshotPath(src); ok {
			if whole, _ := MatchPattern(pattern, snapshot); whole {
				p.snapshot = snapshot
				p.Hint = "run skillsync mcp refresh to write " + snapshot + ", the snapshot of " + src.Name + ", or check the pattern; it is relative to " + ConfigName
				return p
			}
		}
	}
	return p
}
