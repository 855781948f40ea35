// Package update is skillsync update: it resolves the sources skillsync.yaml
// declares anew, reads the skills each holds at the commit it resolves to, says
// what would change against skillsync.lock, and writes the lock when asked.
// It knows no transport: a Transport resolves and reads.
//
// It imports, of this module: controller/apply, controller/state,
// desired/registry, internal/workspacefs.
package update
