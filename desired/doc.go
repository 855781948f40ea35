// Package desired computes the skill files a workspace should have from its registry
// and the active profile. It is pure: it reads nothing, writes nothing and has no clock.
//
// It imports, of this module: clients, desired/registry, desired/render,
// internal/banner, internal/gitfiles.
package desired
