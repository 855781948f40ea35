// Package apply is the one writer of the workspace: it carries a plan out, and
// gives the commands that write the registry (init, adopt, an MCP snapshot) the
// same guarded creates and updates. Every write goes through workspacefs.
//
// It imports, of this module: clients, controller/plan, internal/banner,
// internal/parallel, internal/workspacefs, observed.
package apply
