// Package testkit is what the tests of several packages share: where the
// module and its fixtures are, a copy of the example workspace to work in, and
// files written in one call. Only tests import it.
//
// It imports, of this module: desired/registry, internal/banner,
// test/bench/workspacegen.
package testkit
