// Package registry reads a workspace's skillsync.yaml and the registry documents it
// names (capabilities, workflow skills, profiles), strictly and with positions, and
// the skill directories they name, validates them, and knows which directories its
// inputs live in (InputDirs). It reads files; it never writes.
//
// It imports, of this module: clients, desired/render, internal/banner,
// internal/gitfiles, internal/hiddentext, internal/parallel, internal/printable,
// internal/workspacefs.
package registry
