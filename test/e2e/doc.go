// Package e2e is the client conformance suite behind `make e2e`: it installs the
// real agent clients from npm, runs each headless against a mock model API on
// 127.0.0.1 (mockapi) in a workspace skillsync converged, and checks that each
// client finds, loads and follows the skills written for it. The suite builds
// only with the e2e tag.
//
// It imports nothing of this module.
package e2e
