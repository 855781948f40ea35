// Package controller runs a pass over a workspace: load the inputs, build the
// desired files, scan the target directories, plan and, unless the request only
// checks, apply, as one Reconcile that states what happened in an Outcome. Three
// roads lead to an Outcome: a pass from scratch (Reconcile, ReconcileOnce); the
// Informer, which a watcher owns and which reads and plans again only what its
// events named; and the one-shot index (package index), which answers a --once
// pass when nothing it read has changed. Deletes wait for the inputs to settle.
// The command line says what an Outcome means (cmd/skillsync).
//
// It imports, of this module: clients, controller/apply, controller/index,
// controller/plan, controller/state, desired, desired/registry, internal/gitfiles,
// internal/parallel, internal/workspacefs, observed.
package controller
