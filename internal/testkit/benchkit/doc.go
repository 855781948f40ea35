// Package benchkit is what the bench programs under test/bench share: building
// a package of the module, a free address, waiting for a watcher to be ready or
// a file to hold a text, the figures they print, and the scratch directory of
// their workspaces, removed however they stop. testkit builds its
// helpers for tests on Build, FreeAddr and Ready.
//
// It does not import testing, and that is why it is a package apart from
// testkit: the bench programs are commands, which have no test to fail and stop
// with a message instead, and a command should not link the test framework in.
// Its functions return an error for the caller to report, except those that say
// they stop the program.
//
// It imports nothing of this module.
package benchkit
