// Package starter is what `skillsync init` writes: it looks at a directory for
// the clients in use, the MCP servers the workspace configures and the skills
// people already wrote, makes a starting skillsync.yaml and registry from them,
// and creates those files, none of them over an existing one. It writes the
// registry, never a skill.
//
// It imports, of this module: clients, controller/apply, desired/registry,
// internal/printable, internal/workspacefs, observed, sources/mcp.
package starter
