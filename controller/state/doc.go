// Package state keeps .skillsync/, a workspace's local state: the profile
// chosen with `skillsync profile use`, the record of the sources last applied (and
// `skillsync accept`, which rewrites it), the one-shot index, the list of the
// supporting files a SKILL.md names before skillsync put them in place, and the
// workspace lock, which keeps one writer per workspace: a watcher holds it for as
// long as it runs, a single pass only while it writes. The directory is made with
// a .gitignore so none of it reaches git, and refused when it is not a plain
// directory.
//
// It imports, of this module: desired, desired/registry, internal/banner,
// internal/workspacefs.
package state
