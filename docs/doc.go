// Package docs holds the reference documentation, and the tests that keep it
// true: every message it quotes is one skillsync prints, every session it shows
// runs as shown, and the package map in architecture.md is the module's.
//
// It imports nothing of this module.
package docs
