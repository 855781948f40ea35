// Command skillsync keeps agent skill files in a workspace in step with its
// capability registry. This package wires flags, output and exit codes to the
// library, and owns how everything is said: the flags named in messages, the JSON
// of -o json, the status and explain views. It decides once that the workspace is
// the real disk (workspacefs.OS).
//
// It imports, of this module: authoring/adopt, authoring/forget, authoring/snapshot,
// authoring/starter, authoring/update, clients, controller, controller/apply,
// controller/plan, controller/state, controller/watch, desired,
// desired/registry, desired/sbom, internal/gitfiles, internal/initgc,
// internal/printable, internal/sarif, internal/workspacefs, observed, serve,
// sources/archive, sources/git, sources/mcp, sources/mcp/skillserver, sources/oci,
// sources/signing, sources/wellknown.
package main
