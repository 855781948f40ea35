// Package adopt hands skills people wrote over to skillsync: it turns each into
// a registry Skill document (pure), and Apply writes those documents and removes
// the hand-written files, only if the registry then writes each skill back. It
// writes the registry and removes what it adopted; it never writes a skill.
//
// It imports, of this module: clients, controller, controller/apply, desired,
// desired/registry, internal/banner, internal/workspacefs, observed.
package adopt
