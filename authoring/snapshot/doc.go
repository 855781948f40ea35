// Package snapshot writes an MCP source's snapshot into the registry for `mcp
// refresh` and the watcher's followers: a new file, or in place of one skillsync
// wrote, kept only if the registry loads with it. It writes the registry, never a
// skill.
//
// It imports, of this module: controller, controller/apply, controller/plan,
// desired/registry, internal/workspacefs, observed.
package snapshot
