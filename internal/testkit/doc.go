// Package testkit is what the tests of several packages share: where the
// module and its fixtures are, copies of the example workspace to work in,
// files written in one call, a directory's whole tree and the temp files left
// in it, the module's commands built from the checkout, a free address, a
// wait for a server to answer ready, a check of a SARIF log against the
// SARIF 2.1.0 JSON schema, and whether this system's Dir swaps two files. In a race-built test it also keeps every
// race-built program the test starts from sleeping a second before it exits.
// Only tests import it; what it shares with the bench programs, which must not
// need testing, is in benchkit.
//
// It imports, of this module: internal/banner, internal/testkit/benchkit,
// internal/workspacefs.
package testkit
