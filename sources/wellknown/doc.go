// Package wellknown reads skills from an Agent Skills discovery index (the
// 0.2.0 form served at /.well-known/agent-skills/index.json): it reads the index,
// fetches each skill's artifact (a SKILL.md, or a .tar.gz or .zip archive of the
// skill directory) into the user's cache by digest, checks every artifact by
// its digest whenever it is read, and unpacks archives; and it publishes a
// workspace's skill directories as a static index.
//
// It imports, of this module: desired/registry, internal/workspacefs,
// sources/archive, sources/blobs.
package wellknown
