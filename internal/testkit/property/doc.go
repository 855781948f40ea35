// Package property is what the tests of the pass and the watcher do to the example
// workspace: random changes for the property tests that compare a pass through
// a cache with one from scratch, putting the workspace right, a save that
// deletes a skill, and inputs saved long ago. Only tests import it.
//
// It imports, of this module: internal/banner, internal/testkit,
// internal/testkit/documents, test/bench/workspacegen.
package property
